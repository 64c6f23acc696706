// tilefmt — stored bytes of some tiles of one field, fetched ahead.
//
// On an object store every request is a round trip, and a query's tiles
// often lie next to each other in their files. fragment::fetch_tiles reads
// the tiles a reader is about to decode with one read_range per run of
// adjacent tiles (when the storage backend prefers that), and
// fragment::read_tile takes a tile's bytes from here instead of asking the
// backend again. The bytes are as stored (filtered); nothing is decoded
// until the tile is read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tilefmt/format/data_files.hpp"

namespace tilefmt::array {

namespace detail {
class tile_source;
}

class fetched_tiles {
public:
  /// Whether nothing was fetched (the backend reads tile by tile).
  bool empty() const noexcept { return runs_.empty(); }
  /// Reads it took.
  std::size_t reads() const noexcept { return runs_.size(); }

  /// Tile `i`'s stored bytes in its `which` file, when fetched.
  std::optional<std::span<const std::byte>> find(format::DataFile which, std::size_t i) const {
    // The last run starting at or before (which, i).
    const auto after = std::upper_bound(runs_.begin(), runs_.end(), std::pair{which, i}, [](const auto& key, const run& r) {
      return key < std::pair{r.which, r.first};
    });
    if (after == runs_.begin()) return std::nullopt;
    const run& r = *std::prev(after);
    if (r.which != which || i >= r.first + r.ends.size()) return std::nullopt;
    const std::size_t k = i - r.first;
    const std::uint64_t begin = k == 0 ? 0 : r.ends[k - 1];
    return std::span<const std::byte>(r.bytes).subspan(static_cast<std::size_t>(begin),
                                                       static_cast<std::size_t>(r.ends[k] - begin));
  }

private:
  friend class detail::tile_source;
  /// Tiles first..first+ends.size()-1 of one file, back to back in `bytes`;
  /// ends[k] is where tile first+k ends, from the start of `bytes`. The
  /// runs are kept in order of (which, first), and do not overlap.
  struct run {
    format::DataFile which;
    std::size_t first;
    std::vector<std::uint64_t> ends;
    std::vector<std::byte> bytes;
  };
  std::vector<run> runs_;
};

} // namespace tilefmt::array
