// A dense read's coordinates (query::coordinates) and query::max_cells:
// each cell's coordinates are checked against the value written there (a
// function of the coordinates), over several ranges per dimension, negative
// coordinates, both layouts, and in batches.
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

#include <cstdint>
#include <tuple>
#include <vector>

#include "../../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_dense_coordinates {

using namespace tilefmt;

namespace {

// x in [-4, 5], y in [0, 7], z in [-3, 2] (int16: a dense array's
// dimensions share one type); v = 1000 x + 10 y + z.
std::int64_t value_at(std::int64_t x, std::int64_t y, std::int64_t z) { return 1000 * x + 10 * y + z; }

std::shared_ptr<storage::memory> cube() {
  auto st = std::make_shared<storage::memory>();
  array::create("/cube",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int16_t>("x", -4, 5, 3),
                                    format::make_dimension<std::int16_t>("y", 0, 7, 4),
                                    format::make_dimension<std::int16_t>("z", -3, 2, 2)},
                     .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::INT64})}}),
                {.storage = st});
  array::dense_writer w("/cube", {{-4, 5}, {0, 7}, {-3, 2}}, array::cell_layout::row_major, st);
  std::vector<std::int64_t> v;
  for (std::int64_t x = -4; x <= 5; ++x)
    for (std::int64_t y = 0; y <= 7; ++y)
      for (std::int64_t z = -3; z <= 2; ++z) v.push_back(value_at(x, y, z));
  w.set("v", v);
  w.commit({.timestamp = 1});
  return st;
}

using ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

std::vector<std::int64_t> axis(const ranges& rs) {
  std::vector<std::int64_t> out;
  for (const auto& [lo, hi] : rs)
    for (auto i = lo; i <= hi; ++i) out.push_back(i);
  return out;
}

// The cells in the layout's order, by nested loops.
std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> expected(const ranges& xs, const ranges& ys,
                                                                          const ranges& zs, bool row_major) {
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> out;
  if (row_major) {
    for (auto x : axis(xs))
      for (auto y : axis(ys))
        for (auto z : axis(zs)) out.emplace_back(x, y, z);
  } else {
    for (auto z : axis(zs))
      for (auto y : axis(ys))
        for (auto x : axis(xs)) out.emplace_back(x, y, z);
  }
  return out;
}

array::query query_of(const array::array_reader& arr, const ranges& xs, const ranges& ys, const ranges& zs,
                      array::query_layout layout) {
  auto q = arr.query().layout(layout).coordinates(true);
  for (const auto& [lo, hi] : xs) q.add_range(0, lo, hi);
  for (const auto& [lo, hi] : ys) q.add_range(1, lo, hi);
  for (const auto& [lo, hi] : zs) q.add_range(2, lo, hi);
  return q;
}

void check_cells(const array::query_result& r, const ranges& xs, const ranges& ys, const ranges& zs,
                 bool row_major) {
  const auto want = expected(xs, ys, zs, row_major);
  REQUIRE(r.cell_num() == want.size());
  CHECK(r.names() == std::vector<std::string>{"x", "y", "z", "v"});
  const auto x = r.get<std::int16_t>("x");
  const auto y = r.get<std::int16_t>("y");
  const auto z = r.get<std::int16_t>("z");
  const auto v = r.get<std::int64_t>("v");
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(std::tuple<std::int64_t, std::int64_t, std::int64_t>(x[i], y[i], z[i]) == want[i]);
    CHECK(v[i] == value_at(x[i], y[i], z[i]));
  }
}

} // namespace

TEST_CASE("dense coordinates: each cell's, in row-major and column-major order, over several ranges") {
  const auto st = cube();
  const auto arr = array::open("/cube", {.storage = st});
  const std::vector<std::tuple<ranges, ranges, ranges>> boxes = {
      {{{-4, 5}}, {{0, 7}}, {{-3, 2}}},                   // everything
      {{{-2, 1}}, {{3, 3}}, {{0, 2}}},                    // one range each, one of one cell
      {{{4, 5}, {-4, -3}}, {{6, 7}, {0, 1}, {4, 4}}, {{-3, -3}, {1, 2}}},  // several, not sorted
  };
  for (const auto& [xs, ys, zs] : boxes) {
    for (bool row_major : {true, false}) {
      CAPTURE(row_major);
      const auto layout = row_major ? array::query_layout::row_major : array::query_layout::col_major;
      const auto q = query_of(arr, xs, ys, zs, layout);
      CHECK(q.fields() == std::vector<std::string>{"x", "y", "z", "v"});
      check_cells(q.read(), xs, ys, zs, row_major);
      CHECK(q.max_cells() == expected(xs, ys, zs, row_major).size());
      // In batches (slabs of the slowest dimension), put together.
      auto parts = q.batches(600);
      std::vector<std::int64_t> xs_read, vs_read;
      std::size_t n = 0;
      while (auto part = parts.next()) {
        const auto x = part->get<std::int16_t>("x");
        const auto v = part->get<std::int64_t>("v");
        xs_read.insert(xs_read.end(), x.begin(), x.end());
        vs_read.insert(vs_read.end(), v.begin(), v.end());
        ++n;
      }
      const auto whole = q.read();
      const auto wx = whole.get<std::int16_t>("x");
      const auto wv = whole.get<std::int64_t>("v");
      CHECK(xs_read == std::vector<std::int64_t>(wx.begin(), wx.end()));
      CHECK(vs_read == std::vector<std::int64_t>(wv.begin(), wv.end()));
      if (whole.cell_num() > 40) CHECK(n > 1);
    }
  }
  // Without coordinates(true), a dense result is its attributes.
  CHECK(arr.query().read().names() == std::vector<std::string>{"v"});
  CHECK(arr.query().fields() == std::vector<std::string>{"v"});
}

TEST_CASE("dense coordinates: global order is refused by name") {
  const auto st = cube();
  const auto arr = array::open("/cube", {.storage = st});
  CHECK_THROWS_WITH_AS((void)arr.query().coordinates(true).layout(array::query_layout::global_order).read(),
                       "tilefmt: query: a dense array's coordinates are returned in row-major and column-major "
                       "layouts only",
                       std::invalid_argument);
}

TEST_CASE("max_cells: at least the sparse result, exact where every tile in the box is read whole") {
  auto st = std::make_shared<storage::memory>();
  array::create("/s",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 0, 99, 10)},
                                           .attributes = {format::make_attribute({.name = "a"})},
                                           .capacity = 4}),
                {.storage = st});
  for (std::uint64_t t = 1; t <= 2; ++t) {  // two fragments, 20 cells each, 5 tiles of 4
    array::sparse_writer w("/s", st);
    std::vector<std::int32_t> r, a;
    for (std::int32_t i = 0; i < 20; ++i) r.push_back(i * 5 + static_cast<std::int32_t>(t) - 1), a.push_back(i);
    w.set_coords("r", r).set("a", a);
    w.commit({.timestamp = t});
  }
  const auto arr = array::open("/s", {.storage = st});
  CHECK(arr.query().max_cells() == 40);
  CHECK(arr.query().read().cell_num() == 40);
  for (const auto& box : std::vector<std::pair<std::int32_t, std::int32_t>>{{0, 0}, {12, 33}, {95, 99}, {40, 41}}) {
    const auto [lo, hi] = box;
    CAPTURE(box.first);
    const auto q = arr.query().add_range(0, lo, hi);
    const auto bound = q.max_cells();
    const auto got = q.read().cell_num();
    CHECK(bound >= got);
    CHECK(bound <= 16);  // two tiles of each fragment at most
  }
}

} // namespace test_dense_coordinates
