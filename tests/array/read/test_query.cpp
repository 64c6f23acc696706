// Queries: the cells TileDB-Py returns for the same queries
// (tests/data/queries/{dense,sparse}.txt, recorded by
// tests/interop/record_queries.py from the committed TileDB arrays), and
// hand-made arrays for each rule: the newest fragment wins, unwritten cells
// hold the fill value, time travel leaves later fragments out, layouts,
// several ranges, bad subarrays.
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <variant>
#include <sstream>
#include <thread>

#include "../../support/rc_cells.hpp"
#include "../../support/recorded_queries.hpp"
#include "../../support/result_rows.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_query {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

namespace recorded = testing::recorded;
using recorded::bound_text;
using recorded::query_of;
using recorded::recorded_query;

/// tests/data/queries/<file>, as tests/interop/record_queries.py describes it.
std::vector<recorded_query> recorded_file(const std::string& file) {
  std::ifstream in(data / "queries" / file);
  REQUIRE(in);
  return recorded::parse(in);
}

/// Runs every recorded query of `file`, reading tiles on `threads`
/// threads; returns how many were compared with an answer (the rest
/// TileDB refused, and tilefmt must too).
std::size_t run_recorded(const std::string& file, unsigned threads) {
  std::map<std::string, array::array_reader> opened;
  std::size_t compared = 0;
  for (const auto& q : recorded_file(file)) {
    CAPTURE(q.describe());
    auto it = opened.find(q.array);
    if (it == opened.end())
      it = opened
               .emplace(q.array, array::open(data / q.array, {.encryption_key = testing::test_array_key(q.array),
                                                              .threads = threads}))
               .first;
    CHECK(recorded::check(it->second, q) == "");
    compared += !q.error;
  }
  return compared;
}

using testing::rows;

/// Reads every `every`th recorded query of `file` in batches of `bytes`: the
/// batches put together must be the whole result (unordered: the same
/// cells). Returns how many batches were read in all.
std::size_t run_batched(const std::string& file, std::uint64_t bytes, std::size_t every = 1) {
  std::map<std::string, array::array_reader> opened;
  std::size_t batches = 0, k = 0;
  for (const auto& q : recorded_file(file)) {
    if (q.error || q.order == 'A' || k++ % every != 0) continue;
    CAPTURE(q.array);
    CAPTURE(q.order);
    CAPTURE(bytes);
    auto it = opened.find(q.array);
    if (it == opened.end())
      it = opened.emplace(q.array, array::open(data / q.array, {.encryption_key = testing::test_array_key(q.array)})).first;
    const auto query = query_of(it->second, q);
    const auto whole = rows(query.read());
    std::vector<std::string> parts;
    auto b = query.batches(bytes);
    while (auto part = b.next()) {
      const auto r = rows(*part);
      CHECK_FALSE(r.empty());
      parts.insert(parts.end(), r.begin(), r.end());
      ++batches;
    }
    if (q.order == 'U') {
      auto w = whole;
      std::sort(w.begin(), w.end());
      std::sort(parts.begin(), parts.end());
      CHECK(parts == w);
    } else {
      CHECK(parts == whole);
    }
  }
  return batches;
}
} // namespace

// On one thread, and on four (tiles decoded and copied in parallel).
TEST_CASE("dense queries return what TileDB-Py returns") {
  for (unsigned threads : {1u, 4u}) {
    CAPTURE(threads);
    CHECK(run_recorded("dense.txt", threads) >= 380);
  }
}

TEST_CASE("sparse queries return what TileDB-Py returns") {
  for (unsigned threads : {1u, 4u}) {
    CAPTURE(threads);
    CHECK(run_recorded("sparse.txt", threads) >= 330);
  }
}

// Budgets: a row or a row of tiles per batch (1 byte), a few, all. A
// budget of one byte reads each tile again for each of its rows, so it
// takes every fourth query only (most of the test's time under the
// sanitizers before); the others take every query. Under ThreadSanitizer
// (testing.hpp) each takes a fourth of those.
TEST_CASE("batches: the recorded queries read in parts, put together, are the whole result") {
  const std::size_t s = testing::under_thread_sanitizer ? 4 : 1;
  for (const char* file : {"dense.txt", "sparse.txt"}) {
    CAPTURE(file);
    const std::size_t one = run_batched(file, 1, 4 * s), few = run_batched(file, 4096, s),
                      many = run_batched(file, 1 << 20, s);
    CHECK(one > run_batched(file, 4096, 4 * s));
    CHECK(few > many);
  }
}

namespace {
/// A 6 x 6 dense array in memory (tiles of 3 x 2 cells, in `order`), one
/// int32 attribute with fill -7 and a var-size string one.
std::shared_ptr<storage::memory> grid_array(format::Layout order) {
  auto st = std::make_shared<storage::memory>();
  std::vector<std::byte> fill(4);
  codec::store_le<std::int32_t>(fill.data(), -7);
  array::create("/a",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int32_t>("r", 1, 6, 3),
                                    format::make_dimension<std::int32_t>("c", 1, 6, 2)},
                     .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::INT32,
                                                            .fill_value = fill}),
                                    format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                            .cell_val_num = format::var_num})},
                     .tile_order = order,
                     .cell_order = order}),
                {.storage = st});
  return st;
}

struct box {
  int r0, r1, c0, c1;
  bool has(int r, int c) const { return r >= r0 && r <= r1 && c >= c0 && c <= c1; }
};

/// Writes `b` (row-major cells) with values base + 10 r + c and strings "<base>:<r><c>".
void write(const std::shared_ptr<storage::memory>& st, box b, int base, std::uint64_t t) {
  array::dense_writer f("/a", {{b.r0, b.r1}, {b.c0, b.c1}}, array::cell_layout::row_major, st);
  std::vector<std::int32_t> v;
  std::vector<std::string> s;
  for (int r = b.r0; r <= b.r1; ++r)
    for (int c = b.c0; c <= b.c1; ++c) {
      v.push_back(base + 10 * r + c);
      s.push_back(std::to_string(base) + ":" + std::to_string(r) + std::to_string(c));
    }
  f.set("v", v).set_var("s", s);
  f.commit({.timestamp = t});
}
} // namespace

TEST_CASE("dense: the newest fragment wins, unwritten cells hold the fill value, in every layout and tile order") {
  for (auto order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR}) {
    CAPTURE(static_cast<int>(order));
    auto st = grid_array(order);
    const std::vector<std::pair<box, int>> writes{{{1, 4, 1, 6}, 1000}, {{2, 5, 3, 4}, 2000}, {{3, 3, 2, 6}, 3000}};
    for (std::size_t i = 0; i < writes.size(); ++i) write(st, writes[i].first, writes[i].second, 10 * (i + 1));
    const box q{2, 6, 2, 5};
    // The reference: for each cell of the subarray, row-major, the last write covering it.
    auto expect = [&](std::uint64_t until, int r, int c) -> std::pair<std::int32_t, std::string> {
      std::pair<std::int32_t, std::string> out{-7, std::string(1, '\0')};  // TileDB's default STRING_ASCII fill
      for (std::size_t i = 0; i < writes.size(); ++i)
        if (10 * (i + 1) <= until && writes[i].first.has(r, c))
          out = {writes[i].second + 10 * r + c, std::to_string(writes[i].second) + ":" + std::to_string(r) +
                                                    std::to_string(c)};
      return out;
    };
    for (std::uint64_t until : {std::uint64_t{10}, std::uint64_t{20}, std::uint64_t{30}}) {
      CAPTURE(until);
      auto arr = array::open("/a", {.timestamp_end = until, .storage = st});
      // Row-major and column-major: the cells in the order of their (r, c).
      for (auto layout : {array::query_layout::row_major, array::query_layout::col_major}) {
        const auto res = arr.query().subarray({{q.r0, q.r1}, {q.c0, q.c1}}).layout(layout).read();
        const auto v = res.get<std::int32_t>("v");
        const auto s = res.get_var<char>("s");
        REQUIRE(v.size() == 20);
        std::size_t i = 0;
        auto check_cell = [&](int r, int c) {
          const auto [ev, es] = expect(until, r, c);
          CHECK(v[i] == ev);
          const std::size_t end = i + 1 < s.offsets.size() ? s.offsets[i + 1] : s.values.size();
          CHECK(std::string(s.values.begin() + static_cast<std::ptrdiff_t>(s.offsets[i]),
                            s.values.begin() + static_cast<std::ptrdiff_t>(end)) == es);
          ++i;
        };
        if (layout == array::query_layout::row_major) {
          for (int r = q.r0; r <= q.r1; ++r)
            for (int c = q.c0; c <= q.c1; ++c) check_cell(r, c);
        } else {
          for (int c = q.c0; c <= q.c1; ++c)
            for (int r = q.r0; r <= q.r1; ++r) check_cell(r, c);
        }
      }
      // Global order: space tiles in tile order, cells of each in cell order.
      const auto g = arr.query().subarray({{q.r0, q.r1}, {q.c0, q.c1}}).layout(array::query_layout::global_order).read();
      const auto gv = g.get<std::int32_t>("v");
      std::vector<std::int32_t> want;
      const bool row = order == format::Layout::ROW_MAJOR;
      auto cells_of_tile = [&](int tr, int tc) {
        std::vector<std::pair<int, int>> cells;
        for (int a = 0; a < (row ? 3 : 2); ++a)
          for (int b = 0; b < (row ? 2 : 3); ++b) {
            const int r = 1 + 3 * tr + (row ? a : b), c = 1 + 2 * tc + (row ? b : a);
            if (q.has(r, c)) cells.emplace_back(r, c);
          }
        return cells;
      };
      for (int x = 0; x < (row ? 2 : 3); ++x)
        for (int y = 0; y < (row ? 3 : 2); ++y)
          for (auto [r, c] : cells_of_tile(row ? x : y, row ? y : x)) want.push_back(expect(until, r, c).first);
      CHECK(std::vector<std::int32_t>(gv.begin(), gv.end()) == want);
    }
  }
}

// A query whose box is one space tile, in the tile's own cell order, has its
// fixed-size values decoded straight into the result; the same tile with a
// newer fragment over part of it, in the other order, or half written, goes
// the general way. Both must give every cell its winner.
TEST_CASE("dense: one space tile per query, whole or partly overwritten, in every order") {
  for (auto order : {format::Layout::ROW_MAJOR, format::Layout::COL_MAJOR}) {
    CAPTURE(static_cast<int>(order));
    auto st = grid_array(order);
    const std::vector<std::pair<box, int>> writes{{{1, 6, 1, 6}, 1000}, {{2, 2, 3, 3}, 2000}, {{5, 6, 5, 5}, 3000}};
    for (std::size_t i = 0; i < writes.size(); ++i) write(st, writes[i].first, writes[i].second, i + 1);
    auto expect = [&](int r, int c) {
      int v = -7;
      for (const auto& [b, base] : writes)
        if (b.has(r, c)) v = base + 10 * r + c;
      return v;
    };
    auto arr = array::open("/a", {.storage = st});
    for (int r0 = 1; r0 <= 6; r0 += 3)
      for (int c0 = 1; c0 <= 6; c0 += 2) {
        const box q{r0, r0 + 2, c0, c0 + 1};
        CAPTURE(r0);
        CAPTURE(c0);
        for (auto layout : {array::query_layout::row_major, array::query_layout::col_major,
                            array::query_layout::global_order}) {
          CAPTURE(static_cast<int>(layout));
          const auto v = arr.query().attributes({"v"}).subarray({{q.r0, q.r1}, {q.c0, q.c1}}).layout(layout).read()
                             .get<std::int32_t>("v");
          const bool rows_first = layout == array::query_layout::row_major ||
                                  (layout == array::query_layout::global_order && order == format::Layout::ROW_MAJOR);
          std::vector<std::int32_t> want;
          for (int a = 0; a < (rows_first ? 3 : 2); ++a)
            for (int b = 0; b < (rows_first ? 2 : 3); ++b)
              want.push_back(expect(q.r0 + (rows_first ? a : b), q.c0 + (rows_first ? b : a)));
          CHECK(std::vector<std::int32_t>(v.begin(), v.end()) == want);
        }
      }
  }
}

// Tiles of 256 x 256 int32 are four chunks of 64 rows: a box that meets
// part of a tile decodes only the chunks holding its cells, a chunk at a
// time. Damage to a chunk no query needs goes unnoticed; a query that needs
// it names it.
namespace {
// [zstd], and in a second run of the calling test case [byteshuffle, zstd]:
// a byte shuffle first writes the cells a read needs straight into the
// result, other pipelines decode a chunk into a buffer and copy.
format::FilterPipeline zstd_maybe_shuffled() {
  auto filters = format::compression_pipeline(format::FilterType::ZSTD);
  SUBCASE("zstd") {}
  SUBCASE("byteshuffle, zstd") {
    filters.filters.value.insert(filters.filters.value.begin(), format::Filter::make(format::FilterType::BYTESHUFFLE));
  }
  return filters;
}
} // namespace

TEST_CASE("dense: a tile partly in the box decodes only the chunks holding its cells") {
  const auto filters = zstd_maybe_shuffled();
  auto st = std::make_shared<storage::memory>();
  array::create("/z",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int32_t>("r", 0, 511, 256),
                                    format::make_dimension<std::int32_t>("c", 0, 511, 256)},
                     .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32,
                                                            .filters = filters})}}),
                {.storage = st});
  std::vector<std::int32_t> v;
  for (int r = 0; r < 512; ++r)
    for (int c = 0; c < 512; ++c) v.push_back(r * 1000 + c);
  array::dense_writer f("/z", {{0, 511}, {0, 511}}, array::cell_layout::row_major, st);
  f.set("a", v).commit({.timestamp = 1});
  // `ranges` per dimension; the cells in row- or column-major order.
  using ranges = std::vector<std::pair<int, int>>;
  auto expected = [](const ranges& rows, const ranges& cols, bool row_major) {
    std::vector<std::int32_t> out;
    auto each = [](const ranges& rs, auto&& fn) {
      for (const auto& [lo, hi] : rs)
        for (int x = lo; x <= hi; ++x) fn(x);
    };
    if (row_major)
      each(rows, [&](int r) { each(cols, [&](int c) { out.push_back(r * 1000 + c); }); });
    else
      each(cols, [&](int c) { each(rows, [&](int r) { out.push_back(r * 1000 + c); }); });
    return out;
  };
  // Tiles read whole (the default window holds one) or a window of one
  // byte at a time (tile_source::stream_chunks).
  std::uint64_t window = array::open_options{}.tile_read_window;
  auto read = [&](const ranges& rows, const ranges& cols, bool row_major) {
    auto arr = array::open("/z", {.threads = 2, .tile_read_window = window, .storage = st});
    auto q = arr.query();
    for (const auto& [lo, hi] : rows) q.add_range(0, std::int32_t{lo}, std::int32_t{hi});
    for (const auto& [lo, hi] : cols) q.add_range(1, std::int32_t{lo}, std::int32_t{hi});
    q.layout(row_major ? array::query_layout::row_major : array::query_layout::col_major);
    const auto got = q.read().get<std::int32_t>("a");
    return std::vector<std::int32_t>(got.begin(), got.end());
  };
  const std::vector<std::pair<ranges, ranges>> boxes{
      {{{10, 20}}, {{30, 40}}},                  // inside chunk 0 of tile 0
      {{{60, 70}}, {{250, 260}}},                // across chunks 0-1 and tiles 0-1
      {{{0, 5}, {300, 310}}, {{7, 7}, {500, 511}}},  // several ranges, four tiles
      {{{0, 255}}, {{0, 254}}},                  // all of tile 0's chunks but not all cells
      {{{0, 511}}, {{0, 511}}},                  // everything
  };
  for (const std::uint64_t w : {window, std::uint64_t{1}})
    for (const auto& box : boxes)
      for (const bool row_major : {true, false}) {
        window = w;
        const auto& rows = box.first;
        const auto& cols = box.second;
        CAPTURE(w);
        CAPTURE(rows.front().first);
        CAPTURE(cols.front().first);
        CAPTURE(row_major);
        CHECK(read(rows, cols, row_major) == expected(rows, cols, row_major));
      }
  window = array::open_options{}.tile_read_window;
  // Damage chunk 3 of tile 0 (rows 192-255; tile 0 starts the file): its
  // zstd frame loses its magic number.
  const auto frags = st->list("/z/__fragments");
  REQUIRE(frags.size() == 1);
  const fs::path file = fs::path("/z/__fragments") / frags[0].name / "a0.tdb";
  auto bytes = st->read(file);
  codec::reader at(bytes);
  const auto tile = codec::decode<format::TileView>(at);
  REQUIRE(tile.chunks.value.size() == 4);
  const auto offset = static_cast<std::size_t>(tile.chunks.value[3].data.bytes().data() - bytes.data());
  std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(offset), 4, std::byte{0});
  st->write(file, bytes);
  CHECK(read({{0, 63}}, {{0, 255}}, true) == expected({{0, 63}}, {{0, 255}}, true));
  CHECK(read({{100, 191}}, {{5, 9}}, false) == expected({{100, 191}}, {{5, 9}}, false));
  try {
    (void)read({{200, 201}}, {{0, 3}}, true);
    FAIL("the damaged chunk was not noticed");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()).find("chunk 3") != std::string::npos);
    CHECK(std::string(e.what()).find("a0.tdb") != std::string::npos);
  }
}

TEST_CASE("sparse: cells of tiles read in part, each value where its coordinates put it") {
  // A 2-D sparse array whose float64 attribute is a function of its
  // coordinates, tiles of 20,000 cells (three chunks): boxes take runs of
  // cells from the middle of chunks, across chunk ends, one cell here and
  // there; with a byte shuffle first, it writes them into the result.
  const auto filters = zstd_maybe_shuffled();
  auto st = std::make_shared<storage::memory>();
  array::create("/p",
                format::make_array_schema(
                    {.type = format::ArrayType::SPARSE,
                     .dimensions = {format::make_dimension<std::int32_t>("r", 0, 399, 400),
                                    format::make_dimension<std::int32_t>("c", 0, 399, 400)},
                     .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::FLOAT64,
                                                            .filters = filters})},
                     .capacity = 20'000}),
                {.storage = st});
  const auto value = [](std::int32_t r, std::int32_t c) { return r * 1000.0 + c + 0.25; };
  std::vector<std::int32_t> rs, cs;
  std::vector<double> as;
  for (std::int32_t r = 0; r < 400; ++r)
    for (std::int32_t c = 0; c < 400; c += 1 + (r + c) % 3) rs.push_back(r), cs.push_back(c), as.push_back(value(r, c));
  array::sparse_writer f("/p", st);
  f.set_coords("r", rs).set_coords("c", cs).set("a", as);
  f.commit({.timestamp = 1});
  using ranges = std::vector<std::pair<std::int32_t, std::int32_t>>;
  const std::vector<std::pair<ranges, ranges>> boxes{
      {{{10, 12}}, {{5, 300}}},                  // runs of one tile's rows
      {{{40, 90}}, {{0, 399}}},                  // whole rows, across chunks and tiles
      {{{0, 399}}, {{7, 7}}},                    // a cell a row
      {{{3, 3}, {200, 210}}, {{0, 2}, {390, 399}}},  // several ranges
  };
  for (const std::uint64_t window : {array::open_options{}.tile_read_window, std::uint64_t{1}})
    for (const auto& box : boxes) {
      const auto& rows = box.first;
      const auto& cols = box.second;
      auto arr = array::open("/p", {.threads = 2, .tile_read_window = window, .storage = st});
      auto q = arr.query().layout(array::query_layout::row_major);
      for (const auto& [lo, hi] : rows) q.add_range(0, lo, hi);
      for (const auto& [lo, hi] : cols) q.add_range(1, lo, hi);
      const auto res = q.read();
      const auto r = res.get<std::int32_t>("r"), c = res.get<std::int32_t>("c");
      const auto a = res.get<double>("a");
      std::size_t expected = 0;
      for (std::size_t i = 0; i < rs.size(); ++i) {
        const auto in = [](const ranges& rg, std::int32_t x) {
          return std::any_of(rg.begin(), rg.end(), [x](const auto& g) { return g.first <= x && x <= g.second; });
        };
        expected += in(rows, rs[i]) && in(cols, cs[i]);
      }
      CAPTURE(window);
      CAPTURE(rows.front().first);
      REQUIRE(a.size() == expected);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < a.size(); ++i) wrong += a[i] != value(r[i], c[i]);
      CHECK(wrong == 0);
    }
}

TEST_CASE("dense: attributes chosen and ordered, the whole domain by default") {
  auto st = grid_array(format::Layout::ROW_MAJOR);
  write(st, {1, 6, 1, 6}, 0, 1);
  auto arr = array::open("/a", {.storage = st});
  const auto all = arr.query().read();
  CHECK(all.cell_num() == 36);
  CHECK(all.names() == std::vector<std::string>{"v", "s"});
  CHECK(all.get<std::int32_t>("v")[35] == 66);
  const auto one = arr.query().attributes({"s"}).subarray({{6, 6}, {6, 6}}).read();
  CHECK(one.names() == std::vector<std::string>{"s"});
  const auto s = one.get_var<char>("s");
  CHECK(s.offsets == std::vector<std::uint64_t>{0});
  CHECK(std::string(s.values.begin(), s.values.end()) == "0:66");
}

TEST_CASE("dense: bad subarrays and unsupported reads are clear errors") {
  auto st = grid_array(format::Layout::ROW_MAJOR);
  write(st, {1, 6, 1, 6}, 0, 1);
  auto arr = array::open("/a", {.storage = st});
  auto message = [&](std::vector<std::pair<std::int64_t, std::int64_t>> ranges, std::vector<std::string> attrs = {}) {
    try {
      (void)arr.query().subarray(std::move(ranges)).attributes(std::move(attrs)).read();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message({{3, 2}, {1, 1}}) == "tilefmt: query: range [3, 2] of dimension \"r\" is empty (lo > hi)");
  CHECK(message({{1, 1}, {0, 2}}) == "tilefmt: query: range [0, 2] of dimension \"c\" is outside the domain [1, 6]");
  CHECK(message({{1, 1}, {1, 1LL << 40}}) ==
        "tilefmt: query: range [1, 1099511627776] of dimension \"c\" does not fit the dimension's 32-bit signed integers");
  CHECK(message({{1, 1}, {1, 1}, {1, 1}}) == "tilefmt: query: ranges for dimension 2, the array has 2 dimensions");
  CHECK(message({{1, 1}, {1, 1}}, {"nope"}) == "tilefmt: query: the array has no attribute \"nope\"");
  // Typed access checks the type.
  const auto r = arr.query().subarray({{1, 1}, {1, 1}}).read();
  CHECK_THROWS_AS((void)r.get<std::int64_t>("v"), std::invalid_argument);
  CHECK_THROWS_AS((void)r.get<char>("s"), std::invalid_argument);
  CHECK_THROWS_AS((void)r.validity("v"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)arr.query().add_range("r", std::string_view("a"), std::string_view("b")).read(),
                       "tilefmt: query: range [\"a\", \"b\"] of dimension \"r\": the dimension's coordinates are "
                       "numbers, not strings",
                       std::invalid_argument);
}

// tests/data/tiledb/sparse_string_dim (TileDB-Py 0.36.1): keys "key-NNNNN"
// by an int32 "k". The recorded queries compare every layout against
// TileDB; these check the API and the rules on their own.
TEST_CASE("sparse: a string dimension's tiles bounded by their first and last keys") {
  // One fragment, tiles of 4 sorted keys: a range from a tile's first key,
  // or to its last, or across, in each layout.
  auto st = std::make_shared<storage::memory>();
  array::create("s", format::make_array_schema({.type = format::ArrayType::SPARSE,
                                                .dimensions = {format::make_string_dimension("k")},
                                                .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})},
                                                .capacity = 4}),
                {.storage = st});
  std::vector<std::string> all;
  std::vector<std::int32_t> a;
  for (int i = 0; i < 40; ++i) all.push_back("key" + std::to_string(100 + i)), a.push_back(i);
  array::sparse_writer("s", st).set_coords("k", all).set("a", a).commit({.timestamp = 1});
  const auto arr = array::open("s", {.storage = st});
  for (const auto layout : {array::query_layout::unordered, array::query_layout::global_order})
    for (const auto& range : {std::pair{0, 13}, {4, 6}, {5, 7}, {4, 4}, {3, 8}, {0, 39}, {9, 39}}) {
      const int i = range.first, j = range.second;
      CAPTURE(i);
      CAPTURE(j);
      const auto r = arr.query().layout(layout).add_range("k", all[i], all[j]).read();
      const auto got = r.get<std::int32_t>("a");
      std::vector<std::int32_t> sorted(got.begin(), got.end()), want;
      std::sort(sorted.begin(), sorted.end());
      for (int c = i; c <= j; ++c) want.push_back(c);
      CHECK(sorted == want);
    }
}

TEST_CASE("sparse: string keys of tiles inside the subarray go to the result in place, each after the tiles before") {
  // Keys of 1 to 4 digits (tiles of 4 holding different byte counts), read
  // whole or by a range holding every key, with duplicates allowed in two
  // fragments read as stored, or without in one: every key beside its
  // attribute, as written.
  for (const bool dups : {false, true}) {
    CAPTURE(dups);
    auto st = std::make_shared<storage::memory>();
    array::create("s", format::make_array_schema({.type = format::ArrayType::SPARSE,
                                                  .dimensions = {format::make_string_dimension("k")},
                                                  .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})},
                                                  .capacity = 4,
                                                  .allows_dups = dups}),
                  {.storage = st});
    std::map<std::string, std::multiset<std::int32_t>> want;
    for (int part = 0; part < (dups ? 2 : 1); ++part) {
      std::vector<std::string> keys;
      std::vector<std::int32_t> a;
      for (int i = 0; i < 41; ++i) {
        keys.push_back("k" + std::to_string(i * i * 7 + part));
        a.push_back(i + 100 * part);
        want[keys.back()].insert(a.back());
      }
      array::sparse_writer("s", st).set_coords("k", keys).set("a", a).commit({.timestamp = 1 + static_cast<std::uint64_t>(part)});
    }
    const auto arr = array::open("s", {.storage = st});
    for (const auto layout : {array::query_layout::unordered, array::query_layout::global_order}) {
      if (dups && layout == array::query_layout::global_order) continue;  // a merge: the general path
      for (const bool ranged : {false, true}) {
        CAPTURE(ranged);
        auto q = arr.query().layout(layout);
        if (ranged) q.add_range("k", std::string_view("k"), std::string_view("k9999"));
        const auto r = q.read();
        const auto k = r.get_var<char>("k");
        const auto a = r.get<std::int32_t>("a");
        REQUIRE(k.offsets.size() == a.size());
        std::map<std::string, std::multiset<std::int32_t>> got;
        std::vector<std::string> order;
        for (std::size_t i = 0; i < k.offsets.size(); ++i) {
          const std::size_t end = i + 1 < k.offsets.size() ? k.offsets[i + 1] : k.values.size();
          order.emplace_back(k.values.begin() + static_cast<std::ptrdiff_t>(k.offsets[i]),
                             k.values.begin() + static_cast<std::ptrdiff_t>(end));
          got[order.back()].insert(a[i]);
        }
        CHECK(got == want);
        if (layout == array::query_layout::global_order) CHECK(std::is_sorted(order.begin(), order.end()));
      }
      // Points, found by binary search in the sorted keys of the tiles
      // they meet: present ones, an absent one between two keys, one
      // given twice, and a range beside them (unordered: TileDB reads
      // several ranges of a dimension in global order only as one).
      if (layout == array::query_layout::global_order) continue;
      auto q = arr.query().layout(layout);
      for (const char* p : {"k0", "k28", "k5", "k11200", "k28", "k700"}) q.add_range("k", std::string_view(p), std::string_view(p));
      q.add_range("k", std::string_view("k1"), std::string_view("k112"));
      std::multiset<std::string> got;
      const auto r = q.read();
      const auto k = r.get_var<char>("k");
      for (std::size_t i = 0; i < k.offsets.size(); ++i) {
        const std::size_t end = i + 1 < k.offsets.size() ? k.offsets[i + 1] : k.values.size();
        got.emplace(k.values.begin() + static_cast<std::ptrdiff_t>(k.offsets[i]),
                    k.values.begin() + static_cast<std::ptrdiff_t>(end));
      }
      std::multiset<std::string> expect;
      for (const auto& [key, values] : want)
        if (key == "k0" || key == "k28" || key == "k11200" || key == "k700" || ("k1" <= key && key <= "k112"))
          for (std::size_t c = 0; c < values.size(); ++c) expect.insert(key);
      CHECK(got == expect);
    }
  }
}

TEST_CASE("sparse: string dimensions, ranges by name, and TileDB's merge of string ranges") {
  const auto arr = array::open(data / "tiledb" / "sparse_string_dim" / "array");
  auto keys = [&](array::query q) {
    const auto r = q.attributes({}).read();
    CHECK(r.var_size("key"));
    const auto k = r.get_var<char>("key");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < k.offsets.size(); ++i) {
      const std::size_t end = i + 1 < k.offsets.size() ? k.offsets[i + 1] : k.values.size();
      out.emplace_back(k.values.begin() + static_cast<std::ptrdiff_t>(k.offsets[i]),
                       k.values.begin() + static_cast<std::ptrdiff_t>(end));
    }
    return out;
  };
  const auto all = keys(arr.query());
  REQUIRE(all.size() > 20);
  CHECK(std::is_sorted(all.begin(), all.end()));
  const std::string lo = all[3], hi = all[12];
  const auto some = keys(arr.query().add_range("key", lo, hi));
  std::vector<std::string> want;
  for (const auto& k : all)
    if (lo <= k && k <= hi) want.push_back(k);
  CHECK(some == want);
  // A prefix sorts before the strings it begins.
  CHECK(keys(arr.query().add_range("key", std::string_view("key-"), std::string_view("key-~"))) == all);
  CHECK(keys(arr.query().add_range("key", std::string_view("zzz"), std::string_view("zzzz"))).empty());
  // Global order merges overlapping string ranges keeping the later range's
  // end, as TileDB does: [lo, hi] then [all[5], all[6]] reads as [lo, all[6]].
  // (Global order sorts by k's space tiles first: compared sorted.)
  auto merged = keys(arr.query().layout(array::query_layout::global_order).add_range("key", lo, hi)
                         .add_range("key", all[5], all[6]));
  std::sort(merged.begin(), merged.end());
  std::vector<std::string> to6;
  for (const auto& k : all)
    if (lo <= k && k <= all[6]) to6.push_back(k);
  CHECK(merged == to6);
  CHECK_THROWS_WITH_AS((void)arr.query().add_range("key", std::string_view("b"), std::string_view("a")).read(),
                       "tilefmt: query: range [\"b\", \"a\"] of dimension \"key\" is empty (lo > hi)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)arr.query().add_range("key", 1, 2).read(),
                       "tilefmt: query: range [1, 2] of dimension \"key\": the dimension's coordinates are strings",
                       std::invalid_argument);
}

/// Every field of a result, in bytes: values, offsets, validity.
std::vector<std::vector<std::byte>> result_bytes(const array::query_result& r) {
  std::vector<std::vector<std::byte>> out;
  for (const auto& name : r.names()) {
    out.emplace_back(r.bytes(name).begin(), r.bytes(name).end());
    std::vector<std::byte> extra;
    for (auto o : r.byte_offsets(name))
      for (int k = 0; k < 8; ++k) extra.push_back(static_cast<std::byte>(o >> (8 * k)));
    if (r.nullable(name))
      for (auto v : r.validity(name)) extra.push_back(static_cast<std::byte>(v));
    out.push_back(std::move(extra));
  }
  return out;
}

// Four threads share one opened array and one query object, and each
// query spreads its tiles over three more threads (run under
// ThreadSanitizer by scripts/test.sh).
TEST_CASE("one opened array, one query, many threads: each gets the single-threaded result") {
  struct read_case {
    const char* array;
    array::query_layout layout;
    bool ranges;  // several ranges per dimension
    bool where;   // a condition on attribute "a"
  };
  using enum array::query_layout;
  for (const auto& c : {read_case{"tiledb/encrypted_dense/array", global_order, false, false},
                        read_case{"tiledb/encrypted_dense/array", row_major, true, true},
                        read_case{"tiledb/nullable_dense/array", col_major, false, false},
                        read_case{"tiledb/encrypted_sparse/array", row_major, true, false},
                        read_case{"tiledb/sparse_2d_duplicates/array", unordered, false, false},
                        read_case{"time_travel/sparse_deletes_consolidated/array", global_order, false, false}}) {
    CAPTURE(c.array);
    const fs::path path = data / c.array;
    auto query_of = [&](const array::array_reader& arr) {
      auto q = arr.query().layout(c.layout);
      if (c.ranges) {
        const auto& dims = arr.schema().domain.dimensions.value;
        for (std::size_t d = 0; d < dims.size(); ++d) {
          format::visit_integer_type(dims[d].type.value, [&]<class T>() {
            const auto [lo, hi] = dims[d].template domain_as<T>();
            q.add_range(d, lo, static_cast<T>(lo + (hi - lo) / 3)).add_range(d, static_cast<T>(hi - (hi - lo) / 2), hi);
          });
        }
      }
      if (c.where) q.where(array::field("a") >= 0);
      return q;
    };
    const auto one = array::open(path, {.encryption_key = testing::test_array_key(path), .threads = 1});
    const auto expected = result_bytes(query_of(one).read());
    const auto arr = array::open(path, {.encryption_key = testing::test_array_key(path), .threads = 3});
    const auto q = query_of(arr);
    std::vector<int> agree(4, 0);
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < agree.size(); ++w)
      pool.emplace_back([&, w] {
        try {
          agree[w] = result_bytes(q.read()) == expected ? 1 : 2;
        } catch (...) {
          agree[w] = 3;
        }
      });
    for (auto& t : pool) t.join();
    CHECK(agree == std::vector<int>{1, 1, 1, 1});
  }
}

namespace {
/// A sparse 8 x 8 int32 array in memory (space tiles of 4 x 4, capacity 3),
/// one int32 attribute "v".
std::shared_ptr<storage::memory> sparse_grid(bool dups) {
  auto st = std::make_shared<storage::memory>();
  array::create("/s",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 1, 8, 4),
                                                          format::make_dimension<std::int32_t>("c", 1, 8, 4)},
                                           .attributes = {format::make_attribute({.name = "v"})},
                                           .capacity = 3,
                                           .allows_dups = dups}),
                {.storage = st});
  return st;
}

using cell = testing::rc_cell;

void write_cells(const std::shared_ptr<storage::memory>& st, const std::vector<cell>& cells, std::uint64_t t) {
  testing::write_rc_cells(st, "/s", cells, t);
}

std::vector<cell> cells_of(const array::query_result& res) { return testing::rc_cells_of(res); }
} // namespace

TEST_CASE("sparse: the newest of equal coordinates, time travel, and every layout") {
  auto st = sparse_grid(false);
  write_cells(st, {{8, 8, 4}, {1, 1, 1}, {2, 5, 2}, {5, 5, 3}}, 10);
  write_cells(st, {{7, 1, 21}, {2, 5, 20}}, 20);
  auto arr = array::open("/s", {.storage = st});
  CHECK(arr.query().read().names() == std::vector<std::string>{"r", "c", "v"});
  using L = array::query_layout;
  CHECK(cells_of(arr.query().layout(L::row_major).read()) ==
        std::vector<cell>{{1, 1, 1}, {2, 5, 20}, {5, 5, 3}, {7, 1, 21}, {8, 8, 4}});
  CHECK(cells_of(arr.query().layout(L::col_major).read()) ==
        std::vector<cell>{{1, 1, 1}, {7, 1, 21}, {2, 5, 20}, {5, 5, 3}, {8, 8, 4}});
  // Global order: space tiles (4 x 4) row by row, then cells row by row.
  CHECK(cells_of(arr.query().layout(L::global_order).read()) ==
        std::vector<cell>{{1, 1, 1}, {2, 5, 20}, {7, 1, 21}, {5, 5, 3}, {8, 8, 4}});
  auto unordered = cells_of(arr.query().layout(L::unordered).read());
  std::sort(unordered.begin(), unordered.end());
  CHECK(unordered == std::vector<cell>{{1, 1, 1}, {2, 5, 20}, {5, 5, 3}, {7, 1, 21}, {8, 8, 4}});
  // Opened before the second write: its cells are not there, the older (2, 5) is.
  auto before = array::open("/s", {.timestamp_end = 10, .storage = st});
  CHECK(cells_of(before.query().read()) == std::vector<cell>{{1, 1, 1}, {2, 5, 2}, {5, 5, 3}, {8, 8, 4}});
  // A box: rows 2..7, columns 1..5; one outside every cell is empty, not an error.
  CHECK(cells_of(arr.query().subarray({{2, 7}, {1, 5}}).read()) == std::vector<cell>{{2, 5, 20}, {5, 5, 3}, {7, 1, 21}});
  CHECK(arr.query().subarray({{3, 4}, {6, 8}}).read().cell_num() == 0);
  // Ranges past the domain are cropped to it (TileDB's default).
  CHECK(arr.query().subarray({{-100, 100}, {8, 1000}}).read().cell_num() == 1);
}

TEST_CASE("sparse, one dimension: tiles apart from each other are read as runs, with TileDB's answer") {
  // A time series written in pieces: the reader takes the cells of a tile
  // inside the range as one run when no other tile's cells meet them (less
  // those a condition drops), and cell by cell where writes overlap. Every
  // answer is checked against the cells written: the newest of each
  // coordinate, or all of them with duplicates allowed.
  using L = array::query_layout;
  struct series_cell {
    std::int64_t t;
    std::int32_t v;
    std::string s;  // "null" when not valid
    bool operator==(const series_cell&) const = default;
    auto operator<=>(const series_cell&) const = default;
  };
  for (const bool dups : {false, true}) {
    CAPTURE(dups);
    auto st = std::make_shared<storage::memory>();
    array::create("/t",
                  format::make_array_schema(
                      {.type = format::ArrayType::SPARSE,
                       .dimensions = {format::make_dimension<std::int64_t>("t", 0, 999, 50)},
                       .attributes = {format::make_attribute({.name = "v"}),
                                      format::make_attribute({.name = "s",
                                                              .type = format::Datatype::STRING_ASCII,
                                                              .cell_val_num = format::var_num,
                                                              .nullable = true})},
                       .capacity = 7,
                       .allows_dups = dups}),
                  {.storage = st});
    std::vector<series_cell> written;  // oldest first
    auto write = [&](std::int64_t from, std::int64_t to, std::int64_t step, std::uint64_t at) {
      std::vector<std::int64_t> t;
      std::vector<std::int32_t> v;
      std::vector<std::string> s;
      std::vector<std::uint8_t> valid;
      for (std::int64_t x = to; x >= from; x -= step) {  // given out of order: the writer sorts
        t.push_back(x);
        v.push_back(static_cast<std::int32_t>(x * 10 + static_cast<std::int64_t>(at)));
        s.push_back(x % 3 == 0 ? std::string() : std::string(static_cast<std::size_t>(x % 5), 'a'));
        valid.push_back(x % 4 != 0);
        written.push_back({x, v.back(), valid.back() ? s.back() : "null"});
      }
      array::sparse_writer f("/t", st);
      f.set_coords("t", t).set("v", v).set_var("s", s, valid);
      f.commit({.timestamp = at});
    };
    write(100, 299, 1, 10);  // three pieces one after the other, in time out of order
    write(0, 99, 3, 30);
    write(300, 520, 2, 20);
    write(600, 640, 1, 40);  // a later write over part of its own range
    write(610, 620, 1, 50);
    // What TileDB returns: the newest cell of each coordinate (written
    // later in time: the timestamps above), or every cell with duplicates.
    std::vector<std::pair<std::uint64_t, series_cell>> by_time;
    const std::uint64_t at[] = {10, 30, 20, 40, 50};
    {
      std::size_t w = 0, i = 0;
      for (const auto& [from, to, step] : std::vector<std::tuple<int, int, int>>{
               {100, 299, 1}, {0, 99, 3}, {300, 520, 2}, {600, 640, 1}, {610, 620, 1}}) {
        for (int x = to; x >= from; x -= step) by_time.emplace_back(at[w], written[i++]);
        ++w;
      }
    }
    auto expect = [&](std::int64_t lo, std::int64_t hi, bool cond) {
      std::map<std::int64_t, std::pair<std::uint64_t, series_cell>> newest;
      std::vector<series_cell> all;
      for (const auto& [time, c] : by_time) {
        if (c.t < lo || c.t > hi) continue;
        all.push_back(c);
        auto it = newest.find(c.t);
        if (it == newest.end() || it->second.first < time) newest[c.t] = {time, c};
      }
      std::vector<series_cell> out;
      if (dups)
        out = all;
      else
        for (const auto& [t, tc] : newest) out.push_back(tc.second);
      if (cond) std::erase_if(out, [](const series_cell& c) { return c.v >= 1000 && c.v <= 3000; });
      std::sort(out.begin(), out.end());
      return out;
    };
    auto arr = array::open("/t", {.storage = st});
    for (const auto& range : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {0, 999}, {5, 5}, {37, 260}, {99, 100}, {290, 310}, {521, 599}, {0, 599}, {600, 640}, {605, 615}}) {
      const std::int64_t lo = range.first, hi = range.second;
      CAPTURE(lo);
      CAPTURE(hi);
      for (const auto layout : {L::row_major, L::col_major, L::global_order, L::unordered}) {
        for (const bool cond : {false, true}) {
          CAPTURE(static_cast<int>(layout));
          CAPTURE(cond);
          auto q = arr.query().subarray({{lo, hi}}).layout(layout);
          if (cond) q.where(array::field("v") < std::int32_t{1000} || array::field("v") > std::int32_t{3000});
          const auto res = q.read();
          const auto t = res.get<std::int64_t>("t");
          const auto v = res.get<std::int32_t>("v");
          const auto s = res.get_var<char>("s");
          const auto& valid = res.validity("s");
          std::vector<series_cell> got;
          for (std::size_t i = 0; i < t.size(); ++i) {
            const std::size_t b = s.offsets[i], e = i + 1 < s.offsets.size() ? s.offsets[i + 1] : s.values.size();
            got.push_back({t[i], v[i], valid[i] ? std::string(s.values.begin() + static_cast<std::ptrdiff_t>(b),
                                                              s.values.begin() + static_cast<std::ptrdiff_t>(e))
                                                 : "null"});
          }
          if (layout != L::unordered)
            CHECK(std::is_sorted(got.begin(), got.end(), [](const series_cell& a, const series_cell& b) { return a.t < b.t; }));
          std::sort(got.begin(), got.end());
          CHECK(got == expect(lo, hi, cond));
        }
      }
    }
    // Several ranges: each range's cells, range by range (row-major).
    const auto two = arr.query().add_range("t", 250, 260).add_range("t", 10, 20).read().get<std::int64_t>("t");
    CHECK(std::vector<std::int64_t>(two.begin(), two.end()) ==
          std::vector<std::int64_t>{12, 15, 18, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260});
  }
}

TEST_CASE("sparse aggregates: tiles whose every cell is in the result are taken from their metadata") {
  // TileDB's sparse readers aggregate a tile from the fragment's tile
  // metadata when all its cells are in the result; where the metadata and
  // the decoded cells differ (a FLOAT_SCALE attribute written by libtiledb
  // 2.11: the sum of the values given, not of the values stored), TileDB
  // answers the metadata's (the interop corpus records that). Here they
  // agree, and the answers must equal those of every cell read.
  using array::aggregate_op;
  auto st = std::make_shared<storage::memory>();
  array::create("/agg",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("d", 1, 1000, 100)},
                                           .attributes = {format::make_attribute({.name = "v"}),
                                                          format::make_attribute({.name = "n", .type = format::Datatype::FLOAT64,
                                                                                  .nullable = true})},
                                           .capacity = 10}),
                {.storage = st});
  for (int w = 0; w < 2; ++w) {  // the second write replaces some cells of the first
    std::vector<std::int32_t> d, v;
    std::vector<double> n;
    std::vector<std::uint8_t> valid;
    for (int x = 1 + w * 35; x <= 60 + w * 35; x += 1 + w) {
      d.push_back(x), v.push_back(x * 7 - 100 + w * 1000), n.push_back(x * 0.5), valid.push_back(x % 3 != 0);
    }
    array::sparse_writer f("/agg", st);
    f.set_coords("d", d).set("v", v).set("n", n, valid);
    f.commit({.timestamp = static_cast<std::uint64_t>(10 + w)});
  }
  auto arr = array::open("/agg", {.storage = st});
  const std::vector<std::pair<aggregate_op, std::string>> what{
      {aggregate_op::sum, "v"}, {aggregate_op::min, "v"},       {aggregate_op::max, "v"},
      {aggregate_op::count, ""}, {aggregate_op::null_count, "n"}, {aggregate_op::mean, "n"}};
  for (const auto& range : std::vector<std::pair<std::int32_t, std::int32_t>>{{1, 1000}, {1, 30}, {5, 44}, {36, 36}, {61, 200}}) {
    const std::int32_t lo = range.first, hi = range.second;
    CAPTURE(lo);
    CAPTURE(hi);
    for (const auto layout : {array::query_layout::unordered, array::query_layout::global_order, array::query_layout::row_major}) {
      CAPTURE(static_cast<int>(layout));
      auto q = arr.query().subarray({{lo, hi}}).layout(layout);
      const auto stored = q.aggregate(what);  // (halves: sums in any order are exact)
      CHECK(stored == q.use_tile_metadata(false).aggregate(what));
    }
  }
}

// The same for sparse arrays: a tile whose every cell is in the result and
// whose metadata answers every aggregate of an attribute is not read. With
// the data files of the first fragment emptied, aggregates over its whole
// tiles still answer (on the one-dimensional run path and, with an
// overlapping second fragment, on the general reader), and anything that
// needs its cells fails.
TEST_CASE("sparse aggregates: tiles answered from their metadata are not read") {
  using array::aggregate_op;
  auto st = std::make_shared<storage::memory>();
  array::create("/m",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("d", 1, 1000, 100)},
                                           .attributes = {format::make_attribute({.name = "v"}),
                                                          format::make_attribute({.name = "n", .type = format::Datatype::FLOAT64,
                                                                                  .nullable = true})},
                                           .capacity = 10}),
                {.storage = st});
  auto write = [&](const std::vector<std::int32_t>& d, std::uint64_t at) {
    std::vector<std::int32_t> v;
    std::vector<double> n;
    std::vector<std::uint8_t> valid;
    for (auto x : d) v.push_back(x * 3 - 50), n.push_back(x * 0.25), valid.push_back(x % 4 != 0);
    array::sparse_writer f("/m", st);
    f.set_coords("d", d).set("v", v).set("n", n, valid);
    f.commit({.timestamp = at});
  };
  std::vector<std::int32_t> first;  // ten tiles of 1..100, and one of 200
  for (std::int32_t x = 1; x <= 100; ++x) first.push_back(x);
  first.push_back(200);
  write(first, 1);
  write({150, 250}, 2);  // its tile's rectangle meets the first fragment's last tile
  const std::vector<std::pair<aggregate_op, std::string>> what{
      {aggregate_op::sum, "v"}, {aggregate_op::min, "v"},        {aggregate_op::max, "v"},
      {aggregate_op::count, ""}, {aggregate_op::null_count, "n"}, {aggregate_op::mean, "n"}};
  using R = std::vector<std::pair<std::int64_t, std::int64_t>>;
  const std::vector<R> whole{{{1, 100}}, {{11, 40}}, {{1, 300}}, {{91, 1000}}};
  const std::vector<R> part{{{5, 100}}, {{1, 95}}, {{3, 300}}};
  const std::vector<array::query_layout> layouts{array::query_layout::unordered, array::query_layout::global_order,
                                                 array::query_layout::row_major};
  std::vector<std::vector<array::aggregate_value>> expected;
  {
    auto arr = array::open("/m", {.storage = st});
    for (const auto& r : whole)
      for (const auto l : layouts) {
        expected.push_back(arr.query().subarray(r).layout(l).use_tile_metadata(false).aggregate(what));
        CHECK(expected.back() == arr.query().subarray(r).layout(l).aggregate(what));
      }
  }
  // Empty the first fragment's attribute files (the older fragment's name sorts first).
  std::size_t emptied = 0;
  const auto files = st->files();
  std::string first_frag;
  for (const auto& [path, bytes] : files)
    if (path.find("/__fragments/") != std::string::npos && path.ends_with("/a0.tdb") && (first_frag.empty() || path < first_frag))
      first_frag = path.substr(0, path.size() - 7);
  REQUIRE(!first_frag.empty());
  for (const char* file : {"/a0.tdb", "/a1.tdb", "/a1_validity.tdb"}) {  // v, n
    REQUIRE(files.count(first_frag + file) == 1);
    st->write(first_frag + file, {});
    ++emptied;
  }
  CHECK(emptied == 3);
  auto arr = array::open("/m", {.storage = st});
  std::size_t k = 0;
  for (const auto& r : whole)
    for (const auto l : layouts) {
      CAPTURE(r.front().first);
      CAPTURE(static_cast<int>(l));
      CHECK(arr.query().subarray(r).layout(l).aggregate(what) == expected[k++]);
      // Without the metadata, or with an aggregate it cannot answer, the cells are needed.
      CHECK_THROWS_AS((void)arr.query().subarray(r).layout(l).use_tile_metadata(false).aggregate(what), format_error);
      CHECK_THROWS_AS((void)arr.query().subarray(r).layout(l).read(), format_error);
    }
  for (const auto& r : part)
    for (const auto l : layouts) {
      CAPTURE(r.front().first);
      CHECK_THROWS_AS((void)arr.query().subarray(r).layout(l).aggregate(what), format_error);
    }
  // COUNT alone reads no attribute.
  CHECK(arr.query().subarray(R{{5, 300}}).count() == 99);
}

// Conditions are evaluated a tile at a time, in blocks of cells; the
// reader then takes the passing cells by mask. Checked against a plain
// evaluation of each condition in the test, cell by cell, over tiles of 150
// cells (blocks and tails), ranges that start and end inside tiles, NaN,
// nulls and var-size strings, on the one-dimensional run path (unordered,
// global order) and on the general reader (several ranges).
TEST_CASE("conditions: tile edges, NaN, nulls and strings, against a cell-by-cell evaluation") {
  using array::field;
  auto st = std::make_shared<storage::memory>();
  array::create("/e",
                format::make_array_schema(
                    {.type = format::ArrayType::SPARSE,
                     .dimensions = {format::make_dimension<std::int32_t>("d", 0, 9999, 1000)},
                     .attributes = {format::make_attribute({.name = "v"}),
                                    format::make_attribute({.name = "x", .type = format::Datatype::FLOAT64}),
                                    format::make_attribute({.name = "n", .type = format::Datatype::INT16, .nullable = true}),
                                    format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                            .cell_val_num = format::var_num, .nullable = true})},
                     .capacity = 150}),
                {.storage = st});
  const std::size_t cells = 1000;
  std::vector<std::int32_t> d(cells), v(cells);
  std::vector<double> x(cells);
  std::vector<std::int16_t> n(cells);
  std::vector<std::uint8_t> n_valid(cells), s_valid(cells);
  std::vector<std::string> s(cells);
  std::uint64_t seed = 7;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(seed >> 33);
  };
  const std::vector<std::string> words{"", "a", "ab", "abc", "b", "ba", "m", "mz", "zz", "zzz"};
  for (std::size_t i = 0; i < cells; ++i) {
    d[i] = static_cast<std::int32_t>(i * 3);
    v[i] = static_cast<std::int32_t>(next() % 41) - 20;
    const auto r = next() % 10;
    x[i] = r == 0 ? std::nan("") : r == 1 ? -0.0 : static_cast<double>(next() % 1000) / 999.0;
    n[i] = static_cast<std::int16_t>(next() % 21) - 10;
    n_valid[i] = next() % 5 != 0;
    s[i] = words[next() % words.size()];
    s_valid[i] = next() % 7 != 0;
  }
  array::sparse_writer f("/e", st);
  f.set_coords("d", d).set("v", v).set("x", x).set("n", n, n_valid).set_var("s", s, s_valid);
  f.commit();
  auto arr = array::open("/e", {.storage = st});

  struct test {
    array::condition c;
    std::function<bool(std::size_t)> keep;
  };
  const double half = 0.5;
  auto in = [](auto v, std::initializer_list<decltype(v)> set) { return std::find(set.begin(), set.end(), v) != set.end(); };
  const std::vector<test> tests{
      {field("x") > half, [&](std::size_t i) { return x[i] > half; }},
      {field("x") != half, [&](std::size_t i) { return x[i] != half; }},  // NaN != everything
      {field("x") == 0.0, [&](std::size_t i) { return x[i] == 0.0; }},    // -0.0 too
      {!(field("x") <= half), [&](std::size_t i) { return !(x[i] <= half); }},
      {field("v") >= std::int32_t{3} && field("x") < 0.9,
       [&](std::size_t i) { return v[i] >= 3 && x[i] < 0.9; }},
      {field("v") < std::int32_t{-15} || field("v") == std::int32_t{20} || field("n") > std::int16_t{8},
       [&](std::size_t i) { return v[i] < -15 || v[i] == 20 || (n_valid[i] && n[i] > 8); }},
      {field("n") <= std::int16_t{0}, [&](std::size_t i) { return n_valid[i] && n[i] <= 0; }},
      {!(field("n") <= std::int16_t{0}), [&](std::size_t i) { return !(n_valid[i] && n[i] <= 0); }},
      {field("n").is_null(), [&](std::size_t i) { return !n_valid[i]; }},
      {field("n").not_in(std::vector<std::int16_t>{-10, 0, 10}),
       [&](std::size_t i) { return n_valid[i] && !in(n[i], {-10, 0, 10}); }},
      {field("x").in(std::vector<double>{0.0, std::nan(""), 1.0}),
       [&](std::size_t i) { return x[i] == 0.0 || x[i] == 1.0; }},
      {field("s") >= "b", [&](std::size_t i) { return s_valid[i] && s[i] >= "b"; }},
      {field("s") < "ab", [&](std::size_t i) { return s_valid[i] && s[i] < "ab"; }},
      {field("s") == "", [&](std::size_t i) { return !s_valid[i]; }},  // a value of no bytes: the null test
      {field("s").in(std::vector<std::string>{"zz", "a", "", "nope"}),
       [&](std::size_t i) { return s_valid[i] && in(s[i], {"zz", "a", "", "nope"}); }},
      {field("s").not_null() && field("s").not_in(std::vector<std::string>{"m", "mz"}),
       [&](std::size_t i) { return s_valid[i] && !in(s[i], {"m", "mz"}); }},
      {field("d") > std::int32_t{1500} && field("s") != "a",
       [&](std::size_t i) { return d[i] > 1500 && s_valid[i] && s[i] != "a"; }},
  };
  using R = std::vector<std::pair<std::int64_t, std::int64_t>>;
  const std::vector<R> ranges{{{0, 9999}}, {{151, 2700}}, {{448, 451}}};
  for (std::size_t t = 0; t < tests.size(); ++t) {
    CAPTURE(t);
    for (const auto& r : ranges) {
      CAPTURE(r.front().first);
      std::vector<std::int32_t> want;
      std::vector<std::string> want_s;
      for (std::size_t i = 0; i < cells; ++i)
        if (d[i] >= r.front().first && d[i] <= r.front().second && tests[t].keep(i))
          want.push_back(d[i]), want_s.push_back(s_valid[i] ? s[i] : "-");
      for (const auto l : {array::query_layout::unordered, array::query_layout::global_order}) {
        const auto got = arr.query().subarray(r).layout(l).where(tests[t].c).read();
        const auto gd = got.get<std::int32_t>("d");
        CHECK(std::vector<std::int32_t>(gd.begin(), gd.end()) == want);
        const auto gs = got.get_var<char>("s");
        const auto& gv = got.validity("s");
        std::vector<std::string> strings;
        for (std::size_t c = 0; c < gs.offsets.size(); ++c) {
          const auto end = c + 1 < gs.offsets.size() ? gs.offsets[c + 1] : gs.values.size();
          strings.push_back(gv[c] ? std::string(gs.values.begin() + static_cast<std::ptrdiff_t>(gs.offsets[c]),
                                                gs.values.begin() + static_cast<std::ptrdiff_t>(end))
                                  : "-");
        }
        CHECK(strings == want_s);
        // The other fixed-size fields, nullable ones too (a condition's own
        // tiles give the result their passing cells as they are evaluated).
        const auto gx = got.get<double>("x");
        const auto gvals = got.get<std::int32_t>("v");
        const auto gn = got.get<std::int16_t>("n");
        const auto& gnv = got.validity("n");
        REQUIRE(gx.size() == want.size());
        REQUIRE(gn.size() == want.size());
        for (std::size_t c = 0; c < want.size(); ++c) {
          const auto i = static_cast<std::size_t>(want[c] / 3);
          CHECK(std::memcmp(&gx[c], &x[i], sizeof(double)) == 0);
          CHECK(gvals[c] == v[i]);
          CHECK(gnv[c] == n_valid[i]);
          if (n_valid[i]) CHECK(gn[c] == n[i]);
        }
      }
      // The general reader: the range split in two.
      const std::int64_t mid = (r.front().first + r.front().second) / 2;
      const auto got = arr.query()
                           .add_range(0, r.front().first, mid)
                           .add_range(0, mid + 1, r.front().second)
                           .layout(array::query_layout::row_major)
                           .where(tests[t].c)
                           .read()
                           .get<std::int32_t>("d");
      CHECK(std::vector<std::int32_t>(got.begin(), got.end()) == want);
    }
  }
}

TEST_CASE("sparse: duplicates are all kept") {
  auto st = sparse_grid(true);
  write_cells(st, {{2, 5, 2}, {2, 5, 3}, {1, 1, 1}}, 10);
  write_cells(st, {{2, 5, 20}}, 20);
  auto arr = array::open("/s", {.storage = st});
  auto got = cells_of(arr.query().read());
  REQUIRE(got.size() == 4);
  CHECK(got[0] == cell{1, 1, 1});
  std::sort(got.begin() + 1, got.end());  // equal coordinates: in no fixed order
  CHECK(got == std::vector<cell>{{1, 1, 1}, {2, 5, 2}, {2, 5, 3}, {2, 5, 20}});
}

TEST_CASE("sparse: several ranges per dimension, as TileDB returns them") {
  auto st = std::make_shared<storage::memory>();
  array::create("/l",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("d", 1, 100, 10)},
                                           .attributes = {format::make_attribute({.name = "v"})},
                                           .capacity = 2}),
                {.storage = st});
  auto write1 = [&](std::vector<std::int32_t> d, std::uint64_t t) {
    array::sparse_writer f("/l", st);
    f.set_coords("d", d).set("v", d);
    f.commit({.timestamp = t});
  };
  write1({10, 20, 30, 40}, 1);
  auto coords = [](const array::query_result& r) {
    const auto d = r.get<std::int32_t>("d");
    return std::vector<std::int32_t>(d.begin(), d.end());
  };
  auto ranges = [&](const array::array_reader& arr, array::query_layout l,
                    std::vector<std::pair<std::int32_t, std::int32_t>> rs) {
    auto q = arr.query().layout(l);
    for (auto [lo, hi] : rs) q.add_range("d", lo, hi);
    return coords(q.read());
  };
  using L = array::query_layout;
  {
    auto arr = array::open("/l", {.storage = st});
    // One fragment, one dimension: range by range, a cell in two ranges twice.
    CHECK(ranges(arr, L::row_major, {{25, 45}, {5, 25}}) == std::vector<std::int32_t>{30, 40, 10, 20});
    CHECK(ranges(arr, L::row_major, {{5, 25}, {15, 35}}) == std::vector<std::int32_t>{10, 20, 20, 30});
    // Global order and unordered: the ranges merged, each cell once.
    CHECK(ranges(arr, L::global_order, {{25, 45}, {5, 25}}) == std::vector<std::int32_t>{10, 20, 30, 40});
    CHECK(ranges(arr, L::unordered, {{5, 25}, {15, 35}}) == std::vector<std::int32_t>{10, 20, 30});
    // Adjacent integer ranges join: one range, in order.
    CHECK(ranges(arr, L::row_major, {{21, 40}, {1, 20}}) == std::vector<std::int32_t>{30, 40, 10, 20});
    CHECK(ranges(arr, L::row_major, {{1, 20}, {21, 40}}) == std::vector<std::int32_t>{10, 20, 30, 40});
  }
  write1({15}, 2);
  auto arr = array::open("/l", {.storage = st});
  // Cells from several fragments: sorted, duplicates (from overlapping ranges) next to each other.
  CHECK(ranges(arr, L::row_major, {{25, 45}, {5, 25}}) == std::vector<std::int32_t>{10, 15, 20, 30, 40});
  CHECK(ranges(arr, L::row_major, {{5, 25}, {15, 35}}) == std::vector<std::int32_t>{10, 15, 15, 20, 20, 30});
  // TileDB judges "one fragment" before a condition takes cells out: the
  // second fragment's cell fails v != 15, the first's are still sorted.
  auto q = arr.query().layout(L::row_major).where(array::field("v") != std::int32_t{15});
  q.add_range("d", 25, 45).add_range("d", 5, 25);
  CHECK(coords(q.read()) == std::vector<std::int32_t>{10, 20, 30, 40});
}

TEST_CASE("sparse: ranges of every coordinate type") {
  auto st = std::make_shared<storage::memory>();
  constexpr std::uint64_t big = (std::uint64_t{1} << 63) + 5;
  array::create(
      "/t",
      format::make_array_schema(
          {.type = format::ArrayType::SPARSE,
           .dimensions = {format::make_dimension<double>("x", -10.0, 10.0, std::nullopt),
                          format::make_dimension<std::uint64_t>("u", 0, std::numeric_limits<std::uint64_t>::max() - 1,
                                                                std::nullopt),
                          format::make_dimension<std::int64_t>("day", -1000, 1000, 100, format::Datatype::DATETIME_DAY)},
           .attributes = {format::make_attribute({.name = "v"})}}),
      {.storage = st});
  array::sparse_writer f("/t", st);
  f.set_coords("x", std::vector<double>{-2.5, 0.0, 3.25})
      .set_coords("u", std::vector<std::uint64_t>{1, big, big + 1})
      .set_coords("day", std::vector<std::int64_t>{-5, 0, 5})
      .set("v", std::vector<std::int32_t>{1, 2, 3});
  f.commit();
  auto arr = array::open("/t", {.storage = st});
  auto values = [](const array::query_result& r) {
    const auto v = r.get<std::int32_t>("v");
    return std::vector<std::int32_t>(v.begin(), v.end());
  };
  CHECK(values(arr.query().add_range("x", -3.0, 0.0).read()) == std::vector<std::int32_t>{1, 2});
  CHECK(values(arr.query().add_range("x", 0.5, 10.0).read()) == std::vector<std::int32_t>{3});
  CHECK(values(arr.query().add_range(1, big, big + 10).read()) == std::vector<std::int32_t>{2, 3});
  CHECK(values(arr.query().add_range("day", -1, 1000).read()) == std::vector<std::int32_t>{2, 3});
  // An integer range on a float dimension; a float range with a whole value on an integer one.
  CHECK(values(arr.query().add_range("x", 0, 5).read()) == std::vector<std::int32_t>{2, 3});
  CHECK(values(arr.query().add_range("day", 0.0, 5.0).read()) == std::vector<std::int32_t>{2, 3});
  auto message = [&](auto&& build) {
    try {
      (void)build(arr.query()).read();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([](auto q) { return q.add_range("day", 0.5, 2.0); }) ==
        "tilefmt: query: range [0.500000, 2.000000] of dimension \"day\": the dimension's coordinates are integers "
        "of 64 bits");
  CHECK(message([](auto q) { return q.add_range("u", -1, 5); }) ==
        "tilefmt: query: range [-1, 5] of dimension \"u\" does not fit the dimension's 64-bit unsigned integers");
  CHECK(message([](auto q) { return q.add_range("x", std::nan(""), 1.0); }) ==
        "tilefmt: query: range [nan, 1.000000] of dimension \"x\" has a NaN bound");
  CHECK(message([](auto q) { return q.add_range("nope", 1, 2); }) == "tilefmt: query: the array has no dimension \"nope\"");
  CHECK(message([](auto q) { return q.add_range("x", 1.0, 2.0).add_range("x", 4.0, 5.0).add_range("u", 1, 2).add_range("u", 8, 9).layout(array::query_layout::global_order); }) ==
        "tilefmt: query: several ranges per dimension cannot be read in global order (TileDB refuses it too)");
}

TEST_CASE("conditions: comparisons, and/or/not, sets, null tests, as TileDB evaluates them") {
  using array::field;
  auto st = std::make_shared<storage::memory>();
  array::create("/c",
                format::make_array_schema(
                    {.type = format::ArrayType::SPARSE,
                     .dimensions = {format::make_dimension<std::int32_t>("d", 1, 100, 10)},
                     .attributes = {format::make_attribute({.name = "v"}),
                                    format::make_attribute({.name = "n", .type = format::Datatype::FLOAT64, .nullable = true}),
                                    format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                            .cell_val_num = format::var_num})},
                     .capacity = 4}),
                {.storage = st});
  array::sparse_writer f("/c", st);
  f.set_coords("d", std::vector<std::int32_t>{1, 2, 3, 4, 5, 6})
      .set("v", std::vector<std::int32_t>{-3, 0, 7, 12, 7, 100})
      .set("n", std::vector<double>{1.5, 0, -2.0, 0, 9.25, 3.0}, std::vector<std::uint8_t>{1, 0, 1, 0, 1, 1})
      .set_var("s", std::vector<std::string>{"b", "ab", "abc", "", "b", "zz"});
  f.commit();
  auto arr = array::open("/c", {.storage = st});
  auto where = [&](const array::condition& c) {
    const auto d = arr.query().where(c).read().get<std::int32_t>("d");
    return std::vector<std::int32_t>(d.begin(), d.end());
  };
  using V = std::vector<std::int32_t>;
  CHECK(where(field("v") > 5) == V{3, 4, 5, 6});
  CHECK(where(field("v") >= 7 && field("v") <= 12) == V{3, 4, 5});
  CHECK(where(field("v") == 7 || field("v") < 0) == V{1, 3, 5});
  CHECK(where(!(field("v") == 7)) == V{1, 2, 4, 6});
  CHECK(where(field("v").in(std::vector<std::int32_t>{0, 12, 99})) == V{2, 4});
  CHECK(where(field("v").not_in(std::vector<std::int32_t>{0, 12, 99})) == V{1, 3, 5, 6});
  // Strings compare byte by byte; "" is less than every other string.
  CHECK(where(field("s") < "b") == V{2, 3, 4});
  CHECK(where(field("s") == "b") == V{1, 5});
  CHECK(where(field("s").in(std::vector<std::string>{"zz", "ab"})) == V{2, 6});
  // A null cell fails every comparison but the null test.
  CHECK(where(field("n").is_null()) == V{2, 4});
  CHECK(where(field("n").not_null()) == V{1, 3, 5, 6});
  CHECK(where(field("n") < 100.0) == V{1, 3, 5, 6});
  CHECK(where(field("n") != 1.5) == V{3, 5, 6});
  CHECK(where(!(field("n") < 100.0)) == V{2, 4});
  // Dimensions too; with ranges.
  CHECK(where(field("d") >= 5) == V{5, 6});
  CHECK(arr.query().add_range(0, 1, 4).where(field("v") > 5).read().cell_num() == 2);
  // Checked against the schema when the query runs.
  auto message = [&](const array::condition& c) {
    try {
      (void)arr.query().where(c).read();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message(field("nope") == 1) == "tilefmt: query condition: the array has no field \"nope\"");
  CHECK(message(field("v") == std::int64_t{1}) ==
        "tilefmt: query condition: the value for \"v\" has 8 bytes, the field's values 4");
  CHECK(message(field("v").in(std::vector<std::int16_t>{1})) ==
        "tilefmt: query condition: a member of the set for \"v\" has 2 bytes, the field's values 4");
}

TEST_CASE("conditions on dense arrays: cells that fail read as fill values") {
  using array::field;
  auto st = grid_array(format::Layout::ROW_MAJOR);
  write(st, {1, 2, 1, 3}, 0, 1);  // v = 10 r + c
  auto arr = array::open("/a", {.storage = st});
  const auto r = arr.query().subarray({{1, 2}, {1, 3}}).where(field("v") > 12 && field("v") != 22).read();
  const auto v = r.get<std::int32_t>("v");
  CHECK(std::vector<std::int32_t>(v.begin(), v.end()) == std::vector<std::int32_t>{-7, -7, 13, 21, -7, 23});
  const auto s = r.get_var<char>("s");
  CHECK(std::string(s.values.begin(), s.values.end()) == std::string("\0\0", 2) + "0:13" + "0:21" + std::string(1, '\0') + "0:23");
}

TEST_CASE("batches: a result larger than open_options::max_allocation is read in parts") {
  auto st = std::make_shared<storage::memory>();
  array::create("/big",
                format::make_array_schema({.type = format::ArrayType::DENSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 0, 255, 32),
                                                          format::make_dimension<std::int32_t>("c", 0, 255, 32)},
                                           .attributes = {format::make_attribute({.name = "v"})}}),
                {.storage = st});
  array::dense_writer f("/big", {{0, 255}, {0, 255}}, array::cell_layout::row_major, st);
  std::vector<std::int32_t> v(256 * 256);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * 7);
  f.set("v", v);
  f.commit({.timestamp = 1});
  // 256 KiB of results (768 KiB with a global-order read's bookkeeping), 160
  // KiB allowed at once: enough for a row of space tiles (32 x 256 cells),
  // the smallest part of a global-order read.
  const auto small = array::open("/big", {.max_allocation = 160 << 10, .storage = st});
  CHECK_THROWS_AS((void)small.query().read(), std::invalid_argument);
  for (auto layout : {array::query_layout::row_major, array::query_layout::col_major,
                      array::query_layout::global_order}) {
    CAPTURE(static_cast<int>(layout));
    const auto whole = array::open("/big", {.storage = st}).query().layout(layout).read().get<std::int32_t>("v");
    std::vector<std::int32_t> parts;
    std::size_t n = 0;
    auto b = small.query().layout(layout).batches(32 << 10);
    while (auto part = b.next()) {
      const auto p = part->get<std::int32_t>("v");
      CHECK(p.size() * 4 <= (32 << 10));
      parts.insert(parts.end(), p.begin(), p.end());
      ++n;
    }
    // Row- and column-major: 4-byte values, 32 rows a part; global order
    // (8 more bytes a cell of bookkeeping): a row of space tiles a part.
    CHECK(n == 8);
    CHECK(parts == std::vector<std::int32_t>(whole.begin(), whole.end()));
  }
}

// tests/data/tiledb/enumeration (TileDB-Py 0.36.1): "c" uint8 with the
// unordered enumeration [red, green, blue, hé], over d = 0..19.
TEST_CASE("conditions on enumerated attributes: labels become indices, as TileDB rewrites them") {
  using array::field;
  const auto arr = array::open(data / "tiledb" / "enumeration" / "array");
  const auto e = arr.enumeration("colors");
  CHECK(e.ordered == false);
  auto c_of = [&](const array::condition& where) {
    const auto c = arr.query().attributes({"c"}).where(where).read().get<std::uint8_t>("c");
    return std::vector<std::uint8_t>(c.begin(), c.end());
  };
  const auto all = arr.query().attributes({"c"}).read().get<std::uint8_t>("c");
  const std::vector<std::uint8_t> every(all.begin(), all.end()), none(every.size(), 255);  // 255: the fill value
  std::vector<std::uint8_t> blue = none;
  for (std::size_t i = 0; i < every.size(); ++i)
    if (every[i] == 2) blue[i] = 2;
  REQUIRE(blue != none);
  CHECK(c_of(field("c") == "blue") == blue);
  CHECK(c_of(field("c") == std::uint8_t{2}) == blue);  // numbers compare the indices
  CHECK(c_of(field("c") == "purple") == none);         // a missing label: == holds nowhere
  CHECK(c_of(field("c") != "purple") == every);        // and != everywhere
  CHECK(c_of(field("c").in(std::vector<std::string>{"purple", "blue"})) == blue);
  CHECK(c_of(!(field("c") != "blue")) == blue);
  CHECK_THROWS_WITH_AS(c_of(field("c") < "blue"),
                       "tilefmt: query condition: \"c\" is compared by label with <, <=, > or >=, and its "
                       "enumeration \"colors\" is not ordered",
                       std::invalid_argument);
  CHECK_THROWS_AS((void)arr.enumeration("sizes"), std::invalid_argument);
}

TEST_CASE("a domain of 2^40 one-cell tiles: refused before anything that size is allocated (fuzz finding)") {
  auto st = std::make_shared<storage::memory>();
  array::create("/h",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int64_t>("d", 0, std::int64_t{1} << 40, 1)},
                     .attributes = {format::make_attribute({.name = "v"})}}),
                {.storage = st});
  auto arr = array::open("/h", {.storage = st});
  for (auto layout : {array::query_layout::global_order, array::query_layout::row_major})
    CHECK_THROWS_AS((void)arr.query().layout(layout).read(), std::invalid_argument);
  // Aggregates fold tiles without a result: nothing is allocated per cell,
  // and no fragment wrote any of them (SUM of no cells: 0).
  CHECK(arr.query().count() == (std::uint64_t{1} << 40) + 1);
  CHECK(std::get<std::int64_t>(arr.query().aggregate(array::aggregate_op::sum, "v")) == 0);
}

// TileDB answers aggregates over a space tile that the subarray covers whole
// and only one fragment wrote from the metadata stored with the tile: so does
// tilefmt, without reading the tile. With the tile's data files damaged, such
// aggregates still answer (and agree with the cells read before), while
// reads, parts of the tile and conditions, which need the cells, fail.
TEST_CASE("aggregates: whole tiles one fragment wrote are answered from their metadata, unread") {
  using array::aggregate_op;
  const fs::path src = data / "tiledb/dense_fragments_custom_fill/array";
  // Rows 31..40 x columns 21..30 is one space tile, written whole by the newest fragment only.
  const std::vector<std::pair<std::int64_t, std::int64_t>> tile{{31, 40}, {21, 30}};
  const std::vector<std::pair<aggregate_op, std::string>> what{
      {aggregate_op::sum, "i64"}, {aggregate_op::min, "i64"}, {aggregate_op::max, "i64"},
      {aggregate_op::null_count, "f"}, {aggregate_op::count, ""}, {aggregate_op::mean, "f"}};

  // The cells, read and aggregated here.
  const auto cells = array::open(src).query().subarray(tile).read();
  const auto v = cells.get<std::int64_t>("i64");
  const auto f = cells.get<double>("f");
  const auto& valid = cells.validity("f");
  REQUIRE(v.size() == 100);
  std::int64_t sum = 0;
  double fsum = 0;
  std::uint64_t nulls = 0;
  for (std::size_t c = 0; c < v.size(); ++c) {
    sum += v[c];
    if (valid[c]) fsum += f[c];
    nulls += valid[c] == 0;
  }

  const auto dir = testing::copy_to_temp(src, "aggregate-metadata");
  std::vector<fs::path> frags;
  for (const auto& e : fs::directory_iterator(dir / "__fragments")) frags.push_back(e.path());
  std::sort(frags.begin(), frags.end());
  for (const char* file : {"a0.tdb", "a2.tdb", "a2_validity.tdb"}) fs::resize_file(frags.back() / file, 0);
  auto damaged = array::open(dir);

  const auto got = damaged.query().subarray(tile).aggregate(what);
  CHECK(std::get<std::int64_t>(got[0]) == sum);
  CHECK(std::get<std::int64_t>(got[1]) == *std::min_element(v.begin(), v.end()));
  CHECK(std::get<std::int64_t>(got[2]) == *std::max_element(v.begin(), v.end()));
  CHECK(std::get<std::uint64_t>(got[3]) == nulls);
  CHECK(nulls > 0);
  CHECK(std::get<std::uint64_t>(got[4]) == 100);
  CHECK(std::abs(std::get<double>(got[5]) - fsum / static_cast<double>(100 - nulls)) <= 1e-12 * std::abs(fsum));

  CHECK_THROWS_AS((void)damaged.query().subarray(tile).read(), format_error);
  CHECK_THROWS_AS((void)damaged.query().subarray({{31, 39}, {21, 30}}).aggregate(aggregate_op::sum, "i64"), format_error);
  CHECK_THROWS_AS(
      (void)damaged.query().subarray(tile).where(array::field("i64") != std::int64_t{0}).aggregate(aggregate_op::sum, "i64"),
      format_error);
  // Nor does use_tile_metadata(false), which aggregates every cell.
  CHECK_THROWS_AS((void)damaged.query().subarray(tile).use_tile_metadata(false).aggregate(aggregate_op::sum, "i64"),
                  format_error);
  // COUNT needs no cells.
  CHECK(damaged.query().subarray(tile).where(array::field("i64") != std::int64_t{0}).count() == 100);
  fs::remove_all(dir);
}

// TileDB's Hilbert curve (tiledb/sm/misc/hilbert.h draws its first cells
// for two dimensions of 4 bits): the order of sparse arrays in Hilbert cell
// order, read in global order (recorded queries of tiledb/sparse_hilbert).
TEST_CASE("the Hilbert curve TileDB orders cells by") {
  using array::detail::hilbert_value;
  auto h = [](std::uint64_t x, std::uint64_t y) {
    std::uint64_t p[] = {x, y};
    return hilbert_value(p, 4);
  };
  const std::vector<std::pair<std::pair<int, int>, std::uint64_t>> drawn{
      {{0, 0}, 0}, {{1, 0}, 1}, {{1, 1}, 2}, {{0, 1}, 3}, {{0, 2}, 4},  {{0, 3}, 5},
      {{1, 3}, 6}, {{1, 2}, 7}, {{2, 2}, 8}, {{2, 3}, 9}, {{15, 0}, 255}};
  for (const auto& point : drawn) {  // (not a structured binding: CAPTURE's lambda takes it)
    const int x = point.first.first, y = point.first.second;
    CAPTURE(x);
    CAPTURE(y);
    CHECK(h(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y)) == point.second);
  }
  // Every point of the 16 x 16 grid has its own value, and neighbours on the
  // curve are neighbours in the grid.
  std::vector<std::pair<int, int>> at(256, {-1, -1});
  for (int x = 0; x < 16; ++x)
    for (int y = 0; y < 16; ++y) {
      const auto v = h(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
      REQUIRE(v < 256);
      CHECK(at[v].first == -1);
      at[v] = {x, y};
    }
  for (std::size_t v = 1; v < 256; ++v)
    CHECK(std::abs(at[v].first - at[v - 1].first) + std::abs(at[v].second - at[v - 1].second) == 1);
  // Buckets: numbers spread over the domain, strings by their first bytes.
  using array::detail::hilbert_bucket;
  CHECK(hilbert_bucket(std::int32_t{0}, std::int32_t{0}, std::int32_t{1023}, 31) == 0);
  CHECK(hilbert_bucket(std::int32_t{1023}, std::int32_t{0}, std::int32_t{1023}, 31) == (std::uint64_t{1} << 31) - 1);
  CHECK(hilbert_bucket(std::string_view("b"), 31) > hilbert_bucket(std::string_view("a"), 31));
}

} // namespace test_query
