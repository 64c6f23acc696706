// tilefmt — AES-256-GCM in a build without OpenSSL (TILEFMT_NO_OPENSSL: the
// WebAssembly module). Every use throws encryption_unavailable, so an
// encrypted array is refused with a message that says why, at its first
// encrypted tile (its schema), before any byte of it is trusted. A browser's
// AES-GCM (WebCrypto) answers only asynchronously, which the synchronous
// filter pipeline cannot wait for. Included by
// filter/encryption_aes256gcm.hpp.
#pragma once

#include <cstddef>
#include <span>

#include "tilefmt/filter/detail/aes256gcm_basics.hpp"
#include "tilefmt/filter/stage.hpp"

namespace tilefmt::filter::detail {

[[noreturn]] inline void aes256gcm_refuse() {
  throw encryption_unavailable("tilefmt: AES-256-GCM is not available in this build (no OpenSSL): "
                               "encrypted arrays cannot be read or written here");
}

/// Stands where OpenSSL's cipher context would.
struct aes256gcm_no_context {
  void* get() const noexcept { return nullptr; }
};

inline aes256gcm_no_context aes256gcm_context(bool) { aes256gcm_refuse(); }
inline void require_aes256gcm() { aes256gcm_refuse(); }
inline void aes256gcm_random_iv(unsigned char*) { aes256gcm_refuse(); }
inline void aes256gcm_wipe(std::span<std::byte> bytes) {
  for (auto& b : bytes) static_cast<volatile std::byte&>(b) = std::byte{0};
}
inline void aes256gcm_encrypt(void*, const unsigned char*, const unsigned char*, bytes_view, std::byte*, unsigned char*) {
  aes256gcm_refuse();
}
inline bool aes256gcm_decrypt(void*, const unsigned char*, const unsigned char*, const unsigned char*, bytes_view,
                              std::span<std::byte>) {
  aes256gcm_refuse();
}

} // namespace tilefmt::filter::detail
