// tilefmt — reading an array's metadata files (`__meta`) into a
// metadata_map (array/model/metadata.hpp): generic tiles, so the filter pipeline.
#pragma once

#include <vector>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/model/metadata.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_metadata.hpp"

namespace tilefmt::array {

/// Reads and merges metadata files (oldest first, as list_array orders them).
inline metadata_map read_metadata_files(const storage::backend& st, const std::vector<timestamped_path>& files,
                                        const filter::generic_tile_options& opt = {}) {
  metadata_map m;
  for (const auto& f : files) {
    naming_file(f.path, [&] {
      auto bytes = st.read(f.path, opt.max_tile_size);
      auto g = filter::read_generic_tile(bytes, opt);
      m.apply(codec::decode<format::ArrayMetadata>(g.payload));
      return 0;
    });
  }
  return m;
}

} // namespace tilefmt::array
