// Batches of a global-order read of a sparse array whose rows of space
// tiles are each larger than the budget: the rows are cut again, across
// the next slowest dimension, and the parts put together are still the
// whole result in its order (tile orders row- and column-major, several
// ranges in unordered reads, interleaved fragments).
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
// over the whole domain (their cells interleave), capacity 16.
std::shared_ptr<storage::memory> interleaved(format::Layout tile_order) {
  auto st = std::make_shared<storage::memory>();
  array::create("/s",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 0, 59, 10),
                                                          format::make_dimension<std::int32_t>("c", 0, 59, 10)},
                                           .attributes = {format::make_attribute({.name = "a"})},
                                           .tile_order = tile_order,
                                           .capacity = 16}),
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

} // namespace

TEST_CASE("batches: rows of space tiles larger than the budget are cut across, and keep the global order") {
  for (auto tile_order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR}) {
    CAPTURE(static_cast<int>(tile_order));
    const auto st = interleaved(tile_order);
    const auto arr = array::open("/s", {.storage = st});
    using ranges = std::vector<std::pair<std::int32_t, std::int32_t>>;
    for (const auto& [rs, cs] : std::vector<std::pair<ranges, ranges>>{
             {{{0, 59}}, {{0, 59}}}, {{{5, 33}}, {{12, 47}}}, {{{0, 8}, {25, 41}}, {{3, 4}, {18, 55}}}}) {
      for (auto layout : {array::query_layout::global_order, array::query_layout::unordered}) {
        CAPTURE(static_cast<int>(layout));
        if (layout == array::query_layout::global_order && rs.size() > 1) continue;  // TileDB refuses it
        auto q = arr.query().layout(layout);
        for (const auto& [lo, hi] : rs) q.add_range(0, lo, hi);
        for (const auto& [lo, hi] : cs) q.add_range(1, lo, hi);
        cells_read whole;
        whole.add(q.read());
        REQUIRE(!whole.a.empty());
        // About 40 cells a part: a row of space tiles holds several hundred.
        cells_read parts;
        std::size_t n = 0;
        auto b = q.batches(40 * 100);
        while (auto part = b.next()) {
          const auto before = parts.a.size();
          parts.add(*part);
          // Each part within one row (tile order row-major) or column of
          // space tiles once the rows are cut across.
          const auto& slow = tile_order == format::Layout::ROW_MAJOR ? parts.r : parts.c;
          std::set<std::int32_t> rows;
          for (std::size_t i = before; i < parts.a.size(); ++i) rows.insert(slow[i] / 10);
          CHECK(rows.size() == 1);
          ++n;
        }
        CHECK(n > 6);  // more parts than rows of space tiles
        CHECK(parts.r == whole.r);
        CHECK(parts.c == whole.c);
        CHECK(parts.a == whole.a);
      }
    }
  }
}

} // namespace test_batches
