// tilefmt — the framing every compression filter shares (format_spec/tile.md,
// "Compression Filters"; tiledb/sm/filter/compression_filter.cc): each input
// metadata part, then each data part, is compressed on its own; the stage's
// metadata lists (original, compressed) lengths; the earlier filters'
// metadata ends up inside the compressed data.
#pragma once

#include <cstdint>
#include <string>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter::detail {

/// A compressor plugs in with
///   static std::size_t bound(std::size_t n);
///   static std::size_t compress(int level, bytes_view in, std::span<std::byte> out);
///   static void decompress(bytes_view in, std::span<std::byte> out);   // fills `out` exactly or throws
template <class Codec>
void compress_forward(forward_io& io, int level) {
  const part_list& md = io.in_metadata;
  const part_list& data = io.in_data;
  const std::size_t parts = md.size() + data.size();

  std::size_t bound = 0;
  for (std::size_t i = 0; i < md.size(); ++i) bound += Codec::bound(md[i].size());
  for (std::size_t i = 0; i < data.size(); ++i) bound += Codec::bound(data[i].size());
  auto out = scratch::sized(io.buf.data, bound);

  // Header: u32 md parts, u32 data parts, then (u32 original, u32 compressed) per part.
  auto header = scratch::sized(io.buf.metadata, 8 + parts * 8);
  codec::store_le<std::uint32_t>(header.data(), static_cast<std::uint32_t>(md.size()));
  codec::store_le<std::uint32_t>(header.data() + 4, static_cast<std::uint32_t>(data.size()));
  std::size_t at = 0, entry = 8;
  auto one = [&](bytes_view part) {
    if (part.size() > 0xffffffffu) throw std::length_error("tilefmt: part too large to compress");
    std::size_t n = Codec::compress(level, part, out.subspan(at));
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

template <class Codec>
void compress_reverse(reverse_io& io, format::FilterType type) {
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

  auto md_out = io.metadata_output(md_total);
  auto data_out = io.output(data_total);
  std::size_t in_at = 0, out_at = 0;
  for (const auto& p : md.metadata_parts) {
    Codec::decompress(io.data.subspan(in_at, p.compressed_length), md_out.subspan(out_at, p.original_length));
    in_at += p.compressed_length;
    out_at += p.original_length;
  }
  out_at = 0;
  for (const auto& p : md.data_parts) {
    try {
      Codec::decompress(io.data.subspan(in_at, p.compressed_length), data_out.subspan(out_at, p.original_length));
    } catch (format_error& e) {
      e.add_offset(in_at);
      throw;
    }
    in_at += p.compressed_length;
    out_at += p.original_length;
  }
  io.out_metadata = md_out;
  io.out_data = data_out;
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
