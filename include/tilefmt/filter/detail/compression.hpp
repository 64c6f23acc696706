// tilefmt — the framing every compression filter shares (format_spec/tile.md,
// "Compression Filters"; tiledb/sm/filter/compression_filter.cc): each input
// metadata part, then each data part, is compressed on its own; the stage's
// metadata lists (original, compressed) lengths; the earlier filters'
// metadata ends up inside the compressed data.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter::detail {

/// A compressor object (for codecs that need more than a level: the value
/// width of RLE, the element type of DELTA and DOUBLE_DELTA) provides
///   std::size_t bound(std::size_t n) const;            // most bytes compress(n bytes) writes
///   std::size_t compress(bytes_view in, std::span<std::byte> out) const;
///   void decompress(bytes_view in, std::span<std::byte> out) const;   // fills `out` exactly or throws
/// and optionally
///   std::size_t max_decompressed(std::size_t compressed) const;
/// the most bytes a part of that compressed size can hold: declared
/// lengths above it are rejected before anything is allocated.
/// The framing below is compiled once, not once per codec (there are
/// eighteen: every compressor, and DELTA and DOUBLE_DELTA per element
/// type): it reaches its codec through these function pointers, which
/// compress_forward_with and compress_reverse_with fill in.
struct erased_codec {
  const void* codec;
  std::size_t (*bound)(const void* codec, std::size_t n);
  std::size_t (*compress)(const void* codec, bytes_view in, std::span<std::byte> out);
  void (*decompress)(const void* codec, bytes_view in, std::span<std::byte> out);
  std::size_t (*max_decompressed)(const void* codec, std::size_t compressed);  // nullptr: no bound

  template <class Codec>
  static erased_codec of(const Codec& c) {
    erased_codec e{&c,
                   [](const void* x, std::size_t n) { return static_cast<const Codec*>(x)->bound(n); },
                   [](const void* x, bytes_view in, std::span<std::byte> out) {
                     return static_cast<const Codec*>(x)->compress(in, out);
                   },
                   [](const void* x, bytes_view in, std::span<std::byte> out) {
                     static_cast<const Codec*>(x)->decompress(in, out);
                   },
                   nullptr};
    if constexpr (requires { c.max_decompressed(std::size_t{}); })
      e.max_decompressed = [](const void* x, std::size_t n) { return static_cast<const Codec*>(x)->max_decompressed(n); };
    return e;
  }
};

inline void compress_forward_erased(forward_io& io, const erased_codec& codec) {
  const part_list& md = io.in_metadata;
  const part_list& data = io.in_data;
  const std::size_t parts = md.size() + data.size();

  std::size_t bound = 0;
  for (std::size_t i = 0; i < md.size(); ++i) bound += codec.bound(codec.codec, md[i].size());
  for (std::size_t i = 0; i < data.size(); ++i) bound += codec.bound(codec.codec, data[i].size());
  auto out = scratch::sized(io.buf.data, bound);

  // Header: u32 md parts, u32 data parts, then (u32 original, u32 compressed) per part.
  auto header = scratch::sized(io.buf.metadata, 8 + parts * 8);
  codec::store_le<std::uint32_t>(header.data(), static_cast<std::uint32_t>(md.size()));
  codec::store_le<std::uint32_t>(header.data() + 4, static_cast<std::uint32_t>(data.size()));
  std::size_t at = 0, entry = 8;
  auto one = [&](bytes_view part) {
    if (part.size() > 0xffffffffu) throw std::length_error("tilefmt: part too large to compress");
    std::size_t n = codec.compress(codec.codec, part, out.subspan(at));
    codec::store_le<std::uint32_t>(header.data() + entry, static_cast<std::uint32_t>(part.size()));
    codec::store_le<std::uint32_t>(header.data() + entry + 4, static_cast<std::uint32_t>(n));
    entry += 8;
    at += n;
  };
  for (std::size_t i = 0; i < md.size(); ++i) one(md[i]);
  for (std::size_t i = 0; i < data.size(); ++i) one(data[i]);
  io.out_metadata.push_back(header);
  io.out_data.push_back(out.first(at));
}

inline void compress_reverse_erased(reverse_io& io, format::FilterType type, const erased_codec& codec) {
  format::CompressionMD md;
  read_metadata(type, io.metadata, md);
  // What follows the header in the metadata region belongs to no one: the
  // earlier filters' metadata is inside the compressed data. TileDB ignores
  // it too.
  std::size_t md_total = 0, data_total = 0, compressed_total = 0;
  for (const auto& p : md.metadata_parts) md_total += p.original_length, compressed_total += p.compressed_length;
  for (const auto& p : md.data_parts) data_total += p.original_length, compressed_total += p.compressed_length;
  if (compressed_total != io.data.size())
    corrupt(type, "parts hold " + std::to_string(compressed_total) + " compressed bytes, the chunk has " +
                      std::to_string(io.data.size()));
  // The first filter's output is the chunk: a different total is corrupt,
  // and is caught before it is allocated.
  if (!io.destination.empty() && data_total != io.destination.size())
    corrupt(type, "parts decompress to " + std::to_string(data_total) + " bytes, the chunk has " +
                      std::to_string(io.destination.size()));
  // Filters after the first one decompress into a buffer of their own,
  // whose size only the stored lengths give.
  if (md_total > io.ctx.max_part_size || data_total > io.ctx.max_part_size)
    corrupt(type, "parts decompress to " + std::to_string(std::max(md_total, data_total)) + " bytes, more than the " +
                      std::to_string(io.ctx.max_part_size) + " a chunk's parts may claim");
  if (codec.max_decompressed) {
    auto check = [&](const format::CompressedPartMD& p) {
      if (p.original_length > codec.max_decompressed(codec.codec, p.compressed_length))
        corrupt(type, "a part of " + std::to_string(p.compressed_length) + " compressed bytes cannot hold " +
                          std::to_string(p.original_length));
    };
    for (const auto& p : md.metadata_parts) check(p);
    for (const auto& p : md.data_parts) check(p);
  }

  auto md_out = io.metadata_output(md_total);
  auto data_out = io.output(data_total);
  std::size_t in_at = 0;
  auto parts = [&](const auto& list, std::span<std::byte> out) {
    std::size_t out_at = 0;
    for (const auto& p : list) {
      try {
        codec.decompress(codec.codec, io.data.subspan(in_at, p.compressed_length), out.subspan(out_at, p.original_length));
      } catch (format_error& e) {
        e.add_offset(in_at);
        throw;
      }
      in_at += p.compressed_length;
      out_at += p.original_length;
    }
  };
  parts(md.metadata_parts, md_out);
  parts(md.data_parts, data_out);
  io.out_metadata = md_out;
  io.out_data = data_out;
}

/// A compressor object (for codecs that need more than a level: the value
/// width of RLE, the element type of DELTA and DOUBLE_DELTA) provides
///   std::size_t bound(std::size_t n) const;            // most bytes compress(n bytes) writes
///   std::size_t compress(bytes_view in, std::span<std::byte> out) const;
///   void decompress(bytes_view in, std::span<std::byte> out) const;   // fills `out` exactly or throws
/// and optionally
///   std::size_t max_decompressed(std::size_t compressed) const;
/// the most bytes a part of that compressed size can hold: declared
/// lengths above it are rejected before anything is allocated.
template <class Codec>
void compress_forward_with(forward_io& io, const Codec& codec) {
  compress_forward_erased(io, erased_codec::of(codec));
}

template <class Codec>
void compress_reverse_with(reverse_io& io, format::FilterType type, const Codec& codec) {
  compress_reverse_erased(io, type, erased_codec::of(codec));
}

/// A compressor whose functions are static and take only a level:
///   static std::size_t bound(std::size_t n);
///   static std::size_t compress(int level, bytes_view in, std::span<std::byte> out);
///   static void decompress(bytes_view in, std::span<std::byte> out);   // fills `out` exactly or throws
template <class Codec>
struct leveled_codec {
  int level;
  std::size_t bound(std::size_t n) const { return Codec::bound(n); }
  std::size_t compress(bytes_view in, std::span<std::byte> out) const { return Codec::compress(level, in, out); }
  void decompress(bytes_view in, std::span<std::byte> out) const { Codec::decompress(in, out); }
  std::size_t max_decompressed(std::size_t compressed) const
    requires requires { Codec::max_decompressed(compressed); }
  {
    return Codec::max_decompressed(compressed);
  }
};

template <class Codec>
void compress_forward(forward_io& io, int level) {
  compress_forward_with(io, leveled_codec<Codec>{level});
}

template <class Codec>
void compress_reverse(reverse_io& io, format::FilterType type) {
  compress_reverse_with(io, type, leveled_codec<Codec>{0});
}

/// Builds a compression stage's stored form: options = compressor byte and level.
inline format::Filter compression_descriptor(format::FilterType type, format::Compressor c, std::int32_t level,
                                             std::uint32_t version) {
  return format::Filter::make(type, format::CompressionOptions{c, level}, version);
}

inline std::int32_t compression_level(const format::Filter& f, format::Compressor expected, std::uint32_t version) {
  auto opts = f.options_as<format::CompressionOptions>(version);
  if (opts.compressor != expected)
    throw format_error(std::string(format::codec_enum_name(f.type)) + " filter stores compressor " +
                           std::string(format::codec_enum_name(opts.compressor)),
                       0);
  return opts.level;
}

} // namespace tilefmt::filter::detail
