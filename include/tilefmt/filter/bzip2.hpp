// tilefmt — the BZIP2 filter: BZ2_bzBuffToBuffCompress with the level as
// block size (levels below 1 become 1), as tiledb/sm/compressors/
// bzip_compressor.cc calls it.
#pragma once

#include <limits>

#include <bzlib.h>

#include "tilefmt/filter/detail/compression.hpp"

namespace tilefmt::filter {

namespace detail {
struct bzip2_codec {
  static std::size_t bound(std::size_t n) { return n + n / 100 + 600; } // bzip2's documented worst case
  static std::size_t compress(int level, bytes_view in, std::span<std::byte> out) {
    unsigned int out_len = static_cast<unsigned int>(std::min<std::size_t>(out.size(), std::numeric_limits<unsigned int>::max()));
    int rc = BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(out.data()), &out_len,
                                      const_cast<char*>(reinterpret_cast<const char*>(in.data())),
                                      static_cast<unsigned int>(in.size()), level < 1 ? 1 : level, 0, 0);
    if (rc != BZ_OK) throw std::runtime_error("bzip2: compression failed (" + std::to_string(rc) + ")");
    return out_len;
  }
  static void decompress(bytes_view in, std::span<std::byte> out) {
    unsigned int out_len = static_cast<unsigned int>(out.size());
    int rc = BZ2_bzBuffToBuffDecompress(reinterpret_cast<char*>(out.data()), &out_len,
                                        const_cast<char*>(reinterpret_cast<const char*>(in.data())),
                                        static_cast<unsigned int>(in.size()), 0, 0);
    if (rc != BZ_OK || out_len != out.size())
      corrupt(format::FilterType::BZIP2, "corrupt stream (bzip2 error " + std::to_string(rc) + ")");
  }
};
} // namespace detail

/// BZIP2 compression; the level (1-9) is bzip2's block size in 100 kB.
template <int Level = -1>
struct bzip2 {
  static constexpr format::FilterType filter_type = format::FilterType::BZIP2;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::compression_descriptor(filter_type, format::Compressor::BZIP2, level, version);
  }
  static bzip2 from_filter(const format::Filter& f, std::uint32_t version) {
    return bzip2{detail::compression_level(f, format::Compressor::BZIP2, version)};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }
  void forward(forward_io& io) const { detail::compress_forward<detail::bzip2_codec>(io, level); }
  void reverse(reverse_io& io) const { detail::compress_reverse<detail::bzip2_codec>(io, filter_type); }
};

} // namespace tilefmt::filter
