// tilefmt — the GZIP filter. Despite its name TileDB writes zlib streams
// (deflateInit: 2-byte header, Adler-32 trailer), one deflate(Z_FINISH) per
// part (tiledb/sm/compressors/gzip_compressor.cc).
#pragma once

#include <limits>

#include <zlib.h>

#include "tilefmt/filter/detail/compression.hpp"

namespace tilefmt::filter {

namespace detail {
struct gzip_codec {
  // Streams are kept per thread and reset between parts; a new level re-initialises.
  struct deflater {
    z_stream s{};
    int level = 0;
    bool live = false;
    ~deflater() {
      if (live) deflateEnd(&s);
    }
    z_stream* get(int lvl) {
      if (live && lvl == level) {
        deflateReset(&s);
        return &s;
      }
      if (live) deflateEnd(&s);
      s = z_stream{};
      if (deflateInit(&s, lvl) != Z_OK) throw std::runtime_error("gzip: cannot initialise level " + std::to_string(lvl));
      live = true;
      level = lvl;
      return &s;
    }
  };
  struct inflater {
    z_stream s{};
    bool live = false;
    ~inflater() {
      if (live) inflateEnd(&s);
    }
    z_stream* get() {
      if (live) {
        inflateReset(&s);
      } else {
        s = z_stream{};
        if (inflateInit(&s) != Z_OK) throw std::runtime_error("gzip: cannot initialise inflate");
        live = true;
      }
      return &s;
    }
  };

  static int effective_level(int level) { return level < 0 ? Z_DEFAULT_COMPRESSION : level; }
  static std::size_t bound(std::size_t n) {
    thread_local deflater d;
    return deflateBound(d.get(Z_DEFAULT_COMPRESSION), static_cast<uLong>(n)) + 16;
  }
  /// Deflate's best case is a 258-byte match in two bits: 1032 bytes per byte.
  static std::size_t max_decompressed(std::size_t compressed) { return compressed * 1032 + 258; }
  static std::size_t compress(int level, bytes_view in, std::span<std::byte> out) {
    thread_local deflater d;
    z_stream* s = d.get(effective_level(level));
    s->next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    s->avail_in = static_cast<uInt>(in.size());
    s->next_out = reinterpret_cast<Bytef*>(out.data());
    s->avail_out = static_cast<uInt>(std::min<std::size_t>(out.size(), std::numeric_limits<uInt>::max()));
    if (deflate(s, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("gzip: compression failed");
    return static_cast<std::size_t>(s->total_out);
  }
  static void decompress(bytes_view in, std::span<std::byte> out) {
    thread_local inflater f;
    z_stream* s = f.get();
    s->next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    s->avail_in = static_cast<uInt>(in.size());
    s->next_out = reinterpret_cast<Bytef*>(out.data());
    s->avail_out = static_cast<uInt>(out.size());
    int rc = inflate(s, Z_FINISH);
    if (rc != Z_STREAM_END || s->total_out != out.size())
      corrupt(format::FilterType::GZIP, std::string("corrupt zlib stream (") + (s->msg ? s->msg : "wrong length") + ")",
              static_cast<std::size_t>(s->total_in));
  }
};
} // namespace detail

/// GZIP (zlib) compression; level -1 is zlib's default (6).
template <int Level = -1>
struct gzip {
  static constexpr format::FilterType filter_type = format::FilterType::GZIP;
  std::int32_t level = Level;

  format::Filter descriptor(std::uint32_t version) const {
    return detail::compression_descriptor(filter_type, format::Compressor::GZIP, level, version);
  }
  static gzip from_filter(const format::Filter& f, std::uint32_t version) {
    return gzip{detail::compression_level(f, format::Compressor::GZIP, version)};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }
  void forward(forward_io& io) const { detail::compress_forward<detail::gzip_codec>(io, level); }
  void reverse(reverse_io& io) const { detail::compress_reverse<detail::gzip_codec>(io, filter_type); }
};

} // namespace tilefmt::filter
