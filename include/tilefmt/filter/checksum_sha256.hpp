// tilefmt — the CHECKSUM_SHA256 filter; SHA-256 from OpenSSL (EVP_Digest),
// or from libmd in a build without OpenSSL (TILEFMT_NO_OPENSSL: the
// WebAssembly module, where libmd is compiled from source and OpenSSL is not).
#pragma once

#include <stdexcept>

#if defined(TILEFMT_NO_OPENSSL)
#include <sys/types.h>
#include <sha2.h>
#else
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#endif

#include "tilefmt/filter/detail/checksum.hpp"

namespace tilefmt::filter {

namespace detail {
struct sha256_hash {
  static constexpr std::size_t digest_size = 32;
#if defined(TILEFMT_NO_OPENSSL)
  static void digest(bytes_view in, std::uint8_t* out) {
    SHA2_CTX c;
    SHA256Init(&c);
    SHA256Update(&c, reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
    SHA256Final(out, &c);
  }
#else
  static_assert(digest_size == SHA256_DIGEST_LENGTH);
  static void digest(bytes_view in, std::uint8_t* out) {
    unsigned int n = 0;
    if (EVP_Digest(in.data(), in.size(), out, &n, EVP_sha256(), nullptr) != 1 || n != digest_size) {
      ERR_clear_error();
      throw std::runtime_error("tilefmt: SHA-256 failed (OpenSSL)");
    }
  }
#endif
};
} // namespace detail

struct checksum_sha256 {
  static constexpr format::FilterType filter_type = format::FilterType::CHECKSUM_SHA256;
  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static checksum_sha256 from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype in) const { return in; }
  void forward(forward_io& io) const { detail::checksum_forward<detail::sha256_hash>(io); }
  void reverse(reverse_io& io) const { detail::checksum_reverse<detail::sha256_hash>(io, filter_type); }
};

} // namespace tilefmt::filter
