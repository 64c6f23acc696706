// Evolving a schema: the new schema file is byte for byte the one TileDB
// wrote for the same evolution (tests/data/time_travel/schema_evolution_sparse,
// written by TileDB-Py 0.36.1); fragments before and after read as TileDB
// reads them; what TileDB refuses is refused.
#include "tilefmt/array/maintain/schema_evolution.hpp"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <utility>
#include <vector>

#include "../../support/testing.hpp"
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

namespace test_schema_evolution {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-evolution-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

format::ArraySchema schema_file(const fs::path& p) {
  return codec::decode<format::ArraySchema>(filter::read_generic_tile(storage::local{}.read(p)).payload);
}

} // namespace

TEST_CASE("the schema TileDB-Py evolved is written again byte for byte") {
  const fs::path original = fs::path(TILEFMT_TEST_DATA) / "time_travel" / "schema_evolution_sparse" / "array";
  std::vector<fs::path> schemas;
  for (const auto& e : fs::directory_iterator(original / "__schema"))
    if (e.is_regular_file()) schemas.push_back(e.path());
  std::sort(schemas.begin(), schemas.end());
  REQUIRE(schemas.size() == 2);
  const auto first = schema_file(schemas[0]), second = schema_file(schemas[1]);
  REQUIRE(second.attributes.size() == first.attributes.size() + 1);

  const fs::path root = scratch("twin");
  const auto n1 = format::parse_timestamped_name(schemas[0].filename().string());
  array::create(root, first, {.timestamp = n1.t1, .label = n1.uuid, .format_version = first.version.value});
  CHECK(storage::local{}.read(root / "__schema" / schemas[0].filename()) == storage::local{}.read(schemas[0]));
  const auto n2 = format::parse_timestamped_name(schemas[1].filename().string());
  const std::string name = array::schema_evolution()
                               .add_attribute(second.attributes.value.back())
                               .evolve(root, {.timestamp = n2.t1, .label = n2.uuid});
  CHECK(name == schemas[1].filename().string());
  CHECK(storage::local{}.read(root / "__schema" / name) == storage::local{}.read(schemas[1]));
  fs::remove_all(root);
}

TEST_CASE("fragments before and after an evolution: each names its schema, reads fill the added attribute") {
  const fs::path root = scratch("api");
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("d", 1, 8, 4)},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32}),
                      format::make_attribute({.name = "old", .type = format::Datatype::UINT8})}});
  const std::string s1 = array::create(root, schema, {.timestamp = 1700000000000});
  array::dense_writer(root, {{1, 8}})
      .set("a", std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8})
      .set("old", std::vector<std::uint8_t>(8, 9))
      .commit({.timestamp = 1700000000001});
  const std::string s2 = array::schema_evolution()
                             .add_attribute(format::make_attribute({.name = "b", .type = format::Datatype::FLOAT64}))
                             .drop_attribute("old")
                             .evolve(root, {.timestamp = 1700000000002});
  array::dense_writer(root, {{5, 8}})
      .set("a", std::vector<std::int32_t>{50, 60, 70, 80})
      .set("b", std::vector<double>{0.5, 0.25, 0.125, 1})
      .commit({.timestamp = 1700000000003});

  const auto arr = array::open(root);
  REQUIRE(arr.schema().attributes.size() == 2);
  CHECK(arr.schema().attributes[1].name.value == "b");
  REQUIRE(arr.fragments().size() == 2);
  CHECK(arr.fragments()[0].footer().array_schema_name.value.value == s1);
  CHECK(arr.fragments()[1].footer().array_schema_name.value.value == s2);
  const auto r = arr.query().read();
  const auto a = r.get<std::int32_t>("a");
  CHECK(std::vector<std::int32_t>(a.begin(), a.end()) == std::vector<std::int32_t>{1, 2, 3, 4, 50, 60, 70, 80});
  const auto b = r.get<double>("b");
  CHECK(std::isnan(b[0]));  // the first fragment has no b: its fill value
  CHECK(b[4] == 0.5);
  // Aggregates of the added attribute leave out the cells of the fragment
  // that predates it (they read as NaN): TileDB-Py 0.36.1 answers so on
  // the corpus's schema_evolution_dense arrays, with and without a
  // condition (the read path and the fold path), while COUNT counts every
  // cell of the subarray, as TileDB's dense COUNT does even under a condition.
  using array::aggregate_op;
  const std::vector<std::pair<aggregate_op, std::string>> what{{aggregate_op::sum, "b"}, {aggregate_op::mean, "b"},
                                                               {aggregate_op::min, "b"}, {aggregate_op::max, "b"},
                                                               {aggregate_op::count, ""}};
  for (const bool cond : {false, true}) {
    CAPTURE(cond);
    auto q = arr.query();
    // The condition passes the old fragment's cells and fails b = 0.25.
    if (cond) q.where(array::field("a") != std::int32_t{60});
    const auto got = q.aggregate(what);
    const double sum = cond ? 1.625 : 1.875;
    CHECK(std::get<double>(got[0]) == sum);
    CHECK(std::get<double>(got[1]) == sum / (cond ? 3 : 4));
    CHECK(std::get<double>(got[2]) == 0.125);
    CHECK(std::get<double>(got[3]) == 1);
    CHECK(std::get<std::uint64_t>(got[4]) == 8);
  }
  // Opened before the evolution: the first schema, with `old`.
  const auto before = array::open(root, {.timestamp_end = 1700000000001});
  CHECK(before.schema().attribute("old") != nullptr);

  CHECK_THROWS_AS(array::schema_evolution().drop_attribute("d").evolve(root), std::invalid_argument);
  CHECK_THROWS_AS(array::schema_evolution().drop_attribute("nope").evolve(root), std::invalid_argument);
  CHECK_THROWS_AS(array::schema_evolution()
                      .add_attribute(format::make_attribute({.name = "a", .type = format::Datatype::INT32}))
                      .evolve(root),
                  std::invalid_argument);
  CHECK_THROWS_AS(array::schema_evolution().drop_attribute("a").drop_attribute("b").evolve(root),
                  std::invalid_argument);  // no attribute left
  CHECK_THROWS_AS(array::schema_evolution()
                      .add_attribute(format::make_attribute({.name = "c", .type = format::Datatype::INT8}))
                      .evolve(root, {.timestamp = 1700000000001}),
                  std::invalid_argument);  // before the latest schema
  const fs::path old = scratch("v9");
  array::create(old, schema, {.format_version = 9});
  CHECK_THROWS_AS(array::schema_evolution()
                      .add_attribute(format::make_attribute({.name = "c", .type = format::Datatype::INT8}))
                      .evolve(old),
                  std::invalid_argument);
  fs::remove_all(root);
  fs::remove_all(old);
}

TEST_CASE("a sparse condition on an added attribute: the older fragment's cells fail it, and read its fill value") {
  const fs::path root = scratch("sparse");
  array::create(root, format::make_array_schema(
                          {.type = format::ArrayType::SPARSE,
                           .dimensions = {format::make_dimension<std::int32_t>("d", 1, 100, 10)},
                           .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}}),
                {.timestamp = 1700000000000});
  array::sparse_writer(root)
      .set_coords("d", std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8})
      .set("a", std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8})
      .commit({.timestamp = 1700000000001});
  array::schema_evolution()
      .add_attribute(format::make_attribute({.name = "b", .type = format::Datatype::FLOAT64}))
      .add_attribute(format::make_attribute({.name = "n", .type = format::Datatype::INT16, .nullable = true}))
      .evolve(root, {.timestamp = 1700000000002});
  array::sparse_writer(root)
      .set_coords("d", std::vector<std::int32_t>{11, 12, 13, 14})
      .set("a", std::vector<std::int32_t>{11, 12, 13, 14})
      .set("b", std::vector<double>{0.5, 0.25, 0.125, 1})
      .set("n", std::vector<std::int16_t>{1, 2, 3, 4}, std::vector<std::uint8_t>{1, 0, 1, 0})
      .commit({.timestamp = 1700000000003});
  const auto arr = array::open(root);
  // Every cell without a condition: the fill values come from the reader
  // that reads attribute tiles; with one, the fields the condition names
  // are written as it passes them, and must agree.
  const auto all = arr.query().subarray({{1, 20}}).read();
  const auto d = all.get<std::int32_t>("d");
  const auto a = all.get<std::int32_t>("a");
  const auto b = all.get<double>("b");
  const auto n = all.get<std::int16_t>("n");
  const auto& nv = all.validity("n");
  REQUIRE(d.size() == 12);
  CHECK(std::isnan(b[0]));
  CHECK(nv[0] == 0);
  using array::field;
  // As in TileDB (QueryCondition::apply_ast_node_sparse), a comparison or
  // null test of a field a fragment lacks fails on every cell of it.
  auto added = [&](std::size_t i) { return d[i] > 10; };
  const std::vector<std::pair<array::condition, std::function<bool(std::size_t)>>> cases{
      {field("a") < std::int32_t{3} || field("b") > 0.3, [&](std::size_t i) { return a[i] < 3 || (added(i) && b[i] > 0.3); }},
      {field("n").is_null() && field("a") != std::int32_t{5}, [&](std::size_t i) { return added(i) && !nv[i] && a[i] != 5; }},
      {field("n") >= std::int16_t{1} || field("b") < 0.2,
       [&](std::size_t i) { return added(i) && ((nv[i] && n[i] >= 1) || b[i] < 0.2); }},
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    CAPTURE(c);
    const auto got = arr.query().subarray({{1, 20}}).where(cases[c].first).read();
    std::vector<std::size_t> want;
    for (std::size_t i = 0; i < d.size(); ++i)
      if (cases[c].second(i)) want.push_back(i);
    REQUIRE(got.cell_num() == want.size());
    const auto gd = got.get<std::int32_t>("d");
    const auto ga = got.get<std::int32_t>("a");
    const auto gb = got.get<double>("b");
    const auto gn = got.get<std::int16_t>("n");
    const auto& gnv = got.validity("n");
    for (std::size_t k = 0; k < want.size(); ++k) {
      const std::size_t i = want[k];
      CHECK(gd[k] == d[i]);
      CHECK(ga[k] == a[i]);
      CHECK(std::memcmp(&gb[k], &b[i], sizeof(double)) == 0);
      CHECK(gnv[k] == nv[i]);
      CHECK(gn[k] == n[i]);
    }
  }
  fs::remove_all(root);
}

TEST_CASE("dimensions without filters: spelled out in the evolved schema from format 20, as libtiledb 2.17 on") {
  for (std::uint32_t v : {16u, 19u, 20u, 22u}) {
    CAPTURE(v);
    const fs::path root = scratch("dims-" + std::to_string(v));
    auto schema = format::make_array_schema(
        {.type = format::ArrayType::SPARSE,
         .dimensions = {format::make_dimension<std::int32_t>("d", 0, 99, 10)},
         .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
    schema.domain.dimensions.value[0].filters.value = {};
    schema.coords_filters = format::compression_pipeline(format::FilterType::ZSTD, -1);
    array::create(root, schema, {.timestamp = 1700000000000, .format_version = v});
    const std::string name = array::schema_evolution()
                                 .add_attribute(format::make_attribute({.name = "b", .type = format::Datatype::INT8}))
                                 .evolve(root, {.timestamp = 1700000000001});
    const auto evolved = schema_file(root / "__schema" / name);
    CHECK(evolved.domain.dimensions[0].filters.value.filters.size() == (v >= 20 ? 1u : 0u));
    fs::remove_all(root);
  }
}

namespace {

format::ArraySchema coded_schema() {
  auto color = format::make_attribute({.name = "color", .type = format::Datatype::INT8});
  color.enumeration_name.value.value = "colors";
  return format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("x", 0, 999, 100)},
       .attributes = {color},
       .capacity = 10});
}

std::vector<std::string> labels_of(const fs::path& root, const std::string& name) {
  return array::open(root).enumeration(name).string_values();
}

} // namespace

TEST_CASE("enumerations: written with the array, extended, added and dropped by evolutions; labels read and queried") {
  const fs::path root = scratch("enums");
  array::create(root, coded_schema(),
                {.timestamp = 1700000000000, .enumerations = {format::make_enumeration("colors", {"red", "green", "blue"})}});
  REQUIRE(labels_of(root, "colors") == std::vector<std::string>{"red", "green", "blue"});
  {
    array::sparse_writer f(root);
    f.set_coords<std::int64_t>("x", std::vector<std::int64_t>{1, 2, 3}).set<std::int8_t>("color", std::vector<std::int8_t>{2, 0, 1});
    f.commit({.timestamp = 1700000000010});
  }
  auto green = [&] {
    return array::open(root).query().where(array::field("color") == "green").read().get<std::int64_t>("x");
  };
  CHECK(green() == array::column<std::int64_t>{3});

  // An extension keeps the values first; a new file, the old one stays for earlier readers.
  CHECK_THROWS_AS(array::schema_evolution()
                      .extend_enumeration(format::make_enumeration("colors", {"red", "blue", "green", "teal"}))
                      .evolve(root, {.timestamp = 1700000000020}),
                  std::invalid_argument);
  auto shape = format::make_attribute({.name = "shape", .type = format::Datatype::UINT16});
  shape.enumeration_name.value.value = "shapes";
  array::schema_evolution()
      .extend_enumeration(format::make_enumeration("colors", {"red", "green", "blue", "teal"}))
      .add_enumeration(format::make_enumeration("shapes", {"circle", "square"}, true))
      .add_attribute(shape)
      .evolve(root, {.timestamp = 1700000000020});
  CHECK(labels_of(root, "colors") == std::vector<std::string>{"red", "green", "blue", "teal"});
  CHECK(labels_of(root, "shapes") == std::vector<std::string>{"circle", "square"});
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root / "__schema" / "__enumerations")) ++files;
  CHECK(files == 3);
  {
    array::open_options before;
    before.timestamp_end = 1700000000015;
    CHECK(array::open(root, before).enumeration("colors").string_values().size() == 3);
  }
  CHECK(green() == array::column<std::int64_t>{3});

  // In use: not dropped. Dropped with its attribute.
  CHECK_THROWS_AS(array::schema_evolution().drop_enumeration("shapes").evolve(root, {.timestamp = 1700000000030}),
                  std::invalid_argument);
  array::schema_evolution().drop_attribute("shape").drop_enumeration("shapes").evolve(root, {.timestamp = 1700000000030});
  CHECK_THROWS_AS(array::open(root).enumeration("shapes"), std::invalid_argument);
  // Refusals: an attribute naming no enumeration, a name given twice, before format 20.
  auto stray = format::make_attribute({.name = "stray", .type = format::Datatype::INT32});
  stray.enumeration_name.value.value = "nothing";
  CHECK_THROWS_AS(array::schema_evolution().add_attribute(stray).evolve(root, {.timestamp = 1700000000040}),
                  std::invalid_argument);
  CHECK_THROWS_AS(array::schema_evolution()
                      .add_enumeration(format::make_enumeration("a", {"x"}))
                      .add_enumeration(format::make_enumeration("a", {"y"})),
                  std::invalid_argument);
  CHECK_THROWS_AS(array::create(scratch("enums-v19"), coded_schema(),
                                {.format_version = 19, .enumerations = {format::make_enumeration("colors", {"red"})}}),
                  std::invalid_argument);
  fs::remove_all(root);
}

TEST_CASE("the current domain only grows, within the domain") {
  const fs::path root = scratch("current-domain");
  array::create(root, coded_schema(), {.timestamp = 1700000000000, .enumerations = {format::make_enumeration("colors", {"red"})}});
  auto grow = [&](std::int64_t lo, std::int64_t hi, std::uint64_t t) {
    array::schema_evolution().expand_current_domain({{format::fixed_range<std::int64_t>(lo, hi)}}).evolve(root, {.timestamp = t});
  };
  grow(10, 99, 1700000000010);
  auto cd = array::open(root).schema().current_domain.value;
  REQUIRE(!cd.empty);
  CHECK(cd.ndrectangle.value.ranges[0].as<std::int64_t>() == std::pair<std::int64_t, std::int64_t>{10, 99});
  // Reads stay inside it: a range outside is refused, as TileDB refuses it.
  CHECK_THROWS_AS(array::open(root).query().add_range("x", std::int64_t{5}, std::int64_t{20}).read(), std::invalid_argument);
  CHECK(array::open(root).query().add_range("x", std::int64_t{10}, std::int64_t{20}).read().cell_num() == 0);
  CHECK_THROWS_AS(grow(20, 99, 1700000000020), std::invalid_argument);   // shrinks
  CHECK_THROWS_AS(grow(0, 1000, 1700000000020), std::invalid_argument);  // past the domain
  CHECK_THROWS_AS(grow(50, 40, 1700000000020), std::invalid_argument);   // empty
  grow(0, 999, 1700000000020);
  CHECK(array::open(root).schema().current_domain.value.ndrectangle.value.ranges[0].as<std::int64_t>() ==
        std::pair<std::int64_t, std::int64_t>{0, 999});
  fs::remove_all(root);
}

} // namespace test_schema_evolution
