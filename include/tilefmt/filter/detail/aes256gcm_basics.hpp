// tilefmt — what every AES-256-GCM implementation shares: the filter's
// errors and sizes (filter/encryption_aes256gcm.hpp, and its ciphers in
// detail/aes256gcm_openssl.hpp and detail/aes256gcm_unavailable.hpp).
#pragma once

#include <cstddef>
#include <stdexcept>

#include "tilefmt/codec/error.hpp"

namespace tilefmt::filter {

/// A tag did not verify: the key is wrong or the tile was altered.
class authentication_error : public format_error {
public:
  using format_error::format_error;
};

/// AES-256-GCM cannot run here: the OpenSSL in use provides no AES-256-GCM
/// (e.g. its configuration loads no provider that implements it), or the
/// build has none (TILEFMT_NO_OPENSSL: the WebAssembly module).
class encryption_unavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

inline constexpr std::size_t aes256gcm_key_bytes = 32;
inline constexpr std::size_t aes256gcm_iv_bytes = 12;
inline constexpr std::size_t aes256gcm_tag_bytes = 16;

} // namespace detail
} // namespace tilefmt::filter

