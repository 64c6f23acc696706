// tilefmt — coordinates of fixed-size dimensions as the reader and the
// writer compare them: every type mapped to an unsigned key with the same
// order, and the space tile a coordinate falls in (TileDB's global order is
// the tile order over space tiles, then the cell order inside each).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::array::detail {

/// A coordinate as a key whose unsigned order is the coordinate's order.
/// For integers the difference of two keys is the distance of the values.
template <class T>
std::uint64_t order_key(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    std::uint64_t bits;
    if constexpr (sizeof(T) == 4)
      bits = codec::bit_cast<std::uint32_t>(v);
    else
      bits = codec::bit_cast<std::uint64_t>(v);
    const std::uint64_t sign = std::uint64_t{1} << (8 * sizeof(T) - 1);
    return (bits & sign) ? ~bits & (sign | (sign - 1)) : bits | sign;
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) ^ (std::uint64_t{1} << 63);
  } else {
    return static_cast<std::uint64_t>(v);
  }
}

/// The coordinate whose order_key is `key`.
template <class T>
T from_order_key(std::uint64_t key) {
  if constexpr (std::is_floating_point_v<T>) {
    const std::uint64_t sign = std::uint64_t{1} << (8 * sizeof(T) - 1);
    const std::uint64_t bits = (key & sign) ? key & ~sign : ~key & (sign | (sign - 1));
    if constexpr (sizeof(T) == 4)
      return codec::bit_cast<T>(static_cast<std::uint32_t>(bits));
    else
      return codec::bit_cast<T>(bits);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(static_cast<std::int64_t>(key ^ (std::uint64_t{1} << 63)));
  } else {
    return static_cast<T>(key);
  }
}

/// The space tile of coordinate `v` along a dimension whose domain starts at
/// `lo` with tile extent `ext` (Dimension::tile_idx: unsigned arithmetic for
/// integers, the type's own for floats, truncated).
template <class T>
std::uint64_t tile_index(T v, T lo, T ext) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<std::uint64_t>((v - lo) / ext);
  else
    return (static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) -
            static_cast<std::uint64_t>(static_cast<std::int64_t>(lo))) /
           static_cast<std::uint64_t>(static_cast<std::int64_t>(ext));
}

/// Cells' coordinates as keys, per dimension, and the orders TileDB sorts
/// cells in.
struct cell_keys {
  std::vector<std::vector<std::uint64_t>> tile;  // [dimension][cell]: the space tile (dimensions with a tile extent)
  std::vector<std::vector<std::uint64_t>> cell;  // [dimension][cell]: order_key of the coordinate
  std::vector<bool> tiled;                       // [dimension]: has a tile extent

  explicit cell_keys(std::size_t dims = 0) : tile(dims), cell(dims), tiled(dims) {}

  /// Adds coordinate `v` of dimension `d` (domain from `lo`, tile extent
  /// `ext`, used when the dimension has one) for the next cell.
  template <class T>
  void push(std::size_t d, T v, T lo, T ext) {
    cell[d].push_back(order_key(v));
    if (tiled[d]) tile[d].push_back(tile_index(v, lo, ext));
  }

  /// Row-major (the first dimension slowest) or column-major order of the
  /// coordinates.
  bool layout_less(std::size_t a, std::size_t b, bool row_major) const {
    const std::size_t nd = cell.size();
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = row_major ? k : nd - 1 - k;
      if (cell[d][a] != cell[d][b]) return cell[d][a] < cell[d][b];
    }
    return false;
  }
  /// TileDB's global order: space tiles in the tile order, then the cell
  /// order.
  bool global_less(std::size_t a, std::size_t b, bool tile_row_major, bool cell_row_major) const {
    const std::size_t nd = cell.size();
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = tile_row_major ? k : nd - 1 - k;
      if (!tiled[d] || tile[d][a] == tile[d][b]) continue;
      return tile[d][a] < tile[d][b];
    }
    return layout_less(a, b, cell_row_major);
  }
  bool same_coordinates(std::size_t a, std::size_t b) const {
    for (const auto& c : cell)
      if (c[a] != c[b]) return false;
    return true;
  }
};

} // namespace tilefmt::array::detail
