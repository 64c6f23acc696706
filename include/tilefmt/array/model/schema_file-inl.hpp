// tilefmt — the definitions of the schema file reader (model/schema_file.hpp), left
// out of programs built with TILEFMT_COMPILED (codec/compiled.hpp).
#pragma once

#include "tilefmt/array/model/schema_file.hpp"

namespace tilefmt::array::detail {

TILEFMT_FUNC format::ArraySchema schema_from_bytes(const fs::path& p, std::span<const std::byte> bytes,
                                                   const filter::generic_tile_options& opt) {
  return naming_file(p, [&] {
    try {
      auto g = filter::read_generic_tile(bytes, opt);
      return codec::decode<format::ArraySchema>(g.payload);
    } catch (const format_error&) {
      // TileDB 1.3 wrote `__array_schema.tdb` before format versions existed.
      if (p.filename() != "__array_schema.tdb") throw;
      std::optional<std::vector<std::byte>> payload;
      try {
        payload = library_version_generic_tile(bytes, opt.max_tile_size);
      } catch (const format_error&) {
      }
      if (!payload) throw;
      return from_library_version(codec::decode<format::LibraryVersionArraySchema>(*payload));
    }
  });
}

} // namespace tilefmt::array::detail
