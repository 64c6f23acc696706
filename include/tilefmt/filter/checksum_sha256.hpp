// tilefmt — the CHECKSUM_SHA256 filter; SHA-256 from libsodium.
#pragma once

#include <sodium.h>

#include "tilefmt/filter/detail/checksum.hpp"

namespace tilefmt::filter {

namespace detail {
struct sha256_hash {
  static constexpr std::size_t digest_size = crypto_hash_sha256_BYTES;
  static void digest(bytes_view in, std::uint8_t* out) {
    crypto_hash_sha256(out, reinterpret_cast<const unsigned char*>(in.data()), in.size());
  }
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
