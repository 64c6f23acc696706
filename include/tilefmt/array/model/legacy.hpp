// tilefmt — what TileDB 1.x wrote, in today's terms: the generic tiles of
// TileDB 1.3 and earlier (no format version, one compressor), their schemas,
// and the fragment metadata of formats 1 and 2 (and TileDB 1.3), which held
// in one generic tile what later versions spread over sections and a footer.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/filter/gzip.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/format/legacy.hpp"

namespace tilefmt::array::detail {

/// The payload of a generic tile as TileDB 1.3 and earlier wrote it (no
/// format version; format::LibraryVersionGenericTileHeader), or nullopt when
/// `bytes` does not have that shape. Only zlib-compressed and uncompressed
/// tiles exist in these files (TileDB compressed its own metadata with zlib).
inline std::optional<std::vector<std::byte>> library_version_generic_tile(std::span<const std::byte> bytes,
                                                                         std::uint64_t max_size) {
  constexpr std::size_t header_size = codec::fixed_wire_size<format::LibraryVersionGenericTileHeader>;
  if (bytes.size() < header_size) return std::nullopt;
  auto header = codec::decode<format::LibraryVersionGenericTileHeader>(bytes.first(header_size));
  if (header.persisted_size != bytes.size() - header_size || header.cell_size != 1 ||
      header.datatype != format::Datatype::CHAR || (header.compressor != 0 && header.compressor != 1))
    return std::nullopt;
  auto body = bytes.subspan(header_size);
  if (header.compressor == 0) {
    if (header.tile_size != body.size()) return std::nullopt;
    return std::vector<std::byte>(body.begin(), body.end());
  }
  auto tile = codec::decode<format::LibraryVersionTile>(body);
  // Chunks hold at most 64 KiB each, which bounds what the input can ask
  // for; the chunk lengths must add up to the header's tile size.
  std::uint64_t total = 0;
  for (const auto& c : tile.chunks) {
    if (c.original_length > (std::uint64_t{1} << 16))
      throw format_error("LibraryVersionChunk.original_length: " + std::to_string(c.original_length) +
                             " bytes, more than a 64 KiB chunk",
                         header_size);
    total += c.original_length;
  }
  if (total != header.tile_size)
    throw format_error("LibraryVersionGenericTileHeader.tile_size: " + std::to_string(header.tile_size) +
                           " bytes, the chunks hold " + std::to_string(total),
                       8);
  if (total > max_size)
    throw format_error("LibraryVersionGenericTileHeader.tile_size: " + std::to_string(total) + " bytes, more than the " +
                           std::to_string(max_size) + " a tile may claim",
                       8);
  std::vector<std::byte> out(static_cast<std::size_t>(total));
  std::size_t at = 0;
  for (const auto& c : tile.chunks) {
    filter::detail::gzip_codec::decompress(c.data, std::span<std::byte>(out).subspan(at, static_cast<std::size_t>(c.original_length)));
    at += static_cast<std::size_t>(c.original_length);
  }
  return out;
}

/// A TileDB 1.3 schema in today's terms: format version 1 (the layout that
/// followed it), and a filter pipeline of one compressor where it had one.
inline format::ArraySchema from_library_version(const format::LibraryVersionArraySchema& old) {
  auto pipeline = [](const format::LibraryVersionCompressor& c, const std::string& what) {
    format::FilterPipeline p;
    format::FilterType t{};
    switch (c.compressor) {
    case 0: return p;
    case 1: t = format::FilterType::GZIP; break;
    case 2: t = format::FilterType::ZSTD; break;
    case 3: t = format::FilterType::LZ4; break;
    case 10: t = format::FilterType::RLE; break;
    case 11: t = format::FilterType::BZIP2; break;
    case 12: t = format::FilterType::DOUBLE_DELTA; break;
    default:
      throw format_error(what + ": compressor " + std::to_string(c.compressor) +
                             " (a BLOSC variant of TileDB 1.3) has no filter today",
                         0);
    }
    format::Filter f;
    f.type = t;
    f.options.value.push_back(static_cast<std::byte>(c.compressor == 10 ? 4 : c.compressor == 11 ? 5 : c.compressor == 12 ? 6 : c.compressor));
    std::byte level[4];
    codec::store_le<std::int32_t>(level, c.level);
    f.options.value.insert(f.options.value.end(), level, level + 4);
    p.filters.value.push_back(std::move(f));
    return p;
  };
  format::ArraySchema s;
  s.version.value = 1;
  s.array_type = old.array_type;
  s.tile_order = old.tile_order;
  s.cell_order = old.cell_order;
  s.capacity = old.capacity;
  s.coords_filters = pipeline(old.coords_compressor, "coords_compressor");
  s.offsets_filters = pipeline(old.offsets_compressor, "offsets_compressor");
  s.domain = old.domain;
  for (const auto& a : old.attributes) {
    format::Attribute n;
    n.name = a.name;
    n.type = a.type;
    n.cell_val_num = a.cell_val_num;
    n.filters = pipeline(a.compressor, "attribute " + a.name.value);
    s.attributes.value.push_back(std::move(n));
  }
  return s;
}

/// Fragment metadata before format 3, with its contents where the footer and
/// the sections of later versions put them, so that reads take one path.
struct legacy_fragment_metadata {
  format::Footer footer;
  /// 1 or 2; 0 for TileDB 1.3, whose tiles are stored as they are, unfiltered.
  std::uint32_t version = 0;
  /// Per field (attributes, then `__coords`): tile offsets, var tile offsets, var tile sizes.
  std::vector<std::vector<std::uint64_t>> tile_offsets, var_offsets, var_sizes;
};

/// Reads `__fragment_metadata.tdb` of format 1 or 2 (one generic tile,
/// format::LegacyFragmentMetadata) or TileDB 1.3's library-versioned variant.
inline legacy_fragment_metadata read_legacy_fragment_metadata(std::span<const std::byte> file,
                                                              const format::FragmentContext& ctx,
                                                              const filter::generic_tile_options& opt) {
  legacy_fragment_metadata out;
  auto adopt = [&](const auto& m) {
    using M = std::decay_t<decltype(m)>;
    const std::size_t na = ctx.num_attributes;
    if (m.tile_offsets.value.size() != na + 1 || m.file_sizes.value.size() != na + 1)
      throw format_error("legacy fragment metadata: per-field lists disagree with the schema's " + std::to_string(na) +
                             " attributes",
                         0);
    auto ned = format::legacy_non_empty_domain(m, ctx);
    auto& footer = out.footer;
    footer.dense = m.mbrs.value.empty();
    footer.null_non_empty_domain = !ned.has_value();
    if (ned) footer.non_empty_domain = *ned;
    footer.sparse_tile_num = m.mbrs.value.size();
    footer.last_tile_cell_num = m.last_tile_cell_num;
    footer.file_sizes.value = m.file_sizes.value;
    footer.file_var_sizes.value = m.file_var_sizes.value;
    footer.file_var_sizes.value.push_back(0);  // __coords
    for (std::size_t i = 0; i <= na; ++i) {
      out.tile_offsets.push_back(m.tile_offsets.value[i].offsets.value);
      out.var_offsets.push_back(i < na ? m.tile_var_offsets.value[i].offsets.value : std::vector<std::uint64_t>{});
      out.var_sizes.push_back(i < na ? m.tile_var_sizes.value[i].sizes.value : std::vector<std::uint64_t>{});
    }
    if constexpr (std::is_same_v<M, format::LegacyFragmentMetadata>)
      out.version = m.version;
    else
      out.version = 0;
  };
  std::optional<std::vector<std::byte>> payload;
  std::exception_ptr versioned_error;
  try {
    payload = filter::read_generic_tile(file, opt).payload;
  } catch (const format_error&) {
    versioned_error = std::current_exception();
  }
  if (payload) {
    adopt(codec::decode<format::LegacyFragmentMetadata>(*payload, ctx));
    return out;
  }
  try {
    payload = library_version_generic_tile(file, opt.max_tile_size);
  } catch (const format_error&) {
  }
  if (!payload) std::rethrow_exception(versioned_error);
  adopt(codec::decode<format::LibraryVersionFragmentMetadata>(*payload, ctx));
  return out;
}

} // namespace tilefmt::array::detail
