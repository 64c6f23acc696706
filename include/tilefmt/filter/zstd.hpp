// tilefmt — the ZSTD filter (format_spec/filter_pipeline.md; TileDB calls
// ZSTD_compressCCtx once per part: a one-shot frame with its content size).
#pragma once

#include <memory>

#include <zstd.h>

#include "tilefmt/filter/detail/compression.hpp"

namespace tilefmt::filter {

namespace detail {
struct zstd_codec {
  // One context per thread, reused for every part: no allocation per chunk.
  static ZSTD_CCtx* cctx() {
    thread_local std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> c(ZSTD_createCCtx(), &ZSTD_freeCCtx);
    return c.get();
  }
  static ZSTD_DCtx* dctx() {
    thread_local std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> d(ZSTD_createDCtx(), &ZSTD_freeDCtx);
    return d.get();
  }
  static std::size_t bound(std::size_t n) { return ZSTD_compressBound(n); }
  /// A block of at most 128 KiB needs at least 4 bytes (a 3-byte header
  /// and one byte repeated): no part decompresses to more than 32768 times
  /// its size.
  static std::size_t max_decompressed(std::size_t compressed) { return compressed * 32768; }
  static std::size_t compress(int level, bytes_view in, std::span<std::byte> out) {
    // TileDB passes levels below -7 as its default 3, and every other level as given.
    std::size_t r = ZSTD_compressCCtx(cctx(), out.data(), out.size(), in.data(), in.size(), level < -7 ? 3 : level);
    if (ZSTD_isError(r)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(r));
    return r;
  }
  static void decompress(bytes_view in, std::span<std::byte> out) {
    std::size_t r = ZSTD_decompressDCtx(dctx(), out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(r)) corrupt(format::FilterType::ZSTD, std::string("zstd: ") + ZSTD_getErrorName(r));
    if (r != out.size())
      corrupt(format::FilterType::ZSTD, "part decompresses to " + std::to_string(r) + " bytes, expected " +
                                            std::to_string(out.size()));
  }
};
} // namespace detail

/// ZSTD compression; `Level` is the default level (TileDB's default is -1,
/// zstd's fast level -1).
template <int Level = -1>
struct zstd {
  static constexpr format::FilterType filter_type = format::FilterType::ZSTD;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::compression_descriptor(filter_type, format::Compressor::ZSTD, level, version);
  }
  static zstd from_filter(const format::Filter& f, std::uint32_t version) {
    return zstd{detail::compression_level(f, format::Compressor::ZSTD, version)};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }
  void forward(forward_io& io) const { detail::compress_forward<detail::zstd_codec>(io, level); }
  void reverse(reverse_io& io) const { detail::compress_reverse<detail::zstd_codec>(io, filter_type); }
};

} // namespace tilefmt::filter
