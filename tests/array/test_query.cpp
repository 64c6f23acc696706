// Queries on dense arrays: the cells TileDB-Py returns for the same queries
// (tests/data/queries/dense.txt, recorded by tests/interop/record_queries.py
// from the committed TileDB arrays), and hand-made arrays for each rule:
// the newest fragment wins, unwritten cells hold the fill value, time travel
// leaves later fragments out, layouts, bad subarrays.
#include "tilefmt/array/query.hpp"
#include "tilefmt/array/writer.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

std::vector<std::byte> unhex(const std::string& s) { return s == "-" ? std::vector<std::byte>{} : testing::hex_bytes(s); }

std::vector<std::uint64_t> numbers(const std::string& s) {
  std::vector<std::uint64_t> out;
  if (s == "-") return out;
  std::istringstream in(s);
  for (std::string n; std::getline(in, n, ',');) out.push_back(std::stoull(n));
  return out;
}

struct expected_attr {
  std::string name;
  std::uint64_t cells = 0;
  std::vector<std::byte> values;
  std::optional<std::vector<std::uint64_t>> offsets;
  std::optional<std::vector<std::byte>> validity;
};

struct recorded_query {
  std::string array;
  char order = 'C';
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  std::vector<expected_attr> attrs;
};

std::vector<recorded_query> recorded() {
  std::ifstream in(data / "queries" / "dense.txt");
  REQUIRE(in);
  std::vector<recorded_query> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "query") {
      recorded_query q;
      std::string ranges;
      words >> q.array >> q.order >> ranges;
      std::istringstream rs(ranges);
      for (std::string r; std::getline(rs, r, ',');) {
        const auto colon = r.find(':');
        q.ranges.emplace_back(std::stoll(r.substr(0, colon)), std::stoll(r.substr(colon + 1)));
      }
      out.push_back(std::move(q));
    } else if (kind == "attr") {
      expected_attr a;
      std::string values, offsets;
      words >> a.name >> a.cells >> values >> offsets;
      a.values = unhex(values);
      if (!offsets.empty()) a.offsets = numbers(offsets);
      out.back().attrs.push_back(std::move(a));
    } else if (kind == "validity") {
      std::string name, v;
      words >> name >> v;
      REQUIRE(out.back().attrs.back().name == name);
      out.back().attrs.back().validity = unhex(v);
    }
  }
  return out;
}

array::query_layout layout_of(char c) {
  return c == 'C' ? array::query_layout::row_major
         : c == 'F' ? array::query_layout::col_major
                    : array::query_layout::global_order;
}
} // namespace

TEST_CASE("dense queries return what TileDB-Py returns") {
  const auto queries = recorded();
  CHECK(queries.size() >= 200);
  std::map<std::string, array::array_reader> opened;
  std::size_t compared = 0;
  for (const auto& q : queries) {
    CAPTURE(q.array);
    CAPTURE(q.order);
    CAPTURE(q.ranges.size());
    auto it = opened.find(q.array);
    if (it == opened.end())
      it = opened.emplace(q.array, array::open(data / q.array, {.encryption_key = testing::test_array_key(q.array)}))
               .first;
    const auto r = it->second.query().subarray(q.ranges).layout(layout_of(q.order)).read();
    for (const auto& a : q.attrs) {
      CAPTURE(a.name);
      REQUIRE(r.cell_num() == a.cells);
      if (!a.validity) {
        CHECK(r.bytes(a.name) == a.values);
        if (a.offsets) CHECK(r.byte_offsets(a.name) == *a.offsets);
      } else {
        // TileDB-Py hands back null cells as masked values whose bytes it
        // does not keep (a var-size null cell reads ""): compare validity,
        // and the values of the cells that are not null.
        const auto& v = r.validity(a.name);
        CHECK(std::vector<std::byte>(reinterpret_cast<const std::byte*>(v.data()),
                                     reinterpret_cast<const std::byte*>(v.data()) + v.size()) == *a.validity);
        const auto& got = r.bytes(a.name);
        auto cell = [&](const std::vector<std::byte>& values, const std::vector<std::uint64_t>* offsets,
                        std::size_t c) {
          if (!offsets) {
            const std::size_t size = values.size() / a.cells;
            return std::vector<std::byte>(values.begin() + static_cast<std::ptrdiff_t>(c * size),
                                          values.begin() + static_cast<std::ptrdiff_t>((c + 1) * size));
          }
          const std::size_t end = c + 1 < offsets->size() ? (*offsets)[c + 1] : values.size();
          return std::vector<std::byte>(values.begin() + static_cast<std::ptrdiff_t>((*offsets)[c]),
                                        values.begin() + static_cast<std::ptrdiff_t>(end));
        };
        std::size_t differ = 0;
        for (std::size_t c = 0; c < a.cells; ++c)
          if (std::to_integer<int>((*a.validity)[c]) != 0 &&
              cell(got, a.offsets ? &r.byte_offsets(a.name) : nullptr, c) !=
                  cell(a.values, a.offsets ? &*a.offsets : nullptr, c))
            ++differ;
        CHECK(differ == 0);
      }
      ++compared;
    }
  }
  CHECK(compared >= 300);
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
  array::dense_fragment f("/a", {{b.r0, b.r1}, {b.c0, b.c1}}, array::cell_layout::row_major, st);
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
  CHECK(message({{1, 1}, {1, 1LL << 40}}).find("outside the domain") != std::string::npos);
  CHECK(message({{1, 1}}) == "tilefmt: query: the subarray has 1 ranges, the array 2 dimensions");
  CHECK(message({{1, 1}, {1, 1}}, {"nope"}) == "tilefmt: query: the array has no attribute \"nope\"");
  // Typed access checks the type.
  const auto r = arr.query().subarray({{1, 1}, {1, 1}}).read();
  CHECK_THROWS_AS((void)r.get<std::int64_t>("v"), std::invalid_argument);
  CHECK_THROWS_AS((void)r.get<char>("s"), std::invalid_argument);
  CHECK_THROWS_AS((void)r.validity("v"), std::invalid_argument);
  // Sparse arrays are not read by queries yet.
  auto sparse = array::open(data / "tiledb" / "sparse_2d_duplicates" / "array");
  CHECK_THROWS_AS((void)sparse.query().read(), std::invalid_argument);
}

TEST_CASE("one opened array, one query, many threads: each gets the single-threaded result") {
  const fs::path path = data / "tiledb" / "encrypted_dense" / "array";
  const auto arr = array::open(path, {.encryption_key = testing::test_array_key(path)});
  const auto q = arr.query().layout(array::query_layout::global_order);
  const auto expected = q.read();
  std::vector<int> agree(4, 0);
  std::vector<std::thread> pool;
  for (std::size_t w = 0; w < agree.size(); ++w)
    pool.emplace_back([&, w] {
      try {
        const auto r = q.read();
        agree[w] = r.bytes("a") == expected.bytes("a") && r.bytes("s") == expected.bytes("s") &&
                           r.byte_offsets("s") == expected.byte_offsets("s")
                       ? 1
                       : 2;
      } catch (...) {
        agree[w] = 3;
      }
    });
  for (auto& t : pool) t.join();
  CHECK(agree == std::vector<int>{1, 1, 1, 1});
}
