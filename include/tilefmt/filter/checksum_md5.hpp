// tilefmt — the CHECKSUM_MD5 filter; MD5 from libmd.
#pragma once

#include <md5.h>

#include "tilefmt/filter/detail/checksum.hpp"

namespace tilefmt::filter {

namespace detail {
struct md5_hash {
  static constexpr std::size_t digest_size = 16;
  static void digest(bytes_view in, std::uint8_t* out) {
    MD5_CTX c;
    MD5Init(&c);
    MD5Update(&c, reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
    MD5Final(out, &c);
  }
};
} // namespace detail

struct checksum_md5 {
  static constexpr format::FilterType filter_type = format::FilterType::CHECKSUM_MD5;
  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static checksum_md5 from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype in) const { return in; }
  void forward(forward_io& io) const { detail::checksum_forward<detail::md5_hash>(io); }
  void reverse(reverse_io& io) const { detail::checksum_reverse<detail::md5_hash>(io, filter_type); }
};

} // namespace tilefmt::filter
