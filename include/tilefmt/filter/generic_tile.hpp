// tilefmt — reading and writing generic tiles (format_spec/generic_tile.md):
// a GenericTileHeader, then the payload filtered by the header's pipeline.
// Every TileDB file that is not array data is one (schema, fragment
// metadata sections, array metadata, ...).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "tilefmt/filter/gzip.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/generic_tile.hpp"

namespace tilefmt::filter {

struct generic_tile {
  format::GenericTileHeader header;
  std::vector<std::byte> payload; // the unfiltered bytes
  std::size_t stored_size = 0;    // header + filtered bytes as stored
};

struct generic_tile_options {
  bool verify_checksums = true;
  std::span<const std::uint8_t> encryption_key{};
  /// The most unfiltered bytes a tile may declare: a larger tile_size is a
  /// format_error before anything is allocated (a few stored bytes can
  /// declare gigabytes of compressed zeros).
  std::uint64_t max_tile_size = std::uint64_t{4} << 30;
};

/// Reads the generic tile at the front of `bytes`.
inline generic_tile read_generic_tile(bytes_view bytes, const generic_tile_options& opt = {}) {
  generic_tile g;
  codec::reader r(bytes);
  g.header = codec::decode<format::GenericTileHeader>(r);
  const std::size_t header_size = r.offset();
  if (g.header.persisted_size > r.remaining())
    throw format_error("GenericTileHeader.persisted_size: " + std::to_string(g.header.persisted_size) +
                           " filtered bytes, " + std::to_string(r.remaining()) + " left",
                       8);
  if (g.header.cell_size == 0) throw format_error("GenericTileHeader.cell_size: 0", 21);
  bytes_view filtered = bytes.subspan(header_size, static_cast<std::size_t>(g.header.persisted_size));
  format::TileView tile;
  try {
    tile = codec::decode<format::TileView>(filtered);
  } catch (format_error& e) {
    e.add_offset(header_size);
    throw;
  }
  if (g.header.tile_size > opt.max_tile_size)
    throw format_error("GenericTileHeader.tile_size: " + std::to_string(g.header.tile_size) +
                           " bytes, more than the " + std::to_string(opt.max_tile_size) + " a tile may claim",
                       12);
  if (detail::unfiltered_size(tile) != g.header.tile_size)
    throw format_error("chunks hold " + std::to_string(detail::unfiltered_size(tile)) +
                           " bytes, GenericTileHeader.tile_size says " + std::to_string(g.header.tile_size),
                       header_size);
  runtime_pipeline rp(g.header.filters.value, g.header.datatype, g.header.version.value);
  tile_context ctx = rp.context(static_cast<std::size_t>(g.header.cell_size));
  ctx.verify_checksums = opt.verify_checksums;
  ctx.encryption_key = opt.encryption_key;
  ctx.max_part_size = opt.max_tile_size;
  g.payload.resize(static_cast<std::size_t>(g.header.tile_size));
  rp.decode_into(tile, g.payload, ctx);
  g.stored_size = header_size + filtered.size();
  return g;
}

namespace detail {
/// A generic tile of `payload`: the header (datatype CHAR, cell size 1,
/// P's filters, `encryption`), then the payload filtered by P.
template <class P>
std::vector<std::byte> generic_tile_of(bytes_view payload, std::uint32_t version, format::EncryptionType encryption,
                                       std::span<const std::uint8_t> encryption_key = {}) {
  format::GenericTileHeader h;
  h.version.value = version;
  h.tile_size = payload.size();
  h.datatype = format::Datatype::CHAR;
  h.cell_size = 1;
  h.encryption_type = encryption;
  h.filters.value = P::descriptor(version);
  std::vector<std::byte> body = P::template encode<std::byte>(
      payload, {.chunking = true, .version = version, .datatype = format::Datatype::CHAR, .encryption_key = encryption_key});
  h.persisted_size = body.size();
  std::vector<std::byte> out = codec::encode(h);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}
} // namespace detail

/// Writes `payload` as TileDB writes a generic tile: datatype CHAR, cell
/// size 1, filtered by `P`, by default TileDB's one GZIP filter at level 1
/// (`pipeline<>` stores it as it is, which tools that edit fields in place
/// want).
template <class P = pipeline<gzip<1>>>
std::vector<std::byte> write_generic_tile(bytes_view payload, std::uint32_t version = format::written_version) {
  return detail::generic_tile_of<P>(payload, version, format::EncryptionType::NO_ENCRYPTION);
}

/// Writes `payload` as TileDB writes a generic tile of an array opened with
/// `encryption_key` (GenericTileIO::write_generic): with no key, as above;
/// with one (32 bytes), GZIP at level 1 followed by the AES-256-GCM filter,
/// both listed in the header, whose encryption type says AES_256_GCM.
inline std::vector<std::byte> write_generic_tile(bytes_view payload, std::uint32_t version,
                                                 std::span<const std::uint8_t> encryption_key) {
  if (encryption_key.empty()) return write_generic_tile(payload, version);
  return detail::generic_tile_of<pipeline<gzip<1>, encryption_aes256gcm>>(
      payload, version, format::EncryptionType::AES_256_GCM, encryption_key);
}

} // namespace tilefmt::filter
