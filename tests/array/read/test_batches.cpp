// Batches of a global-order read of a sparse array whose rows of space
// tiles are each larger than the budget: the rows are cut again, across
// the next slowest dimension, and space tiles larger than the budget a
// third time, along the slab dimension; the parts put together are still
// the whole result in its order (tile and cell orders row- and
// column-major, several ranges in unordered reads, interleaved fragments).
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "../../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_batches {

using namespace tilefmt;

namespace {

// 60 x 60 cells in space tiles of 10 x 10, 4 fragments of random cells
// over the whole domain (their cells interleave), capacity 16 unless given.
std::shared_ptr<storage::memory> interleaved(format::Layout tile_order,
                                             format::Layout cell_order = format::Layout::ROW_MAJOR,
                                             std::uint64_t capacity = 16) {
  auto st = std::make_shared<storage::memory>();
  array::create("/s",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 0, 59, 10),
                                                          format::make_dimension<std::int32_t>("c", 0, 59, 10)},
                                           .attributes = {format::make_attribute({.name = "a"})},
                                           .tile_order = tile_order,
                                           .cell_order = cell_order,
                                           .capacity = capacity}),
                {.storage = st});
  std::mt19937 rng(7);
  for (std::uint64_t t = 1; t <= 4; ++t) {
    std::set<std::pair<std::int32_t, std::int32_t>> cells;
    while (cells.size() < 700) cells.emplace(static_cast<std::int32_t>(rng() % 60), static_cast<std::int32_t>(rng() % 60));
    std::vector<std::int32_t> r, c, a;
    for (const auto& [x, y] : cells)
      r.push_back(x), c.push_back(y), a.push_back(static_cast<std::int32_t>(x * 1000 + y * 10 + static_cast<int>(t)));
    array::sparse_writer w("/s", st);
    w.set_coords("r", r).set_coords("c", c).set("a", a);
    w.commit({.timestamp = t});
  }
  return st;
}

struct cells_read {
  std::vector<std::int32_t> r, c, a;
  void add(const array::query_result& q) {
    for (const auto& [name, to] : {std::pair{"r", &r}, {"c", &c}, {"a", &a}}) {
      const auto v = q.get<std::int32_t>(name);
      to->insert(to->end(), v.begin(), v.end());
    }
  }
};

/// The space tiles (10 x 10) of the cells [from, end) of `parts`.
std::set<std::pair<std::int32_t, std::int32_t>> space_tiles(const cells_read& parts, std::size_t from) {
  std::set<std::pair<std::int32_t, std::int32_t>> out;
  for (std::size_t i = from; i < parts.a.size(); ++i) out.emplace(parts.r[i] / 10, parts.c[i] / 10);
  return out;
}

/// Calls `check(q, whole, whole_domain)` for each box (the whole domain,
/// one range, several ranges in unordered reads) in global order and
/// unordered: the query and its result read whole.
template <class Array, class Check>
void for_each_box(const Array& arr, Check&& check) {
  using ranges = std::vector<std::pair<std::int32_t, std::int32_t>>;
  for (const auto& box : std::vector<std::pair<ranges, ranges>>{
           {{{0, 59}}, {{0, 59}}}, {{{5, 33}}, {{12, 47}}}, {{{0, 8}, {25, 41}}, {{3, 4}, {18, 55}}}}) {
    for (auto layout : {array::query_layout::global_order, array::query_layout::unordered}) {
      CAPTURE(static_cast<int>(layout));
      if (layout == array::query_layout::global_order && box.first.size() > 1) continue;  // TileDB refuses it
      auto q = arr.query().layout(layout);
      for (const auto& [lo, hi] : box.first) q.add_range(0, lo, hi);
      for (const auto& [lo, hi] : box.second) q.add_range(1, lo, hi);
      cells_read whole;
      whole.add(q.read());
      REQUIRE(!whole.a.empty());
      check(q, whole, box.first.front().second == 59);
    }
  }
}

void check_same(const cells_read& parts, const cells_read& whole) {
  CHECK(parts.r == whole.r);
  CHECK(parts.c == whole.c);
  CHECK(parts.a == whole.a);
}

} // namespace

TEST_CASE("batches: rows of space tiles larger than the budget are cut across, and keep the global order") {
  for (auto tile_order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR}) {
    CAPTURE(static_cast<int>(tile_order));
    const auto st = interleaved(tile_order);
    const auto arr = array::open("/s", {.storage = st});
    for_each_box(arr, [&](auto& q, const cells_read& whole, bool) {
      // About 40 cells a part: a row of space tiles holds several hundred.
      cells_read parts;
      std::size_t n = 0;
      auto b = q.batches(40 * 100);
      while (auto part = b.next()) {
        const auto before = parts.a.size();
        parts.add(*part);
        // Each part within one row (tile order row-major) or column of
        // space tiles once the rows are cut across.
        std::set<std::int32_t> rows;
        for (const auto& [r, c] : space_tiles(parts, before)) rows.insert(tile_order == format::Layout::ROW_MAJOR ? r : c);
        CHECK(rows.size() == 1);
        ++n;
      }
      CHECK(n > 6);  // more parts than rows of space tiles
      check_same(parts, whole);
    });
  }
}

TEST_CASE("batches: space tiles larger than the budget are cut along the cell order's slowest dimension") {
  using format::Layout;
  for (const auto& orders : {std::pair{Layout::ROW_MAJOR, Layout::ROW_MAJOR}, {Layout::COL_MAJOR, Layout::COL_MAJOR},
                             {Layout::ROW_MAJOR, Layout::COL_MAJOR}, {Layout::COL_MAJOR, Layout::ROW_MAJOR}}) {
    const Layout tile_order = orders.first, cell_order = orders.second;
    // Under ThreadSanitizer (testing.hpp): row-major tiles, with and
    // without a cut along the slab dimension.
    if (testing::under_thread_sanitizer && tile_order != Layout::ROW_MAJOR) continue;
    CAPTURE(static_cast<int>(tile_order));
    CAPTURE(static_cast<int>(cell_order));
    // Tiles of one cell: no tile crosses a cut along the slab dimension
    // (the 4 fragments hold about 80 cells a space tile).
    const auto st = interleaved(tile_order, cell_order, 1);
    const auto arr = array::open("/s", {.storage = st});
    // Only where the cells' slowest dimension is the slab dimension is a
    // space tile a run of rows (or columns) that can be cut.
    const bool third = tile_order == cell_order;
    for_each_box(arr, [&](auto& q, const cells_read& whole, bool whole_domain) {
      // About 20 cells a part: a space tile holds about 80.
      cells_read parts;
      std::set<std::pair<std::int32_t, std::int32_t>> tiles_seen;
      std::size_t n = 0;
      auto b = q.batches(20 * 100);
      while (auto part = b.next()) {
        const auto before = parts.a.size();
        parts.add(*part);
        const auto tiles = space_tiles(parts, before);
        tiles_seen.insert(tiles.begin(), tiles.end());
        // Within one space tile (of the whole domain: the boxes' space
        // tiles may hold less than a part, and go together).
        if (third && whole_domain) CHECK(tiles.size() == 1);
        ++n;
      }
      check_same(parts, whole);
      if (third) CHECK(n > tiles_seen.size());  // more parts than space tiles
    });
  }
}

TEST_CASE("batches: a space tile whose tiles span it is not cut along the slab dimension") {
  // Tiles of 200 cells, each over several space tiles: a cut inside a
  // space tile would read them again for every part.
  const auto st = interleaved(format::Layout::ROW_MAJOR, format::Layout::ROW_MAJOR, 200);
  const auto arr = array::open("/s", {.storage = st});
  auto q = arr.query().layout(array::query_layout::global_order);
  cells_read whole, parts;
  whole.add(q.read());
  std::set<std::pair<std::int32_t, std::int32_t>> seen;  // space tiles of the parts before
  auto b = q.batches(10 * 100);
  while (auto part = b.next()) {
    const auto before = parts.a.size();
    parts.add(*part);
    const auto tiles = space_tiles(parts, before);
    for (const auto& t : tiles) CHECK(!seen.contains(t));  // no space tile in two parts
    seen.insert(tiles.begin(), tiles.end());
  }
  check_same(parts, whole);
}

} // namespace test_batches
