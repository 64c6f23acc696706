// tilefmt — fragment metadata, `__fragment_metadata.tdb` of format versions
// 3 to 23 (format_spec/fragment.md, "Fragment Metadata File"), and the
// consolidated fragment metadata file (format_spec/
// consolidated_fragment_metadata_file.md). Layouts follow TileDB's
// tiledb/sm/fragment/fragment_metadata.cc, ondemand_fragment_metadata.cc and
// tiledb/sm/rtree/rtree.cc where they differ from the spec.
//
// The file is a run of generic tiles (one struct below per kind of payload)
// followed by the Footer, which is not a generic tile:
//
//   R-tree | tile offsets x N | var offsets x N | var sizes x N |
//   validity offsets x N (v7) | mins x N | maxes x N (v11) |
//   global order mins x D | global order maxes x D (v23, sparse) |
//   sums x N | null counts x N (v11) | fragment min/max/sum/null count (v12) |
//   processed conditions (v15) | Footer | u64 footer length (v10, or any
//   var-size dimension)
//
// N = FragmentContext::num_fields(). Before v5 the sections are R-tree,
// tile offsets x (A+1), var offsets x A, var sizes x A (A attributes).
// Sizes that come from the array schema (number of attributes, dimension
// types) come from a FragmentContext; the format version in the context is
// the fragment's, taken from its folder name (`__t1_t2_uuid_<v>`).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/format/datatype.hpp"
#include "tilefmt/format/names.hpp"
#include "tilefmt/format/ranges.hpp"

namespace tilefmt::format {

// ---------------------------------------------------------------------------
// What the codec needs to know from the array schema
// ---------------------------------------------------------------------------

/// The context every fragment metadata declaration is decoded and encoded
/// with.
struct FragmentContext {
  /// Layout version: the fragment's format version (from the folder name).
  /// Experimental builds write a version with the high bit set (or
  /// UINT32_MAX) and the layout of the release they were built from; pass
  /// that release's version here.
  std::uint32_t version = 0;
  std::vector<DimensionShape> dims;  // of the schema the fragment was written with
  std::size_t num_attributes = 0;
  /// Footer flags (v14, v15); needed only by sections sized per field.
  /// with_footer_flags() copies them from a decoded Footer.
  bool has_timestamps = false;
  bool has_delete_meta = false;

  bool all_dims_fixed() const noexcept {
    for (const auto& d : dims)
      if (d.var_size) return false;
    return true;
  }

  /// Fields with per-field arrays from v5 on: attributes, `__coords`,
  /// dimensions, timestamps (v14), delete timestamps and delete condition
  /// index (v15). Before v5: attributes and `__coords`.
  std::size_t num_fields() const noexcept {
    if (version < 5) return num_attributes + 1;
    return num_attributes + 1 + dims.size() + (version >= 14 && has_timestamps ? 1 : 0) +
           (version >= 15 && has_delete_meta ? 2 : 0);
  }

  /// Index of `__coords`; the dimensions follow it, then the timestamp fields.
  std::size_t coords_index() const noexcept { return num_attributes; }
  std::size_t dim_index(std::size_t d) const noexcept { return num_attributes + 1 + d; }

  friend bool operator==(const FragmentContext&, const FragmentContext&) = default;
};

// ---------------------------------------------------------------------------
// Generic tile payloads (format_spec/fragment.md, one struct per table)
// ---------------------------------------------------------------------------

/// One level of the R-tree.
template <class Bytes>
struct BasicRTreeLevel {
  codec::counted<std::uint64_t, std::vector<BasicMBR<Bytes>>> mbrs;
  friend bool operator==(const BasicRTreeLevel&, const BasicRTreeLevel&) = default;
};

/// "R-Tree": root level first, leaves (one MBR per sparse tile) last.
/// Dense fragments store no levels.
template <class Bytes>
struct BasicRTree {
  codec::until<5, std::uint32_t> dimension_num;
  std::uint32_t fanout = 10;
  codec::until<5, Datatype> datatype;  // the domain's (single) type
  codec::counted<std::uint32_t, std::vector<BasicRTreeLevel<Bytes>>> levels;
  friend bool operator==(const BasicRTree&, const BasicRTree&) = default;
};

using RTreeLevel = BasicRTreeLevel<std::vector<std::byte>>;
using RTree = BasicRTree<std::vector<std::byte>>;
using RTreeView = BasicRTree<codec::le_span<std::byte>>;

/// "Tile Offsets": tile, var tile and validity tile offsets of one field.
/// Every field gets one entry per tile (zeros where not applicable).
template <class Values>
struct BasicTileOffsets {
  codec::counted<std::uint64_t, Values> offsets;
  friend bool operator==(const BasicTileOffsets&, const BasicTileOffsets&) = default;
};

/// "Tile Sizes": unfiltered var tile sizes of one field.
template <class Values>
struct BasicTileSizes {
  codec::counted<std::uint64_t, Values> sizes;
  friend bool operator==(const BasicTileSizes&, const BasicTileSizes&) = default;
};

/// "Tile Mins Maxes" (v11), as the code writes it (the spec's table is
/// wrong): byte sizes first. Fixed fields hold one cell per tile in `fixed`;
/// var fields hold a u64 offset per tile into `var`. Fields without min/max
/// have both empty. Also the layout of the global order bounds (v23).
template <class Bytes>
struct BasicTileMinMax {
  codec::count_of<"fixed", std::uint64_t> fixed_size;
  codec::count_of<"var", std::uint64_t> var_size;
  Bytes fixed;
  Bytes var;
  friend bool operator==(const BasicTileMinMax&, const BasicTileMinMax&) = default;
};

/// "Tile Sums" (v11): per tile 8 bytes holding an int64, a uint64 or a
/// double (by the field's type; see sum_as). Empty for fields without sums.
template <class Values>
struct BasicTileSums {
  codec::counted<std::uint64_t, Values> sums;
  friend bool operator==(const BasicTileSums&, const BasicTileSums&) = default;
};

/// "Tile Null Count" (v11): per tile, for nullable attributes; else empty.
template <class Values>
struct BasicTileNullCounts {
  codec::counted<std::uint64_t, Values> null_counts;
  friend bool operator==(const BasicTileNullCounts&, const BasicTileNullCounts&) = default;
};

using TileOffsets = BasicTileOffsets<std::vector<std::uint64_t>>;
using TileOffsetsView = BasicTileOffsets<codec::le_span<std::uint64_t>>;
using TileSizes = BasicTileSizes<std::vector<std::uint64_t>>;
using TileSizesView = BasicTileSizes<codec::le_span<std::uint64_t>>;
using TileMinMax = BasicTileMinMax<std::vector<std::byte>>;
using TileMinMaxView = BasicTileMinMax<codec::le_span<std::byte>>;
using TileGlobalOrderBounds = TileMinMax;
using TileGlobalOrderBoundsView = TileMinMaxView;
using TileSums = BasicTileSums<std::vector<std::uint64_t>>;
using TileSumsView = BasicTileSums<codec::le_span<std::uint64_t>>;
using TileNullCounts = BasicTileNullCounts<std::vector<std::uint64_t>>;
using TileNullCountsView = BasicTileNullCounts<codec::le_span<std::uint64_t>>;

/// A stored sum as the type it was computed in: std::int64_t for signed
/// integers, CHAR, DATETIME and TIME; std::uint64_t for unsigned integers
/// and BOOL; double for floats.
template <class T>
T sum_as(std::uint64_t stored) noexcept {
  static_assert(std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t> || std::is_same_v<T, double>,
                "tilefmt::format::sum_as<T>: sums are int64, uint64 or double");
  return codec::bit_cast<T>(stored);
}

namespace detail {
struct num_fields_len {
  template <class P>
  std::size_t operator()(const P&, const FragmentContext& ctx) const {
    return ctx.num_fields();
  }
};
struct num_dims_len {
  template <class P>
  std::size_t operator()(const P&, const FragmentContext& ctx) const {
    return ctx.dims.size();
  }
};
} // namespace detail

/// One field's entry of the fragment summary.
struct FieldMinMaxSumNullCount {
  codec::counted<std::uint64_t, std::vector<std::byte>> min;  // empty when the field has none
  codec::counted<std::uint64_t, std::vector<std::byte>> max;
  std::uint64_t sum;  // as in TileSums
  std::uint64_t null_count;
  friend bool operator==(const FieldMinMaxSumNullCount&, const FieldMinMaxSumNullCount&) = default;
};

/// "Tile Fragment Min Max Sum Null Count" (written from v12; readers ignore
/// it for v <= 11): one entry per field.
struct FragmentMinMaxSumNullCount {
  codec::sized<detail::num_fields_len, std::vector<FieldMinMaxSumNullCount>> fields;
  friend bool operator==(const FragmentMinMaxSumNullCount&, const FragmentMinMaxSumNullCount&) = default;
};

/// "Tile Processed Conditions" (written from v15, found from v16): the
/// delete/update condition marker file names already applied, sorted.
struct ProcessedConditions {
  codec::counted<std::uint64_t, std::vector<codec::counted<std::uint64_t, std::string>>> conditions;
  friend bool operator==(const ProcessedConditions&, const ProcessedConditions&) = default;
};

// ---------------------------------------------------------------------------
// Footer (format_spec/fragment.md, "Footer")
// ---------------------------------------------------------------------------

/// "Optional section" (v23): readers skip identifiers they do not know.
struct OptionalSection {
  std::uint64_t identifier;
  codec::counted<std::uint32_t, std::vector<std::byte>> data;
  friend bool operator==(const OptionalSection&, const OptionalSection&) = default;
};

/// Optional section identifiers (tiledb/sm/fragment/fragment_metadata.h).
inline constexpr std::uint64_t tile_global_order_offsets_section = 0;

/// "Tile global order" optional section (identifier 0, sparse fragments):
/// offsets of the global order min and max generic tiles of each dimension.
struct TileGlobalOrderOffsets {
  codec::sized<detail::num_dims_len, std::vector<std::uint64_t>> min_offsets;
  codec::sized<detail::num_dims_len, std::vector<std::uint64_t>> max_offsets;
  friend bool operator==(const TileGlobalOrderOffsets&, const TileGlobalOrderOffsets&) = default;
};

namespace detail {
/// Entries of a footer array: none before version `Since`; before v5,
/// A + 1 for arrays that include `__coords`, A for the var ones; from v5,
/// every field (with the timestamp flags read earlier in the footer).
template <std::uint32_t Since, bool IncludesCoordsBeforeV5>
struct footer_fields_len {
  template <class F>
  std::size_t operator()(const F& footer, const FragmentContext& ctx) const {
    if (ctx.version < Since) return 0;
    if (ctx.version < 5) return ctx.num_attributes + (IncludesCoordsBeforeV5 ? 1 : 0);
    return ctx.num_attributes + 1 + ctx.dims.size() + (footer.has_timestamps.value ? 1 : 0) +
           (footer.has_delete_meta.value ? 2 : 0);
  }
};
using all_fields = footer_fields_len<0, true>;
using var_fields = footer_fields_len<0, false>;
using fields_since_7 = footer_fields_len<7, true>;
using fields_since_11 = footer_fields_len<11, true>;
} // namespace detail

/// The fragment's footer, as FragmentMetadata::write_footer writes it
/// (without the trailing footer length: see read_footer / write_footer).
/// Per-field arrays have num_fields() entries, or none before the version
/// that introduced them.
struct Footer {
  /// The fragment's format version. TileDB lays out the rest of the footer
  /// by it and locates the footer by the folder name's version; the two are
  /// equal except in experimental builds. Here FragmentContext::version
  /// decides the layout, so an experimental footer can be read by the
  /// release layout it has.
  std::uint32_t version;
  codec::since<10, codec::counted<std::uint64_t, std::string>> array_schema_name;
  bool dense;
  bool null_non_empty_domain;
  /// When null_non_empty_domain, TileDB writes 2 x dims x coord size zero
  /// bytes here (its writer requires fixed dimensions of one type).
  MBR non_empty_domain;
  std::uint64_t sparse_tile_num;     // 0 for dense fragments
  std::uint64_t last_tile_cell_num;  // a full tile's cell count when the last tile is full
  codec::since<14, bool> has_timestamps;
  codec::since<15, bool> has_delete_meta;
  codec::sized<detail::all_fields, std::vector<std::uint64_t>> file_sizes;  // offsets file for var fields
  codec::sized<detail::var_fields, std::vector<std::uint64_t>> file_var_sizes;
  codec::sized<detail::fields_since_7, std::vector<std::uint64_t>> file_validity_sizes;
  std::uint64_t rtree_offset;  // offsets below: of a generic tile in __fragment_metadata.tdb
  codec::sized<detail::all_fields, std::vector<std::uint64_t>> tile_offsets;
  codec::sized<detail::var_fields, std::vector<std::uint64_t>> tile_var_offsets;
  codec::sized<detail::var_fields, std::vector<std::uint64_t>> tile_var_sizes;
  codec::sized<detail::fields_since_7, std::vector<std::uint64_t>> tile_validity_offsets;
  codec::sized<detail::fields_since_11, std::vector<std::uint64_t>> tile_min_offsets;
  codec::sized<detail::fields_since_11, std::vector<std::uint64_t>> tile_max_offsets;
  codec::sized<detail::fields_since_11, std::vector<std::uint64_t>> tile_sum_offsets;
  codec::sized<detail::fields_since_11, std::vector<std::uint64_t>> tile_null_count_offsets;
  /// From v12: libtiledb 2.7, the one release writing v11, ends the footer
  /// after the tile null count offsets (load_generic_tile_offsets_v11).
  codec::since<12, std::uint64_t> fragment_min_max_sum_null_count_offset;
  codec::since<16, std::uint64_t> processed_conditions_offset;
  codec::since<23, codec::counted<std::uint32_t, std::vector<OptionalSection>>> optional_sections;

  friend bool operator==(const Footer&, const Footer&) = default;
};

/// `ctx` with the timestamp flags of `footer` (needed to size the sections
/// that have one entry per field).
inline FragmentContext with_footer_flags(FragmentContext ctx, const Footer& footer) {
  ctx.has_timestamps = ctx.version >= 14 && footer.has_timestamps.value;
  ctx.has_delete_meta = ctx.version >= 15 && footer.has_delete_meta.value;
  return ctx;
}

/// Whether the footer is followed by its u64 length in the file: from v10,
/// and before that when a dimension is var-size.
inline bool footer_has_length(const FragmentContext& ctx) noexcept {
  return ctx.version >= 10 || !ctx.all_dims_fixed();
}

/// The footer size the reader computes from the schema when the file does
/// not store it (versions 3 to 9 with fixed dimensions: TileDB's
/// footer_size_v3_v4, _v5_v6, _v7_v9); nullopt when the file stores it.
inline std::optional<std::size_t> footer_size(const FragmentContext& ctx) {
  if (footer_has_length(ctx)) return std::nullopt;
  if (ctx.dims.empty()) throw std::invalid_argument("tilefmt::format::footer_size: the context has no dimensions");
  const std::size_t a = ctx.num_attributes;
  std::size_t size = 4 + 1 + 1 + 8 + 8;  // version, dense, null domain, sparse tile num, last tile cell num
  if (ctx.version < 5) {
    // One domain type before v5.
    size += 2 * ctx.dims.size() * ctx.dims[0].coord_size();
    size += (a + 1) * 8 + a * 8;             // file sizes, file var sizes
    size += 8 + (a + 1) * 8 + a * 8 + a * 8;  // R-tree, tile offsets, var offsets, var sizes
    return size;
  }
  const std::size_t num = ctx.num_fields();
  for (const auto& d : ctx.dims) size += 2 * d.coord_size();
  size += 2 * num * 8;      // file sizes, file var sizes
  size += 8 + 3 * num * 8;  // R-tree, tile offsets, var offsets, var sizes
  if (ctx.version >= 7) size += 2 * num * 8;  // file validity sizes, validity offsets
  return size;
}

/// Where the footer is in a `__fragment_metadata.tdb` file.
struct FooterLocation {
  std::size_t offset = 0;   // first byte of the footer
  std::size_t size = 0;     // footer bytes, without the stored length
  bool has_length = false;  // a u64 footer length follows the footer
};

/// Finds the footer as TileDB does: from the trailing u64 length when the
/// file stores it, else from the size the schema implies.
inline FooterLocation locate_footer(std::span<const std::byte> file, const FragmentContext& ctx) {
  FooterLocation loc;
  if (footer_has_length(ctx)) {
    loc.has_length = true;
    if (file.size() < 8)
      throw format_error("footer_length: needs 8 bytes", 0, ", " + std::to_string(file.size()) + " left");
    std::uint64_t n = codec::load_le<std::uint64_t>(file.data() + file.size() - 8);
    if (n > file.size() - 8)
      throw format_error("footer_length: " + std::to_string(n) + " bytes, but only " +
                             std::to_string(file.size() - 8) + " precede it",
                         file.size() - 8);
    loc.size = static_cast<std::size_t>(n);
    loc.offset = file.size() - 8 - loc.size;
  } else {
    loc.size = *footer_size(ctx);
    if (loc.size > file.size())
      throw format_error("the footer needs " + std::to_string(loc.size) + " bytes, the file has " +
                             std::to_string(file.size()),
                         0);
    loc.offset = file.size() - loc.size;
  }
  return loc;
}

/// Decodes the footer of a whole `__fragment_metadata.tdb` file. Errors
/// carry offsets within the file.
inline Footer read_footer(std::span<const std::byte> file, const FragmentContext& ctx) {
  FooterLocation loc = locate_footer(file, ctx);
  try {
    return codec::decode<Footer>(file.subspan(loc.offset, loc.size), ctx);
  } catch (format_error& e) {
    e.add_offset(loc.offset);
    throw;
  }
}

/// The bytes that end a `__fragment_metadata.tdb` file: the footer, then
/// its u64 length when the format stores it.
inline std::vector<std::byte> write_footer(const Footer& footer, const FragmentContext& ctx) {
  std::vector<std::byte> out = codec::encode(footer, ctx);
  if (footer_has_length(ctx)) {
    const std::uint64_t n = out.size();
    out.resize(out.size() + 8);
    codec::store_le<std::uint64_t>(out.data() + out.size() - 8, n);
  }
  return out;
}

/// The tile global order section of a v23 footer, if it has one.
inline std::optional<TileGlobalOrderOffsets> tile_global_order_offsets(const Footer& footer,
                                                                      const FragmentContext& ctx) {
  for (const auto& s : footer.optional_sections.value)
    if (s.identifier == tile_global_order_offsets_section)
      return codec::decode<TileGlobalOrderOffsets>(std::span<const std::byte>(s.data.value), ctx);
  return std::nullopt;
}

inline OptionalSection make_optional_section(const TileGlobalOrderOffsets& offsets, const FragmentContext& ctx) {
  return {tile_global_order_offsets_section, {codec::encode(offsets, ctx)}};
}

// ---------------------------------------------------------------------------
// Consolidated fragment metadata `<t1>_<t2>_<uuid>_<v>.meta` (a generic
// tile; this is its payload)
// ---------------------------------------------------------------------------

struct ConsolidatedFragment {
  /// The fragment folder's name (v9 and later; before, its absolute URI).
  codec::counted<std::uint64_t, std::string> name;
  /// Where its footer starts, from the start of this payload.
  std::uint64_t offset;
  friend bool operator==(const ConsolidatedFragment&, const ConsolidatedFragment&) = default;
};

/// The footers follow the list back to back, each without its length.
struct ConsolidatedFragmentMetadata {
  codec::counted<std::uint32_t, std::vector<ConsolidatedFragment>> fragments;
  codec::rest<std::vector<std::byte>> footers;
  friend bool operator==(const ConsolidatedFragmentMetadata&, const ConsolidatedFragmentMetadata&) = default;
};

/// Bytes of the payload before the first footer.
inline std::size_t consolidated_list_size(const ConsolidatedFragmentMetadata& c) {
  std::size_t n = 4;
  for (const auto& f : c.fragments.value) n += 8 + f.name.value.size() + 8;
  return n;
}

/// Where fragment `i`'s `offset` field lies in the payload: after the count,
/// the earlier entries, and its own name's length and bytes.
inline std::size_t consolidated_offset_field(const ConsolidatedFragmentMetadata& c, std::size_t i) {
  std::size_t at = 4;
  for (std::size_t j = 0; j < i; ++j) at += 8 + c.fragments.value[j].name.value.size() + 8;
  return at + 8 + c.fragments.value[i].name.value.size();
}

/// The footer of fragment `i`: from its offset to the next fragment's (or
/// the end). Decode it with codec::decode<Footer>(bytes, that fragment's
/// context).
inline std::span<const std::byte> consolidated_footer(const ConsolidatedFragmentMetadata& c, std::size_t i) {
  const auto& list = c.fragments.value;
  if (i >= list.size()) throw std::out_of_range("tilefmt::format::consolidated_footer: no fragment " + std::to_string(i));
  const std::size_t base = consolidated_list_size(c);
  const std::uint64_t end_of_payload = base + c.footers.value.size();
  const std::uint64_t begin = list[i].offset;
  const std::uint64_t end = i + 1 < list.size() ? list[i + 1].offset : end_of_payload;
  if (begin < base || begin > end || end > end_of_payload) {
    format_error e("footer [" + std::to_string(begin) + ", " + std::to_string(end) +
                       ") is not inside the footers, which occupy [" + std::to_string(base) + ", " +
                       std::to_string(end_of_payload) + ")",
                   consolidated_offset_field(c, i));
    e.prepend_field("offset");
    e.prepend_index(i);
    e.prepend_field("fragments");
    e.prepend_field("ConsolidatedFragmentMetadata");
    throw e;
  }
  return std::span<const std::byte>(c.footers.value).subspan(static_cast<std::size_t>(begin - base),
                                                             static_cast<std::size_t>(end - begin));
}

/// Builds the payload from fragment names and their encoded footers (without
/// lengths), computing the offsets as TileDB does.
inline ConsolidatedFragmentMetadata make_consolidated_fragment_metadata(
    const std::vector<std::pair<std::string, std::vector<std::byte>>>& footers) {
  ConsolidatedFragmentMetadata c;
  for (const auto& [name, bytes] : footers) c.fragments.value.push_back({{name}, 0});
  std::uint64_t offset = consolidated_list_size(c);
  for (std::size_t i = 0; i < footers.size(); ++i) {
    c.fragments.value[i].offset = offset;
    offset += footers[i].second.size();
    c.footers.value.insert(c.footers.value.end(), footers[i].second.begin(), footers[i].second.end());
  }
  return c;
}

} // namespace tilefmt::format

namespace tilefmt::format {

/// The first fields of a footer from v10, which do not depend on the schema:
/// enough to learn which schema the rest of the footer needs.
struct FooterPrefix {
  std::uint32_t version;
  codec::counted<std::uint64_t, std::string> array_schema_name;
};

/// The schema name a v10+ footer names, read from the end of a
/// `__fragment_metadata.tdb` file without knowing the schema.
inline std::string footer_schema_name(std::span<const std::byte> file) {
  if (file.size() < 8) throw format_error("footer_length: needs 8 bytes", 0, ", " + std::to_string(file.size()) + " left");
  std::uint64_t n = codec::load_le<std::uint64_t>(file.data() + file.size() - 8);
  if (n > file.size() - 8)
    throw format_error("footer_length: " + std::to_string(n) + " bytes, but only " + std::to_string(file.size() - 8) +
                           " precede it",
                       file.size() - 8);
  std::size_t at = file.size() - 8 - static_cast<std::size_t>(n);
  std::string name;
  try {
    name = codec::decode<FooterPrefix>(codec::reader(file.subspan(at, static_cast<std::size_t>(n)))).array_schema_name.value;
  } catch (format_error& e) {
    e.add_offset(at);
    throw;
  }
  // The name becomes a path under __schema/: it must be a schema file name.
  try {
    check_schema_file_name(name);
  } catch (format_error& e) {
    e.add_offset(at + 4 + 8);
    e.prepend_field("FooterPrefix.array_schema_name");
    throw;
  }
  return name;
}

} // namespace tilefmt::format
