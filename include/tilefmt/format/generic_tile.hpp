// tilefmt — the generic tile: a self-describing filtered tile used for every
// file that is not array data (format_spec/generic_tile.md).
#pragma once

#include <cstdint>
#include <string_view>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/format/datatype.hpp"
#include "tilefmt/format/filter_pipeline.hpp"

namespace tilefmt::format {

enum class EncryptionType : std::uint8_t { NO_ENCRYPTION = 0, AES_256_GCM = 1 };
constexpr bool codec_enum_valid(EncryptionType e) { return static_cast<std::uint8_t>(e) <= 1; }
constexpr std::string_view codec_enum_name(EncryptionType e) {
  return e == EncryptionType::NO_ENCRYPTION ? "NO_ENCRYPTION" : e == EncryptionType::AES_256_GCM ? "AES_256_GCM" : "INVALID";
}

/// The header in front of a generic tile's filtered bytes (which follow as a
/// format::Tile of `persisted_size` bytes).
struct GenericTileHeader {
  codec::version_field<std::uint32_t> version;  // the writing library's format version
  std::uint64_t persisted_size;                 // filtered bytes that follow the header
  std::uint64_t tile_size;                      // unfiltered bytes
  Datatype datatype;                            // CHAR for every tile TileDB writes
  std::uint64_t cell_size;                      // 1 for every tile TileDB writes
  EncryptionType encryption_type;
  codec::framed<std::uint32_t, FilterPipeline> filters;

  friend bool operator==(const GenericTileHeader&, const GenericTileHeader&) = default;
};

/// Bytes of the header before the pipeline.
inline constexpr std::size_t generic_tile_fixed_header_size = 34;

} // namespace tilefmt::format
