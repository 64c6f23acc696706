// tilefmt — reading an array schema file: a generic tile holding
// format::ArraySchema, or TileDB 1.3's `__array_schema.tdb`.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/legacy.hpp"
#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// The schema in `bytes`, the contents of schema file `p`.
format::ArraySchema schema_from_bytes(const fs::path& p, std::span<const std::byte> bytes,
                                      const filter::generic_tile_options& opt);

inline format::ArraySchema read_schema(const storage::backend& st, const fs::path& p,
                                       const filter::generic_tile_options& opt) {
  const auto bytes = naming_file(p, [&] { return st.read(p, opt.max_tile_size); });
  return schema_from_bytes(p, bytes, opt);
}

} // namespace tilefmt::array::detail

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/model/schema_file-inl.hpp"
#endif
