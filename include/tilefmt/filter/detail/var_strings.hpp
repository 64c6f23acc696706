// tilefmt — what RLE and DICTIONARY share on var-size STRING_ASCII /
// STRING_UTF8 data tiles (tiledb/sm/filter/compression_filter.cc,
// compress_var_string_coords and decompress_var_string_coords): they encode
// the cells and their offsets together, the whole var tile as one chunk,
// behind a header of their own instead of the compression header:
//   u32 0 | u32 1 | u32 input bytes | u32 output bytes | u32 8 x cells
// (format::VarStringMD), then each filter's fields. The offsets tile is
// then stored empty, and the reader rebuilds the offsets from the var tile.
//
// Also the two pipeline-wide rules that decide when that happens, public in
// tilefmt::filter (reachable through rle.hpp and dictionary.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"
#include "tilefmt/format/filter_pipeline.hpp"

namespace tilefmt::filter {

namespace detail {

inline bool has_filter(const format::FilterPipeline& p, format::FilterType t) {
  for (const auto& f : p.filters) if (f.type == t) return true;
  return false;
}

/// Whether a filter of type `f` (RLE or DICTIONARY) on a var-size tile of
/// `type` encodes strings and offsets together at format version `version`:
/// STRING_ASCII from version 12 with RLE and 13 with DICTIONARY, STRING_UTF8
/// from version 17 with either.
inline bool var_string_rule(format::FilterType f, format::Datatype type, std::uint32_t version) {
  using D = format::Datatype;
  using F = format::FilterType;
  if (type == D::STRING_ASCII) return (f == F::RLE && version >= 12) || (f == F::DICTIONARY && version >= 13);
  if (type == D::STRING_UTF8) return (f == F::RLE || f == F::DICTIONARY) && version >= 17;
  return false;
}

} // namespace detail

/// TileDB's FilterPipeline::skip_offsets_filtering: whether the var-size
/// field of datatype `type` whose data pipeline is `p` has its offsets
/// tiles stored empty (8 zero bytes, no chunks) at format version
/// `version`, the offsets coming back from the var tile
/// (tile_context::rebuilt_offsets). TileDB's writer evaluates it with the
/// version it writes (the library's), its reader with the array schema's.
inline bool skip_offsets_filtering(const format::FilterPipeline& p, format::Datatype type, std::uint32_t version) {
  using F = format::FilterType;
  return (detail::has_filter(p, F::RLE) && detail::var_string_rule(F::RLE, type, version)) ||
         (detail::has_filter(p, F::DICTIONARY) && detail::var_string_rule(F::DICTIONARY, type, version));
}

/// TileDB's FilterPipeline::use_tile_chunking: whether tiles of the field
/// are split into 64 KiB chunks. Not when the pipeline stores
/// max_chunk_size 0, nor for var-size STRING_ASCII / STRING_UTF8 data with
/// RLE (version 12 on) or DICTIONARY (13 on; here TileDB does not tell UTF8
/// from ASCII), nor (other fields) with WEBP.
inline bool use_tile_chunking(const format::FilterPipeline& p, bool is_var, format::Datatype type,
                              std::uint32_t version) {
  using F = format::FilterType;
  if (p.max_chunk_size == 0) return false;
  if (is_var && (type == format::Datatype::STRING_ASCII || type == format::Datatype::STRING_UTF8)) {
    if (version >= 12 && detail::has_filter(p, F::RLE)) return false;
    if (version >= 13 && detail::has_filter(p, F::DICTIONARY)) return false;
    return true;
  }
  return !detail::has_filter(p, F::WEBP);
}

namespace detail {

inline bool is_var_string_type(format::Datatype t) {
  return t == format::Datatype::STRING_ASCII || t == format::Datatype::STRING_UTF8;
}

/// Writing: whether this stage encodes the chunk as var strings.
inline bool var_strings_forward(const forward_io& io, format::FilterType f) {
  return is_var_string_type(io.type) && !io.ctx.offsets.empty() && var_string_rule(f, io.type, io.ctx.version);
}

/// Reading: TileDB takes this path when the reader hands the filter the
/// offsets tile to rebuild, for versions 12 on.
inline bool var_strings_reverse(const reverse_io& io) {
  return is_var_string_type(io.type) && io.ctx.rebuilt_offsets != nullptr && io.ctx.version >= 12;
}

/// Smallest of 1, 2, 4, 8 bytes that holds v.
inline std::uint8_t byte_width_for(std::uint64_t v) {
  if (v <= 0xff) return 1;
  if (v <= 0xffff) return 2;
  if (v <= 0xffffffffu) return 4;
  return 8;
}

inline bool valid_byte_width(std::uint8_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

inline void store_be(std::byte* p, std::uint64_t v, unsigned width) {
  for (unsigned i = width; i-- > 0;) {
    p[i] = static_cast<std::byte>(v & 0xff);
    v >>= 8;
  }
}

inline std::uint64_t load_be(const std::byte* p, unsigned width) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

/// The cells of a var tile being written: the chunk and its offsets.
struct string_cells {
  bytes_view data;
  std::span<const std::uint64_t> offsets;

  std::size_t size() const noexcept { return offsets.size(); }
  bytes_view operator[](std::size_t i) const {
    std::uint64_t end = i + 1 < offsets.size() ? offsets[i + 1] : data.size();
    return data.subspan(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(end - offsets[i]));
  }
  static bool equal(bytes_view a, bytes_view b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
  }
};

/// Checks what TileDB assumes of a var string chunk on write: the first
/// filter (one data part, no metadata), the whole var tile (offsets from 0,
/// increasing, within the chunk).
inline string_cells var_string_input(const forward_io& io, format::FilterType f) {
  const std::string name(format::codec_enum_name(f));
  if (io.in_data.size() != 1 || !io.in_metadata.empty())
    throw std::invalid_argument("tilefmt: " + name + " on var-size strings must be the first filter of the pipeline");
  string_cells cells{io.in_data[0], io.ctx.offsets};
  if (cells.data.size() > std::numeric_limits<std::uint32_t>::max() ||
      cells.size() > std::numeric_limits<std::uint32_t>::max() / 8)
    throw std::length_error("tilefmt: var tile too large for " + name);
  std::uint64_t prev = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    std::uint64_t o = cells.offsets[i];
    if ((i == 0 && o != 0) || o < prev || o > cells.data.size())
      throw std::invalid_argument("tilefmt: " + name +
                                  " on var-size strings needs the whole var tile as one chunk, with its cell offsets");
    prev = o;
  }
  return cells;
}

inline format::VarStringMD var_string_header(const string_cells& cells, std::size_t output_length) {
  return {0, 1, static_cast<std::uint32_t>(cells.data.size()), static_cast<std::uint32_t>(output_length),
          static_cast<std::uint32_t>(8 * cells.size())};
}

/// Where a var string chunk decodes to, after checking the header against
/// the chunk: the chunk's bytes (this is the first filter) and the offsets.
struct string_output {
  std::span<std::byte> data;
  std::vector<std::uint64_t>& offsets;
  std::size_t cells; // how many offsets the header declares
};

inline string_output var_string_output(reverse_io& io, format::FilterType f, const format::VarStringMD& h) {
  if (h.num_metadata_parts != 0 || h.num_data_parts != 1)
    corrupt(f, "var string header declares " + std::to_string(h.num_metadata_parts) + " metadata and " +
                   std::to_string(h.num_data_parts) + " data parts, not 0 and 1");
  if (h.output_length != io.data.size())
    corrupt(f, "encoded strings hold " + std::to_string(h.output_length) + " bytes, the chunk has " +
                   std::to_string(io.data.size()));
  // The filter is the first one: its output is the chunk, whose size is known.
  if (h.input_length != io.destination.size())
    corrupt(f, "strings decode to " + std::to_string(h.input_length) + " bytes, the chunk has " +
                   std::to_string(io.destination.size()));
  if (h.offsets_length % 8 != 0) corrupt(f, "offsets length " + std::to_string(h.offsets_length) + " is not 8 x cells");
  std::vector<std::uint64_t>& offsets = *io.ctx.rebuilt_offsets;
  const std::size_t cells = h.offsets_length / 8;
  if (!offsets.empty() && offsets.size() != cells)
    corrupt(f, "var tile holds " + std::to_string(cells) + " cells, " + std::to_string(offsets.size()) + " expected");
  offsets.clear();
  return {io.output(h.input_length), offsets, cells};
}

} // namespace detail

} // namespace tilefmt::filter
