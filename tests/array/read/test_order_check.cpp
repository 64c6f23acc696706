// order_check::in_global_order (read/sparse/order_check.hpp) against a
// reference written from the definition: each pair of neighbours compared
// by space tile in the tile order, then coordinate in the cell order.
// Schemas of two integral dimensions of one type take the one-pass check
// wherever a chunk's cells lie in one space tile; the others, and chunks
// that cross tiles, the general one: both are checked here on cells in
// the global order and on cells put out of it in each way a damaged
// fragment can (a swapped pair, a repeated cell, a cell from elsewhere).
#include "tilefmt/array/read/sparse/order_check.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../support/testing.hpp"

namespace test_order_check {

namespace format = tilefmt::format;
using tilefmt::array::detail::coord_column;
using tilefmt::array::detail::order_check;
using L = format::Layout;
__extension__ typedef __int128 i128;  // every coordinate, difference and tile of a 64-bit type
__extension__ typedef unsigned __int128 u128;

/// A 2-D schema: dimension 0 of type A, dimension 1 of type B.
template <class A, class B>
format::ArraySchema schema_of(std::array<A, 3> d0, std::array<B, 3> d1, L tile_order, L cell_order) {
  return format::make_array_schema({.type = format::ArrayType::SPARSE,
                                    .dimensions = {format::make_dimension<A>("r", d0[0], d0[1], d0[2]),
                                                   format::make_dimension<B>("c", d1[0], d1[1], d1[2])},
                                    .attributes = {format::make_attribute({.name = "a"})},
                                    .tile_order = tile_order,
                                    .cell_order = cell_order});
}

/// Cells as coordinates, with the reference order and the columns
/// in_global_order reads.
template <class A, class B>
struct cells {
  std::array<A, 3> d0;
  std::array<B, 3> d1;
  bool tile_row, cell_row;
  std::vector<std::pair<A, B>> xy;

  /// The reference: (space tiles in the tile order, coordinates in the
  /// cell order), compared as tuples.
  std::array<i128, 4> key(std::pair<A, B> c) const {
    const auto tile = [](auto v, auto lo, auto ext) { return (static_cast<i128>(v) - lo) / static_cast<i128>(ext); };
    const i128 t0 = tile(c.first, d0[0], d0[2]), t1 = tile(c.second, d1[0], d1[2]);
    const i128 c0 = c.first, c1 = c.second;
    return {tile_row ? t0 : t1, tile_row ? t1 : t0, cell_row ? c0 : c1, cell_row ? c1 : c0};
  }
  bool reference(bool strict) const {
    for (std::size_t i = 1; i < xy.size(); ++i) {
      const auto a = key(xy[i - 1]), b = key(xy[i]);
      if (strict ? !(a < b) : b < a) return false;
    }
    return true;
  }
  void sort() {
    std::sort(xy.begin(), xy.end(), [&](auto a, auto b) { return key(a) < key(b); });
  }
  bool checked(const order_check& check, bool strict) const {
    std::vector<std::byte> b0(xy.size() * sizeof(A)), b1(xy.size() * sizeof(B));
    for (std::size_t i = 0; i < xy.size(); ++i) {
      tilefmt::codec::store_le(b0.data() + i * sizeof(A), xy[i].first);
      tilefmt::codec::store_le(b1.data() + i * sizeof(B), xy[i].second);
    }
    std::vector<coord_column> cols(2);
    cols[0].values = b0.data();
    cols[1].values = b1.data();
    return check.in_global_order(cols, xy.size(), strict);
  }
};

/// `n` cells drawn from the domains (near their ends, too), sorted, then
/// put out of order by `damage` (0: left in order).
template <class A, class B>
void check_all(std::array<A, 3> d0, std::array<B, 3> d1, std::size_t n, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  for (const L tile_order : {L::ROW_MAJOR, L::COL_MAJOR})
    for (const L cell_order : {L::ROW_MAJOR, L::COL_MAJOR}) {
      const auto schema = schema_of(d0, d1, tile_order, cell_order);
      const order_check check(schema);
      for (int damage = 0; damage < 5; ++damage) {
        CAPTURE(static_cast<int>(tile_order));
        CAPTURE(static_cast<int>(cell_order));
        CAPTURE(damage);
        cells<A, B> c{d0, d1, tile_order != L::COL_MAJOR, cell_order != L::COL_MAJOR, {}};
        // Mostly one tile of each dimension, some cells anywhere: chunks
        // (4096 pairs) within a tile and across tiles.
        auto draw = [&](auto lo, auto hi, auto ext, bool anywhere) {
          using T = decltype(lo);
          const auto span = static_cast<u128>(static_cast<i128>(hi) - lo);
          const auto width = anywhere ? span : std::min<u128>(span, static_cast<i128>(ext) - 1);
          const u128 off = width == 0 ? 0 : static_cast<u128>(rng()) % (width + 1);
          return static_cast<T>(static_cast<i128>(lo) + static_cast<i128>(off));
        };
        for (std::size_t i = 0; i < n; ++i) {
          const bool anywhere = i % 97 == 0;
          c.xy.emplace_back(draw(d0[0], d0[1], d0[2], anywhere), draw(d1[0], d1[1], d1[2], anywhere));
        }
        c.sort();
        c.xy.erase(std::unique(c.xy.begin(), c.xy.end()), c.xy.end());
        const std::size_t m = c.xy.size();
        REQUIRE(m > 2);
        const std::size_t at = 1 + rng() % (m - 1);
        switch (damage) {
          case 1: std::swap(c.xy[at - 1], c.xy[at]); break;                   // a swapped pair
          case 2: c.xy[at] = c.xy[at - 1]; break;                             // a repeated cell
          case 3: c.xy[at].second = c.xy[rng() % m].second; break;           // a coordinate from elsewhere
          case 4: std::swap(c.xy[at], c.xy[rng() % m]); break;               // a cell from elsewhere
          default: break;
        }
        for (const bool strict : {true, false}) {
          CAPTURE(strict);
          CHECK(c.checked(check, strict) == c.reference(strict));
        }
        if (damage == 0) CHECK(c.checked(check, true));
        if (damage == 2) CHECK_FALSE(c.checked(check, true));
      }
    }
}

TEST_CASE("order_check: two dimensions of one integral type, the one-pass check within a tile") {
  // An X layer's dimensions (int64 over [0, 2^63 - 2050], extent 2048).
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max() - 2049;
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    check_all<std::int64_t, std::int64_t>({0, top, 2048}, {0, top, 2048}, 10000, seed);
    check_all<std::int64_t, std::int64_t>({-50, 49, 10}, {-5, 94, 25}, 9000, seed);
    check_all<std::int32_t, std::int32_t>({-1000, 999, 100}, {0, 9, 10}, 9000, seed);
    check_all<std::int32_t, std::int32_t>({0, 999, 100}, {0, 999, 100}, 12000, seed);  // chunks inside a tile
    check_all<std::uint8_t, std::uint8_t>({0, 255, 16}, {0, 255, 64}, 5000, seed);
    check_all<std::uint64_t, std::uint64_t>({0, 1u << 20, 1000}, {5, 8, 2}, 9000, seed);
  }
}

TEST_CASE("order_check: a tile that reaches past 2^64 and mixed types take the general check") {
  // The whole int64 range in tiles of 3 * 2^61: the last tile's end lies
  // past 2^64 in tile_index's arithmetic.
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t ext = std::int64_t{3} << 61;
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    check_all<std::int64_t, std::int64_t>({lo, hi, ext}, {lo, hi, ext}, 9000, seed);
    check_all<std::int64_t, std::int32_t>({0, 999, 100}, {0, 99, 10}, 9000, seed);
  }
  // Rows in one tile, columns from the last tile (past 2^64 at its end)
  // to the first: in the cell order, not in the tile order. Taken for one
  // tile, the last's interval would wrap round onto the first's cells.
  const auto schema = schema_of<std::int64_t, std::int64_t>({lo, hi, ext}, {lo, hi, ext}, L::ROW_MAJOR, L::ROW_MAJOR);
  const order_check check(schema);
  cells<std::int64_t, std::int64_t> c{{lo, hi, ext}, {lo, hi, ext}, true, true, {{0, (std::int64_t{1} << 62) + 5}, {1, lo + 3}}};
  CHECK_FALSE(c.reference(true));
  CHECK_FALSE(c.checked(check, true));
}

TEST_CASE("order_check: cells in cell order that cross a tile are out of the global order") {
  // Row-major cells and tiles, columns in tiles of ten: (0, 5) (0, 15)
  // (1, 3) are in the cell order, but (1, 3) lies in the first column
  // tile, whose cells come before the second's.
  const auto schema = schema_of<std::int64_t, std::int64_t>({0, 99, 100}, {0, 99, 10}, L::ROW_MAJOR, L::ROW_MAJOR);
  const order_check check(schema);
  cells<std::int64_t, std::int64_t> c{{0, 99, 100}, {0, 99, 10}, true, true, {{0, 5}, {0, 15}, {1, 3}}};
  CHECK_FALSE(c.reference(true));
  CHECK_FALSE(c.checked(check, true));
  // The same at the column tile's edge: (0, 10) starts the second.
  c.xy = {{0, 0}, {0, 10}, {1, 5}};
  CHECK_FALSE(c.checked(check, true));
  c.xy = {{0, 5}, {1, 3}, {0, 15}};
  CHECK(c.checked(check, true));
  c.xy = {{0, 5}, {1, 3}, {1, 3}};
  CHECK(c.checked(check, false));
  CHECK_FALSE(c.checked(check, true));
}

} // namespace test_order_check
