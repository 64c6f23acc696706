// tilefmt — the LZ4 filter: raw LZ4 blocks (LZ4_compress_default, no frame,
// no size prefix), as tiledb/sm/compressors/lz4_compressor.cc writes them.
#pragma once

#include <limits>

#include <lz4.h>

#include "tilefmt/filter/detail/compression.hpp"

namespace tilefmt::filter {

namespace detail {
struct lz4_codec {
  static std::size_t bound(std::size_t n) {
    if (n > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) throw std::length_error("lz4: part too large");
    return static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(n)));
  }
  /// Every byte of a block adds at most 255 bytes (a length byte of 255),
  /// the first sequence's token a few more.
  static std::size_t max_decompressed(std::size_t compressed) { return compressed * 255 + 64; }
  static std::size_t compress(int, bytes_view in, std::span<std::byte> out) {
    int r = LZ4_compress_default(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
                                 static_cast<int>(in.size()), static_cast<int>(std::min<std::size_t>(out.size(), std::numeric_limits<int>::max())));
    if (r <= 0 && !in.empty()) throw std::runtime_error("lz4: compression failed");
    return static_cast<std::size_t>(r);
  }
  static void decompress(bytes_view in, std::span<std::byte> out) {
    if (in.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
        out.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      corrupt(format::FilterType::LZ4, "part too large");
    int r = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
                                static_cast<int>(in.size()), static_cast<int>(out.size()));
    if (r < 0 || static_cast<std::size_t>(r) != out.size())
      corrupt(format::FilterType::LZ4, "corrupt block (decoded " + std::to_string(r) + " bytes, expected " +
                                           std::to_string(out.size()) + ")");
  }
};
} // namespace detail

/// LZ4 compression; TileDB stores a level but LZ4 ignores it.
template <int Level = -1>
struct lz4 {
  static constexpr format::FilterType filter_type = format::FilterType::LZ4;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::compression_descriptor(filter_type, format::Compressor::LZ4, level, version);
  }
  static lz4 from_filter(const format::Filter& f, std::uint32_t version) {
    return lz4{detail::compression_level(f, format::Compressor::LZ4, version)};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }
  void forward(forward_io& io) const { detail::compress_forward<detail::lz4_codec>(io, level); }
  void reverse(reverse_io& io) const { detail::compress_reverse<detail::lz4_codec>(io, filter_type); }
};

} // namespace tilefmt::filter
