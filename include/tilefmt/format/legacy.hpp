// tilefmt — fragment metadata before format version 3
// (format_spec/fragment.md, "Legacy Fragment metadata file"; TileDB's
// FragmentMetadata::load_v1_v2 and V1V2PreloadedFragmentMetadata): the whole
// `__fragment_metadata.tdb` is one generic tile with this payload.
//
// Arrays of TileDB 1.3 and earlier predate format versions: their payload
// starts with the library version {major, minor, patch} instead, and their
// generic tiles have a different header (LibraryVersionGenericTileHeader).
// Current TileDB no longer opens those; the layout after the version is the
// same as v1.
//
// Fragments of these versions name no version in their folder name
// (`__<uuid>_<t>`); use version 1 in the FragmentContext. Coordinates are
// stored in one `__coords` file, so only attributes and `__coords` have
// per-field entries.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::format {

namespace detail {
struct legacy_attributes_len {
  template <class P>
  std::size_t operator()(const P&, const FragmentContext& ctx) const {
    return ctx.num_attributes;
  }
};
struct legacy_attributes_and_coords_len {
  template <class P>
  std::size_t operator()(const P&, const FragmentContext& ctx) const {
    return ctx.num_attributes + 1;
  }
};
/// Bytes of the bounding coordinates: two coordinate tuples each (the
/// first and last cell written), of the domain's single type.
struct bounding_coords_len {
  template <class P>
  std::size_t operator()(const P& m, const FragmentContext& ctx) const {
    const std::size_t each = ctx.dims.empty() ? 0 : 2 * ctx.dims.size() * ctx.dims[0].coord_size();
    if (each != 0 && m.bounding_coords_num > std::numeric_limits<std::size_t>::max() / each)
      return std::numeric_limits<std::size_t>::max();  // more than any input holds
    return static_cast<std::size_t>(m.bounding_coords_num) * each;
  }
};
} // namespace detail

/// "Legacy Fragment metadata file". `Version` is std::uint32_t (format
/// versions 1 and 2) or the library version of TileDB 1.3 and earlier.
template <class Version>
struct BasicLegacyFragmentMetadata {
  Version version;
  /// lo, hi of each dimension (empty when the domain is null); see
  /// legacy_non_empty_domain.
  codec::counted<std::uint64_t, std::vector<std::byte>> non_empty_domain;
  codec::counted<std::uint64_t, std::vector<MBR>> mbrs;  // one per tile (sparse)
  std::uint64_t bounding_coords_num;
  codec::sized<detail::bounding_coords_len, std::vector<std::byte>> bounding_coords;
  codec::sized<detail::legacy_attributes_and_coords_len, std::vector<TileOffsets>> tile_offsets;
  codec::sized<detail::legacy_attributes_len, std::vector<TileOffsets>> tile_var_offsets;
  codec::sized<detail::legacy_attributes_len, std::vector<TileSizes>> tile_var_sizes;
  std::uint64_t last_tile_cell_num;
  codec::sized<detail::legacy_attributes_and_coords_len, std::vector<std::uint64_t>> file_sizes;
  codec::sized<detail::legacy_attributes_len, std::vector<std::uint64_t>> file_var_sizes;

  friend bool operator==(const BasicLegacyFragmentMetadata&, const BasicLegacyFragmentMetadata&) = default;
};

/// Format versions 1 and 2 (TileDB 1.4 and 1.5).
using LegacyFragmentMetadata = BasicLegacyFragmentMetadata<std::uint32_t>;
/// TileDB 1.3 and earlier: {major, minor, patch} of the library.
using LibraryVersionFragmentMetadata = BasicLegacyFragmentMetadata<std::array<std::int32_t, 3>>;

/// The non-empty domain as an MBR, or nullopt when it is null.
template <class Version>
std::optional<MBR> legacy_non_empty_domain(const BasicLegacyFragmentMetadata<Version>& m, const FragmentContext& ctx) {
  if (m.non_empty_domain.value.empty()) return std::nullopt;
  return codec::decode<MBR>(std::span<const std::byte>(m.non_empty_domain.value), ctx);
}

// ---- Generic tiles of TileDB 1.3 and earlier (tiledb/sm/tile/tile_io.cc of that release) ----

/// The 30-byte header of a generic tile: no version, and one compressor
/// with its level instead of a filter pipeline.
struct LibraryVersionGenericTileHeader {
  std::uint64_t persisted_size;  // bytes of the LibraryVersionTile that follows
  std::uint64_t tile_size;       // unfiltered bytes
  Datatype datatype;
  std::uint64_t cell_size;
  /// That release's compressor numbering: 0 none, 1 GZIP, 2 ZSTD, 3 LZ4,
  /// 4 to 9 the BLOSC variants, 10 RLE, 11 BZIP2, 12 DOUBLE_DELTA.
  std::uint8_t compressor;
  std::int32_t compression_level;

  friend bool operator==(const LibraryVersionGenericTileHeader&, const LibraryVersionGenericTileHeader&) = default;
};

/// One compressed chunk (at most 64 KiB unfiltered).
struct LibraryVersionChunk {
  std::uint64_t original_length;
  codec::count_of<"data", std::uint64_t> compressed_length;
  std::vector<std::byte> data;
  friend bool operator==(const LibraryVersionChunk&, const LibraryVersionChunk&) = default;
};

/// A compressed tile (with no compressor the tile's bytes are stored as they are).
struct LibraryVersionTile {
  codec::counted<std::uint64_t, std::vector<LibraryVersionChunk>> chunks;
  friend bool operator==(const LibraryVersionTile&, const LibraryVersionTile&) = default;
};

} // namespace tilefmt::format
