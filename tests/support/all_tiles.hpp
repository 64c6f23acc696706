// Every tile of an opened array, read tile by tile: arrays read two ways
// (from disk and from memory, whole or a piece at a time) compared as a whole.
#pragma once

#include <cstddef>
#include <vector>

#include "tilefmt/array/read/array.hpp"

namespace tilefmt::testing {

/// Each tile of each field of each fragment: its values, then its offsets
/// and validity, one byte each.
inline std::vector<std::vector<std::byte>> all_tiles(const array::array_reader& arr) {
  std::vector<std::vector<std::byte>> out;
  for (const auto& frag : arr.fragments())
    for (const auto& f : frag.fields())
      for (std::size_t t = 0; t < frag.tile_num(); ++t) {
        auto tile = frag.read_tile(f, t);
        out.emplace_back(tile.values.begin(), tile.values.end());
        for (const auto o : tile.offsets) out.back().push_back(static_cast<std::byte>(o));
        for (const auto v : tile.validity) out.back().push_back(static_cast<std::byte>(v));
      }
  return out;
}

} // namespace tilefmt::testing
