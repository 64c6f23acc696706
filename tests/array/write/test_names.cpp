// The names TileDB allows and refuses: "__" starts only attribute names
// TileDB keeps for itself (dimensions may have it: TileDB-Py's from_numpy
// names its `__dim_0`, ..., from_pandas an unnamed index `__tiledb_rows`),
// an attribute may have no name (TileDB-Py's from_numpy default) where its
// files are numbered, and no name is used twice.
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

#include "../../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_names {

using namespace tilefmt;

namespace {
format::ArraySchema schema(std::string dim, std::string attr) {
  return format::make_array_schema({.type = format::ArrayType::DENSE,
                                    .dimensions = {format::make_dimension<std::int64_t>(std::move(dim), 0, 9, 5)},
                                    .attributes = {format::make_attribute({.name = std::move(attr)})}});
}
} // namespace

TEST_CASE("names: dimensions may start with \"__\", an attribute may have none; TileDB's own are refused") {
  auto st = std::make_shared<storage::memory>();
  array::create("/np", schema("__dim_0", ""), {.storage = st});
  {
    array::dense_writer w("/np", {{0, 9}}, array::cell_layout::row_major, st);
    std::vector<std::int32_t> v(10);
    for (int i = 0; i < 10; ++i) v[static_cast<std::size_t>(i)] = i * i;
    w.set("", v);
    w.commit({.timestamp = 3});
  }
  auto arr = array::open("/np", {.storage = st});
  const auto r = arr.query().subarray({{2, 4}}).read();
  const auto got = r.get<std::int32_t>("");
  CHECK(std::vector<std::int32_t>(got.begin(), got.end()) == std::vector<std::int32_t>{4, 9, 16});

  auto refused = [&](const format::ArraySchema& s, std::uint32_t version) {
    CHECK_THROWS_AS(array::create("/bad", s, {.storage = st, .format_version = version}), std::invalid_argument);
  };
  refused(schema("d", "__a"), format::written_version);  // TileDB's: __coords, __timestamps, ...
  refused(schema("", "a"), format::written_version);
  refused(schema("a", "a"), format::written_version);    // used twice
  refused(schema("d", ""), 8);                          // files named after the attribute before format 9
  array::create("/v9", schema("d", ""), {.storage = st, .format_version = 9});
}

} // namespace test_names
