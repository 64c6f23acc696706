// Deleting cells: the delete commits are byte for byte those TileDB wrote
// for the same conditions (tests/data/time_travel/sparse_deletes, written by
// TileDB-Py 0.36.1), readers hide the cells, and what TileDB refuses is
// refused. An update commit TileDB wrote reads as the delete commit of its
// condition.
#include "tilefmt/array/maintain/delete.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "../../support/result_rows.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

namespace test_delete {

using namespace tilefmt;
namespace fs = std::filesystem;
using array::field;

namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-delete-writer-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

/// Every cell of a read, sorted (a multiset: unordered reads).
std::vector<std::string> cells_of(const array::query_result& r) {
  auto out = testing::rows(r);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("the delete commits TileDB-Py wrote are written again byte for byte, and hide the same cells") {
  const fs::path original = fs::path(TILEFMT_TEST_DATA) / "time_travel" / "sparse_deletes" / "array";
  const fs::path root = testing::copy_to_temp(original, "delete-twin");
  std::vector<fs::path> dels;
  for (const auto& e : fs::directory_iterator(root / "__commits"))
    if (e.path().extension() == ".del") dels.push_back(e.path());
  std::sort(dels.begin(), dels.end());
  REQUIRE(dels.size() == 2);
  storage::local st;
  for (const auto& d : dels) {
    CAPTURE(d.filename().string());
    const auto bytes = st.read(d);
    fs::remove(d);
    // TileDB stores the negated condition: negate it back to the one deleted by.
    auto stored = codec::decode<format::ConditionNode>(filter::read_generic_tile(bytes).payload);
    const array::condition c(array::detail::negated(std::move(stored)));
    const auto name = format::parse_timestamped_name(d.stem().string());
    CHECK(array::delete_cells(root, c, {.timestamp = name.t1, .label = name.uuid}) == d.filename().string());
    CHECK(st.read(d) == bytes);
  }
  const auto layout = array::query_layout::unordered;
  CHECK(cells_of(array::open(root).query().layout(layout).read()) ==
        cells_of(array::open(original).query().layout(layout).read()));
  fs::remove_all(root);
}

TEST_CASE("an update commit TileDB wrote: decoded and encoded again byte for byte, and read as a delete of its condition") {
  // tests/data/time_travel/sparse_updates: a write, an update commit
  // (libtiledb 2.30's experimental update query: where a < 0, set a = 0),
  // a write rewriting some cells. TileDB's readers take the commit's
  // condition as a delete commit's and leave its values unused.
  const fs::path original = fs::path(TILEFMT_TEST_DATA) / "time_travel" / "sparse_updates" / "array";
  const fs::path root = testing::copy_to_temp(original, "update-as-delete");
  fs::path upd;
  for (const auto& e : fs::directory_iterator(root / "__commits"))
    if (e.path().extension() == ".upd") upd = e.path();
  REQUIRE(!upd.empty());
  storage::local st;
  const auto payload = filter::read_generic_tile(st.read(upd)).payload;
  const auto commit = codec::decode<format::UpdateCommit>(payload);
  CHECK(codec::encode(commit) == payload);
  REQUIRE(commit.values.value.size() == 1);
  CHECK(commit.values.value[0].field_name.value == "a");
  CHECK(commit.values.value[0].value.value == std::vector<std::byte>(8, std::byte{0}));  // int64 0
  REQUIRE(!commit.condition.is_expression());
  CHECK(commit.condition.value().op == format::QueryConditionOp::GE);  // a < 0, negated as stored
  CHECK(commit.condition.value().field_name.value == "a");

  const auto layout = array::query_layout::unordered;
  const auto as_read = array::open(original).query().layout(layout).read();
  // The update hides cells: the first fragment wrote some with a < 0.
  const auto arr = array::open(original);
  REQUIRE(arr.fragments().size() == 2);
  const auto first = arr.fragments()[0].read<std::int64_t>("a");
  CHECK(std::any_of(first.begin(), first.end(), [](std::int64_t v) { return v < 0; }));
  CHECK(as_read.cell_num() < first.size() + arr.fragments()[1].cell_num());
  // The same array with a delete commit of the same condition at the same
  // time instead reads the same.
  fs::remove(upd);
  const auto name = format::parse_timestamped_name(upd.stem().string());
  array::delete_cells(root, array::condition(array::detail::negated(commit.condition)),
                      {.timestamp = name.t1, .label = name.uuid});
  CHECK(cells_of(array::open(root).query().layout(layout).read()) == cells_of(as_read));
  fs::remove_all(root);
}

TEST_CASE("delete_cells hides the cells from readers at or after its timestamp; TileDB's refusals") {
  const fs::path root = scratch("api");
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("t", 0, 1000, 100)},
       .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::INT32}),
                      format::make_attribute(
                          {.name = "s", .type = format::Datatype::STRING_ASCII, .cell_val_num = format::var_num})}});
  array::create(root, schema, {.timestamp = 1700000000000});
  std::vector<std::int64_t> t;
  std::vector<std::int32_t> v;
  std::vector<std::string> s;
  for (int i = 0; i < 20; ++i) {
    t.push_back(i * 10);
    v.push_back(i);
    s.push_back(i % 2 ? "odd" : "even");
  }
  array::sparse_writer(root).set_coords("t", t).set("v", v).set_var("s", s).commit({.timestamp = 1700000000001});
  array::delete_cells(root, field("v") < std::int32_t{5} || (field("s") == "odd" && field("t") >= std::int64_t{150}),
                      {.timestamp = 1700000000002});
  // v < 5: 0..4; odd with t >= 150: 15, 17, 19.
  const auto after = array::open(root).query().layout(array::query_layout::row_major).read();
  const auto got = after.get<std::int32_t>("v");
  CHECK(std::vector<std::int32_t>(got.begin(), got.end()) ==
        std::vector<std::int32_t>{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 18});
  CHECK(array::open(root, {.timestamp_end = 1700000000001}).query().read().cell_num() == 20);

  CHECK_THROWS_AS(array::delete_cells(root, field("nope") == 1), std::invalid_argument);
  CHECK_THROWS_AS(array::delete_cells(root, !(field("v") == std::int32_t{1})), std::invalid_argument);
  CHECK_THROWS_AS(array::delete_cells(root, field("v") == std::int64_t{1}), std::invalid_argument);  // 8 bytes for an int32

  const fs::path dense = scratch("dense");
  array::create(dense, format::make_array_schema(
                           {.type = format::ArrayType::DENSE,
                            .dimensions = {format::make_dimension<std::int32_t>("d", 1, 4, 2)},
                            .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}}));
  CHECK_THROWS_AS(array::delete_cells(dense, field("a") == std::int32_t{1}), std::invalid_argument);
  const fs::path old = scratch("v15");
  array::create(old, schema, {.format_version = 15});
  CHECK_THROWS_AS(array::delete_cells(old, field("v") == std::int32_t{1}), std::invalid_argument);
  fs::remove_all(root);
  fs::remove_all(dense);
  fs::remove_all(old);
}

} // namespace test_delete
