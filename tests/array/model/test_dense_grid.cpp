// The space tiles of a dense region, checked against a brute-force walk over
// coordinates, in both tile and cell orders, and at the ends of int64 and
// uint64 domains where signed differences overflow.
#include "tilefmt/array/model/dense_grid.hpp"

#include <limits>
#include <random>

#include "../../support/testing.hpp"

namespace test_dense_grid {

using namespace tilefmt;
using array::dense_grid;

namespace {

template <class T>
format::Range1D range_of(T lo, T hi) {
  format::Range1D r{sizeof(T), std::vector<std::byte>(2 * sizeof(T))};
  codec::store_le<T>(r.bytes.data(), lo);
  codec::store_le<T>(r.bytes.data() + sizeof(T), hi);
  return r;
}

template <class T>
format::ArraySchema schema_2d(T lo0, T hi0, T ext0, T lo1, T hi1, T ext1, format::Layout tile, format::Layout cell) {
  auto s = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<T>("x", lo0, hi0, ext0), format::make_dimension<T>("y", lo1, hi1, ext1)},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
  s.tile_order = tile;
  s.cell_order = cell;
  return s;
}

/// Whether cell `c` of tile `t` of the grid over [r0] x [r1] lies in the
/// region, from coordinates: tile and cell positions unravelled by hand.
bool inside_by_coordinates(std::int64_t dlo0, std::int64_t dlo1, std::int64_t e0, std::int64_t e1, std::int64_t lo0,
                           std::int64_t hi0, std::int64_t lo1, std::int64_t hi1, std::uint64_t t, std::uint64_t c,
                           format::Layout tile, format::Layout cell) {
  const std::int64_t first0 = (lo0 - dlo0) / e0, first1 = (lo1 - dlo1) / e1;
  const std::int64_t tiles1 = (hi1 - dlo1) / e1 - first1 + 1, tiles0 = (hi0 - dlo0) / e0 - first0 + 1;
  std::int64_t tp0, tp1, cp0, cp1;
  const auto ti = static_cast<std::int64_t>(t), ci = static_cast<std::int64_t>(c);
  if (tile == format::Layout::COL_MAJOR) {
    tp0 = ti % tiles0;
    tp1 = ti / tiles0;
  } else {
    tp1 = ti % tiles1;
    tp0 = ti / tiles1;
  }
  if (cell == format::Layout::COL_MAJOR) {
    cp0 = ci % e0;
    cp1 = ci / e0;
  } else {
    cp1 = ci % e1;
    cp0 = ci / e1;
  }
  const std::int64_t x = dlo0 + (first0 + tp0) * e0 + cp0, y = dlo1 + (first1 + tp1) * e1 + cp1;
  return x >= lo0 && x <= hi0 && y >= lo1 && y <= hi1;
}

} // namespace

TEST_CASE("dense_grid: covered cells equal a walk over coordinates, every order") {
  std::mt19937 rng(7);
  for (auto tile : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR})
    for (auto cell : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR})
      for (int round = 0; round < 40; ++round) {
        const std::int64_t dlo0 = -7, dhi0 = 30, dlo1 = 3, dhi1 = 25;
        const std::int64_t e0 = 1 + static_cast<std::int64_t>(rng() % 6), e1 = 1 + static_cast<std::int64_t>(rng() % 5);
        std::int64_t lo0 = dlo0 + static_cast<std::int64_t>(rng() % 38),
                     hi0 = dlo0 + static_cast<std::int64_t>(rng() % 38);
        std::int64_t lo1 = dlo1 + static_cast<std::int64_t>(rng() % 23),
                     hi1 = dlo1 + static_cast<std::int64_t>(rng() % 23);
        if (lo0 > hi0) std::swap(lo0, hi0);
        if (lo1 > hi1) std::swap(lo1, hi1);
        auto s = schema_2d<std::int64_t>(dlo0, dhi0, e0, dlo1, dhi1, e1, tile, cell);
        format::MBR region;
        region.ranges = {range_of<std::int64_t>(lo0, hi0), range_of<std::int64_t>(lo1, hi1)};
        auto g = dense_grid::of_region(s, region);
        CHECK(g.cells_per_tile() == static_cast<std::uint64_t>(e0 * e1));
        CHECK(g.cell_num() == static_cast<std::uint64_t>((hi0 - lo0 + 1) * (hi1 - lo1 + 1)));
        std::uint64_t covered = 0;
        for (std::uint64_t t = 0; t < g.tile_num(); ++t) {
          auto cells = g.covered_cells(t);
          bool all = true;
          for (std::uint64_t c = 0; c < cells.size(); ++c) {
            const bool want = inside_by_coordinates(dlo0, dlo1, e0, e1, lo0, hi0, lo1, hi1, t, c, tile, cell);
            if (cells[c] != want) FAIL("tile " << t << " cell " << c);
            covered += cells[c];
            all = all && want;
          }
          CHECK(g.full(t) == all);
        }
        CHECK(covered == g.cell_num());
        CHECK_THROWS_AS(g.covered(g.tile_num()), format_error);
      }
}

TEST_CASE("dense_grid: the ends of an int64 domain") {
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  // Domain [min, max - 1], tiles of 4: the region's tiles lie at both ends,
  // 2^64 / 4 - 1 tiles apart; signed differences would overflow.
  auto s = schema_2d<std::int64_t>(min, max - 1, 4, 0, 3, 4, format::Layout::ROW_MAJOR, format::Layout::ROW_MAJOR);
  format::MBR top;
  top.ranges = {range_of<std::int64_t>(max - 5, max - 1), range_of<std::int64_t>(0, 3)};
  auto g = dense_grid::of_region(s, top);
  // max - 5 lies 2^64 - 6 cells from min: tile (2^64 - 6) / 4, cell 2 of it.
  CHECK(g.first_tile()[0] == (std::numeric_limits<std::uint64_t>::max() - 5) / 4);
  CHECK(g.tile_num() == 2);
  auto w0 = g.covered(0);
  CHECK(w0.start[0] == 2);
  CHECK(w0.width[0] == 2);
  auto w1 = g.covered(1);
  CHECK(w1.start[0] == 0);
  CHECK(w1.width[0] == 3); // max - 1 is the last cell of the domain: [max - 3, max - 1]
  CHECK(g.cell_num() == 5 * 4);

  format::MBR bottom;
  bottom.ranges = {range_of<std::int64_t>(min, min + 2), range_of<std::int64_t>(1, 1)};
  auto b = dense_grid::of_region(s, bottom);
  CHECK(b.first_tile()[0] == 0);
  CHECK(b.tile_num() == 1);
  auto cells = b.covered_cells(0);
  CHECK(std::count(cells.begin(), cells.end(), true) == 3);
  CHECK(cells[0 * 4 + 1]);
  CHECK(cells[2 * 4 + 1]);
  CHECK_FALSE(cells[3 * 4 + 1]);
}

TEST_CASE("dense_grid: a uint64 domain past INT64_MAX") {
  constexpr auto max = std::numeric_limits<std::uint64_t>::max();
  auto s = schema_2d<std::uint64_t>(0, max - 1, 10, 0, 9, 10, format::Layout::COL_MAJOR, format::Layout::COL_MAJOR);
  format::MBR region;
  region.ranges = {range_of<std::uint64_t>(max - 15, max - 1), range_of<std::uint64_t>(0, 9)};
  auto g = dense_grid::of_region(s, region);
  CHECK(g.ranges()[0].from == max - 15);
  CHECK(g.ranges()[0].width == 15);
  CHECK(g.tile_num() == 2);
  CHECK(g.first_tile()[0] == (max - 15) / 10);
  // The last tile is the domain's last, shorter than its extent.
  auto last = g.covered(1);
  CHECK(last.start[0] == 0);
  CHECK(last.width[0] == (max - 1) - ((max - 15) / 10 + 1) * 10 + 1);
}

TEST_CASE("dense_grid: regions a damaged fragment could name are format errors") {
  auto s = schema_2d<std::int32_t>(1, 100, 10, 1, 100, 10, format::Layout::ROW_MAJOR, format::Layout::ROW_MAJOR);
  auto with = [&](format::Range1D a, format::Range1D b) {
    format::MBR m;
    m.ranges = {std::move(a), std::move(b)};
    return m;
  };
  CHECK_THROWS_AS(dense_grid::of_region(s, with(range_of<std::int32_t>(0, 5), range_of<std::int32_t>(1, 5))),
                  format_error);
  CHECK_THROWS_AS(dense_grid::of_region(s, with(range_of<std::int32_t>(5, 101), range_of<std::int32_t>(1, 5))),
                  format_error);
  CHECK_THROWS_AS(dense_grid::of_region(s, with(range_of<std::int32_t>(6, 5), range_of<std::int32_t>(1, 5))),
                  format_error);
  CHECK_THROWS_AS(dense_grid::of_region(s, with(range_of<std::int64_t>(1, 5), range_of<std::int32_t>(1, 5))),
                  format_error);
  format::MBR one;
  one.ranges = {range_of<std::int32_t>(1, 5)};
  CHECK_THROWS_AS(dense_grid::of_region(s, one), format_error);
  // Counts that overflow 64 bits.
  CHECK_THROWS_AS(dense_grid({{0, 1, std::uint64_t{1} << 40}, {0, 1, std::uint64_t{1} << 40}},
                             format::Layout::ROW_MAJOR, format::Layout::ROW_MAJOR),
                  format_error);
}

} // namespace test_dense_grid
