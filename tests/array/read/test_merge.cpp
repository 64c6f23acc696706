// Several fragments of a sparse array without duplicates, read in global
// order or unordered: their cells merged (read/sparse/merge.hpp), the
// newest of equal coordinates kept, then the condition. Random fragments
// (overlapping, disjoint, written out of time order) against a model of
// the array, in both tile and cell orders, and against the row-major
// read, which the general reader answers by sorting.
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include "../../support/rc_cells.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_merge {

using namespace tilefmt;
using L = array::query_layout;

namespace {

using cell = testing::rc_cell;

constexpr std::int32_t side = 40, extent = 8;

std::shared_ptr<storage::memory> make_array(format::Layout tile_order, format::Layout cell_order) {
  auto st = std::make_shared<storage::memory>();
  array::create("/m",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 1, side, extent),
                                                          format::make_dimension<std::int32_t>("c", 1, side, extent)},
                                           .attributes = {format::make_attribute({.name = "v"})},
                                           .tile_order = tile_order,
                                           .cell_order = cell_order,
                                           .capacity = 7}),
                {.storage = st});
  return st;
}

void write(const std::shared_ptr<storage::memory>& st, const std::vector<cell>& cells, std::uint64_t t) {
  testing::write_rc_cells(st, "/m", cells, t);
}

std::vector<cell> cells_of(const array::query_result& res) { return testing::rc_cells_of(res); }

/// The global order's key of a cell: space tiles in the tile order, then
/// coordinates in the cell order.
std::tuple<int, int, int, int> global_key(const cell& x, bool tile_row, bool cell_row) {
  const int tr = (x.r - 1) / extent, tc = (x.c - 1) / extent;
  return {tile_row ? tr : tc, tile_row ? tc : tr, cell_row ? x.r : x.c, cell_row ? x.c : x.r};
}

} // namespace

TEST_CASE("sparse, several fragments: merged in the global order, the newest of equal coordinates kept") {
  std::mt19937 rng(7);
  for (const auto tile_order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR})
    for (const auto cell_order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR})
      for (int round = 0; round < 6; ++round) {
        const bool tile_row = tile_order == format::Layout::ROW_MAJOR, cell_row = cell_order == format::Layout::ROW_MAJOR;
        CAPTURE(tile_row);
        CAPTURE(cell_row);
        CAPTURE(round);
        auto st = make_array(tile_order, cell_order);
        // Fragments written at shuffled times: the newest is the latest
        // time, not the last written.
        const int frags = 2 + round % 4;
        std::vector<std::uint64_t> times;
        for (int k = 0; k < frags; ++k) times.push_back(10 * (k + 1));
        std::shuffle(times.begin(), times.end(), rng);
        std::map<std::pair<int, int>, std::pair<std::uint64_t, int>> model;  // coordinates -> (time, value)
        for (int k = 0; k < frags; ++k) {
          std::map<std::pair<int, int>, int> cells;
          // Odd rounds: each fragment its own band of rows (long runs), with a
          // few cells anywhere; even rounds: cells anywhere (interleaved).
          const int n = 150 + static_cast<int>(rng() % 250);
          for (int i = 0; i < n; ++i) {
            int r = 1 + static_cast<int>(rng() % side), c = 1 + static_cast<int>(rng() % side);
            if (round % 2 == 1 && i % 10 != 0) r = 1 + (k * 10 + static_cast<int>(rng() % 10)) % side;
            cells[{r, c}] = k * 10000 + i;
          }
          std::vector<cell> list;
          for (const auto& [rc, v] : cells) list.push_back({rc.first, rc.second, v});
          std::shuffle(list.begin(), list.end(), rng);
          write(st, list, times[static_cast<std::size_t>(k)]);
          for (const auto& x : list) {
            auto& m = model[{x.r, x.c}];
            if (times[static_cast<std::size_t>(k)] > m.first) m = {times[static_cast<std::size_t>(k)], x.v};
          }
        }
        auto arr = array::open("/m", {.storage = st});
        auto expect = [&](auto in, auto pass) {
          std::vector<cell> out;
          for (const auto& [rc, m] : model)
            if (in(rc.first, rc.second) && pass(m.second)) out.push_back({rc.first, rc.second, m.second});
          std::sort(out.begin(), out.end(), [&](const cell& a, const cell& b) {
            return global_key(a, tile_row, cell_row) < global_key(b, tile_row, cell_row);
          });
          return out;
        };
        auto all = [](int, int) { return true; };
        auto any = [](int) { return true; };
        // The whole array, in both layouts (TileDB answers unordered reads
        // of arrays without duplicates in the global order too).
        CHECK(cells_of(arr.query().layout(L::global_order).read()) == expect(all, any));
        CHECK(cells_of(arr.query().layout(L::unordered).read()) == expect(all, any));
        // A box.
        auto box = [](int r, int c) { return r >= 5 && r <= 27 && c >= 3 && c <= 30; };
        CHECK(cells_of(arr.query().subarray({{5, 27}, {3, 30}}).layout(L::global_order).read()) == expect(box, any));
        // Several ranges, overlapping and adjacent, unordered.
        auto ranges = [](int r, int c) { return ((r >= 2 && r <= 6) || (r >= 5 && r <= 9) || (r >= 10 && r <= 11) || r == 33) &&
                                                ((c >= 1 && c <= 4) || (c >= 20 && c <= 40)); };
        const auto several = arr.query()
                                 .add_range(0, 2, 6).add_range(0, 5, 9).add_range(0, 10, 11).add_range(0, 33, 33)
                                 .add_range(1, 1, 4).add_range(1, 20, 40)
                                 .layout(L::unordered)
                                 .read();
        CHECK(cells_of(several) == expect(ranges, any));
        // A condition applies to the newest cells: an older cell of the same
        // coordinates does not come back when the newest fails it.
        auto some = [](int v) { return v < 10000 || v >= 20000; };  // not fragment 1's
        const auto cond = array::field("v") < std::int32_t{10000} || array::field("v") >= std::int32_t{20000};
        CHECK(cells_of(arr.query().where(cond).layout(L::unordered).read()) == expect(all, some));
        // The row-major read (the general reader's sort) holds the same cells.
        auto by_rows = expect(all, any);
        std::sort(by_rows.begin(), by_rows.end());
        CHECK(cells_of(arr.query().layout(L::row_major).read()) == by_rows);
        // Aggregates over the merged cells.
        std::int64_t sum = 0;
        for (const auto& x : by_rows) sum += x.v;
        const auto agg = arr.query().layout(L::unordered).aggregate({{array::aggregate_op::sum, "v"}});
        CHECK(std::get<std::int64_t>(agg[0]) == sum);
        CHECK(arr.query().layout(L::unordered).count() == by_rows.size());
      }
}

TEST_CASE("sparse, several fragments: the same merge on 1, 2 and 4 threads") {
  auto st = make_array(format::Layout::ROW_MAJOR, format::Layout::ROW_MAJOR);
  write(st, {{1, 1, 1}, {9, 9, 2}, {1, 2, 3}}, 10);
  write(st, {{1, 2, 4}, {40, 40, 5}}, 20);
  for (const unsigned threads : {1u, 2u, 4u}) {
    auto arr = array::open("/m", {.threads = threads, .storage = st});
    CHECK(cells_of(arr.query().layout(L::global_order).read()) == std::vector<cell>{{1, 1, 1}, {1, 2, 4}, {9, 9, 2}, {40, 40, 5}});
  }
}

TEST_CASE("sparse, fragments in bands that share an edge: unordered reads merge them in the global order") {
  // Each fragment a band of columns, sharing its last column with the
  // next band: the tiles inside a band meet no other fragment's domain
  // (taken as stored), the edge tiles do (the newest of equal cells kept).
  // The bands' cells interleave in the global order (space tiles of rows
  // first), which the merge gives.
  for (const auto tile_order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR}) {
    const bool tile_row = tile_order == format::Layout::ROW_MAJOR;
    CAPTURE(tile_row);
    auto st = make_array(tile_order, format::Layout::ROW_MAJOR);
    std::map<std::pair<int, int>, std::pair<std::uint64_t, int>> model;  // coordinates -> (time, value)
    for (int k = 0; k < 4; ++k) {
      std::vector<cell> band;
      const auto time = static_cast<std::uint64_t>(40 - 10 * k);  // newest first: the list is not the time order
      for (int r = 1; r <= side; r += 3)
        for (int c = 1 + 10 * k; c <= std::min(side, 10 * (k + 1) + 1); c += 2) {
          band.push_back({r, c, 1000 * k + 10 * r + c});
          auto& m = model[{r, c}];
          if (time > m.first) m = {time, band.back().v};
        }
      write(st, band, time);
    }
    auto expect = [&](auto in) {
      std::vector<cell> out;
      for (const auto& [rc, m] : model)
        if (in(rc.first, rc.second)) out.push_back({rc.first, rc.second, m.second});
      std::sort(out.begin(), out.end(), [&](const cell& a, const cell& b) {
        return global_key(a, tile_row, true) < global_key(b, tile_row, true);
      });
      return out;
    };
    for (const unsigned threads : {1u, 2u}) {
      auto arr = array::open("/m", {.threads = threads, .storage = st});
      CHECK(cells_of(arr.query().layout(L::unordered).read()) == expect([](int, int) { return true; }));
      CHECK(cells_of(arr.query().subarray({{4, 30}, {7, 33}}).layout(L::unordered).read()) ==
            expect([](int r, int c) { return r >= 4 && r <= 30 && c >= 7 && c <= 33; }));
    }
  }
}

TEST_CASE("sparse, fragments merged cell by cell in large tiles: every field's runs, a bounded number at a time") {
  // Two fragments, one of the even coordinates and one of the odd, in
  // tiles of 30,000 cells: each tile gives the result a run a cell, more
  // than the reader makes at a time (read/sparse/gather.hpp), so that its
  // runs come in several parts, fixed-size, var-size and nullable alike.
  constexpr std::int64_t n = 120'000;
  auto st = std::make_shared<storage::memory>();
  array::create("/big",
                format::make_array_schema(
                    {.type = format::ArrayType::SPARSE,
                     .dimensions = {format::make_dimension<std::int64_t>("x", 0, n - 1, n)},
                     .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::INT64}),
                                    format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                            .cell_val_num = format::var_num}),
                                    format::make_attribute({.name = "m", .nullable = true})},
                     .capacity = 30'000}),
                {.storage = st});
  auto value = [](std::int64_t x) { return 3 * x - 7; };
  auto text = [](std::int64_t x) { return std::string(static_cast<std::size_t>(x % 5), 'a' + static_cast<char>(x % 26)); };
  for (const std::int64_t parity : {0, 1}) {
    std::vector<std::int64_t> xs, vs;
    std::vector<std::int32_t> ms;
    std::vector<std::uint8_t> valid;
    std::vector<std::string> ss;
    for (std::int64_t x = parity; x < n; x += 2) {
      xs.push_back(x), vs.push_back(value(x)), ss.push_back(text(x));
      ms.push_back(static_cast<std::int32_t>(x % 1000));
      valid.push_back(x % 7 != 0);
    }
    array::sparse_writer w("/big", st);
    w.set_coords("x", xs).set("v", vs).set_var("s", ss).set("m", ms, valid);
    w.commit({.timestamp = static_cast<std::uint64_t>(10 + parity)});
  }
  for (const unsigned threads : {1u, 2u}) {
    auto arr = array::open("/big", {.threads = threads, .storage = st});
    for (const L layout : {L::global_order, L::unordered, L::row_major}) {
      for (const bool where : {false, true}) {
        CAPTURE(threads);
        CAPTURE(static_cast<int>(layout));
        CAPTURE(where);
        auto q = arr.query().layout(layout).add_range("x", std::int64_t{5}, std::int64_t{n - 4});
        if (where) q.where(array::field("v") < std::int64_t{3 * 90'000} && array::field("v") > std::int64_t{100});
        const auto res = q.read();
        const auto x = res.get<std::int64_t>("x"), v = res.get<std::int64_t>("v");
        const auto m = res.get<std::int32_t>("m");
        const auto& valid = res.validity("m");
        const auto& bytes = res.bytes("s");
        const auto offsets = res.byte_offsets("s");
        std::int64_t expect = 5;
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < x.size(); ++i, ++expect) {
          if (where)
            while (!(value(expect) < 3 * 90'000 && value(expect) > 100)) ++expect;
          const std::size_t end = i + 1 < x.size() ? offsets[i + 1] : bytes.size();
          const std::string s(reinterpret_cast<const char*>(bytes.data()) + offsets[i], end - offsets[i]);
          wrong += x[i] != expect || v[i] != value(expect) || s != text(expect) || (valid[i] != 0) != (expect % 7 != 0) ||
                   (valid[i] && m[i] != expect % 1000);
        }
        CHECK(wrong == 0);
        CHECK(static_cast<std::int64_t>(x.size()) == (where ? 89'967 : 119'992));  // [36, 90002], [5, n - 4]
      }
    }
  }
}

/// Array "/o" in `st`: x 0..19 holding 10x, in tiles of ten, coordinates
/// stored unfiltered; the path of its d0.tdb.
std::string unfiltered_twenty(const std::shared_ptr<storage::memory>& st) {
  auto schema = format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("x", 0, 99, 100)},
                                           .attributes = {format::make_attribute({.name = "a"})},
                                           .capacity = 10});
  schema.coords_filters = {};
  array::create("/o", schema, {.storage = st});
  std::vector<std::int32_t> xs, as;
  for (std::int32_t x = 0; x < 20; ++x) xs.push_back(x), as.push_back(10 * x);
  array::sparse_writer w("/o", st);
  w.set_coords("x", xs).set("a", as);
  w.commit({.timestamp = 1});
  return "/o/__fragments/" + array::open("/o", {.storage = st}).fragments().at(0).name().str() + "/d0.tdb";
}

TEST_CASE("sparse, one fragment stored out of order: unordered reads take it as stored, global order sorts it") {
  // Coordinates stored unfiltered, then two cells of a tile swapped in
  // the file (tile 0 of d0.tdb: its chunk count, one chunk header, then
  // ten int32): the fragment breaks the global order the format promises.
  auto st = std::make_shared<storage::memory>();
  const std::string file = unfiltered_twenty(st);
  auto bytes = st->read(file);
  REQUIRE(bytes.size() >= 20 + 40);
  std::swap_ranges(bytes.begin() + 20 + 2 * 4, bytes.begin() + 20 + 3 * 4, bytes.begin() + 20 + 3 * 4);
  st->write(file, bytes);
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    auto arr = array::open("/o", {.threads = threads, .storage = st});
    // As stored: x 0 1 3 2 4 ..., each with the value stored beside it.
    const auto u = arr.query().layout(L::unordered).read();
    array::column<std::int32_t> stored_x, stored_a;
    for (std::int32_t i = 0; i < 20; ++i) stored_x.push_back(i == 2 ? 3 : i == 3 ? 2 : i), stored_a.push_back(10 * i);
    CHECK(u.get<std::int32_t>("x") == stored_x);
    CHECK(u.get<std::int32_t>("a") == stored_a);
    // In the global order: the order check fails, the general reader
    // sorts (x 2 holds 30, x 3 holds 20).
    {
      const auto g = arr.query().layout(L::global_order).read();
      array::column<std::int32_t> want_x, want_a;
      for (std::int32_t x = 0; x < 20; ++x) want_x.push_back(x), want_a.push_back(x == 2 ? 30 : x == 3 ? 20 : 10 * x);
      CHECK(g.get<std::int32_t>("x") == want_x);
      CHECK(g.get<std::int32_t>("a") == want_a);
      // By a range: the path for one range of one dimension checks each
      // tile's order, and leaves the read to the sort.
      const auto part = arr.query().layout(L::global_order).add_range("x", 1, 12).read();
      CHECK(part.get<std::int32_t>("x") == array::column<std::int32_t>(want_x.begin() + 1, want_x.begin() + 13));
    }
  }
}

TEST_CASE("sparse, cells outside their tile's bounding rectangle: global order does not trust the rectangles' order") {
  // x 9 (the last cell of tile 0) and x 10 (the first of tile 1) swapped
  // in d0.tdb: each tile is still in order, but holds a cell outside the
  // MBR its fragment metadata records ([0, 9] and [10, 19]).
  auto st = std::make_shared<storage::memory>();
  const std::string file = unfiltered_twenty(st);
  auto bytes = st->read(file);
  REQUIRE(bytes.size() == 2 * (20 + 40));  // per tile: the chunk count, a chunk header, ten int32
  std::swap_ranges(bytes.begin() + 20 + 9 * 4, bytes.begin() + 20 + 10 * 4, bytes.begin() + 60 + 20);
  st->write(file, bytes);
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    auto arr = array::open("/o", {.threads = threads, .storage = st});
    array::column<std::int32_t> want_x, want_a;
    for (std::int32_t x = 0; x < 20; ++x) want_x.push_back(x), want_a.push_back(x == 9 ? 100 : x == 10 ? 90 : 10 * x);
    // (Row-major reads of one fragment take its cells as stored, as
    // TileDB's legacy reader does: not checked here.)
    for (const auto layout : {L::global_order}) {
      CAPTURE(static_cast<int>(layout));
      const auto r = arr.query().layout(layout).read();
      CHECK(r.get<std::int32_t>("x") == want_x);
      CHECK(r.get<std::int32_t>("a") == want_a);
      const auto part = arr.query().layout(layout).add_range("x", 5, 14).read();
      CHECK(part.get<std::int32_t>("x") == array::column<std::int32_t>(want_x.begin() + 5, want_x.begin() + 15));
      CHECK(part.get<std::int32_t>("a") == array::column<std::int32_t>(want_a.begin() + 5, want_a.begin() + 15));
    }
  }
}

} // namespace test_merge
