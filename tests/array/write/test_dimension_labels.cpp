// Dimension labels made by array::create (write_options::dimension_labels):
// the references in the schema as TileDB writes them, a label array per
// label with TileDB's schema (dense, "index" like the labelled dimension,
// an ordered "label" attribute), label values written and read back, and
// what TileDB refuses refused before anything is made. Python's
// test_dimension_labels.py checks the same arrays against TileDB-Py's.
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"

#include <cstdint>
#include <vector>

#include "../../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_dimension_labels {

using namespace tilefmt;

namespace {

format::ArraySchema grid() {
  return format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("rows", 1, 8, 4),
                      format::make_dimension<std::int32_t>("cols", 0, 5, 3)},
       .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::FLOAT64})}});
}

std::vector<array::dimension_label_options> three_labels() {
  std::vector<array::dimension_label_options> out(3);
  out[0] = {.dimension = 1, .name = "x", .order = format::DataOrder::INCREASING, .type = format::Datatype::FLOAT64};
  out[1] = {.dimension = 0,
            .name = "depth",
            .order = format::DataOrder::DECREASING,
            .type = format::Datatype::INT16,
            .filters = format::compression_pipeline(format::FilterType::ZSTD),
            .tile_extent = testing::bytes_of({2, 0, 0, 0})};
  out[2] = {.dimension = 0, .name = "name", .order = format::DataOrder::INCREASING,
            .type = format::Datatype::STRING_ASCII};
  return out;
}

} // namespace

TEST_CASE("dimension labels: references in the schema, a label array each, values written and read back") {
  auto st = std::make_shared<storage::memory>();
  array::create("/a", grid(), {.storage = st, .dimension_labels = three_labels()});
  const auto arr = array::open("/a", {.storage = st});
  const auto& refs = arr.schema().dimension_labels.value.value;
  REQUIRE(refs.size() == 3);
  // Numbered in the order given, as TileDB's ArraySchema::add_dimension_label numbers them.
  CHECK(refs[0].name.value == "x");
  CHECK(refs[0].dimension_index == 1);
  CHECK(refs[0].uri.value == "__labels/l0");
  CHECK(refs[1].uri.value == "__labels/l1");
  CHECK(refs[2].uri.value == "__labels/l2");
  CHECK(refs[1].label_order == format::DataOrder::DECREASING);
  CHECK(refs[2].label_cell_val_num == format::var_num);
  CHECK(refs[0].label_cell_val_num == 1);
  for (const auto& r : refs) {
    CHECK(r.relative_uri);
    CHECK_FALSE(r.is_external);
    CHECK(r.label_attr_name.value == "label");
  }

  // The label array of "depth": the labelled dimension's type and domain,
  // the tile extent given, the label's order on its attribute.
  const auto depth = array::open("/a/__labels/l1", {.storage = st});
  const auto& s = depth.schema();
  CHECK(s.array_type == format::ArrayType::DENSE);
  REQUIRE(s.domain.dimensions.size() == 1);
  const auto& index = s.domain.dimensions.value[0];
  CHECK(index.name.value == "index");
  CHECK(index.type.value == format::Datatype::INT32);
  CHECK(index.domain_as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 8});
  CHECK(index.tile_extent_as<std::int32_t>() == std::int32_t{2});
  CHECK(index.filters.value.filters.value.empty());
  REQUIRE(s.attributes.size() == 1);
  CHECK(s.attributes.value[0].name.value == "label");
  CHECK(s.attributes.value[0].type == format::Datatype::INT16);
  CHECK(s.attributes.value[0].order.value == format::DataOrder::DECREASING);
  CHECK(s.attributes.value[0].filters == format::compression_pipeline(format::FilterType::ZSTD));
  // Without a tile extent given, the dimension's.
  const auto x = array::open("/a/__labels/l0", {.storage = st});
  CHECK(x.schema().domain.dimensions.value[0].tile_extent_as<std::int32_t>() == std::int32_t{3});
  CHECK(x.schema().attributes.value[0].order.value == format::DataOrder::INCREASING);
  CHECK(array::open("/a/__labels/l2", {.storage = st}).schema().attributes.value[0].is_var());

  // Label values are written as any dense array's, and read back.
  array::dense_writer w("/a/__labels/l1", {{3, 6}}, array::cell_layout::row_major, st);
  w.set("label", std::vector<std::int16_t>{40, 30, 20, 10});
  w.commit({.timestamp = 5});
  const auto r = array::open("/a/__labels/l1", {.storage = st}).query().subarray({{3, 6}}).read();
  const auto got = r.get<std::int16_t>("label");
  CHECK(std::vector<std::int16_t>(got.begin(), got.end()) == std::vector<std::int16_t>{40, 30, 20, 10});
}

TEST_CASE("dimension labels: what TileDB refuses is refused, and nothing is made") {
  const auto refused = [](std::vector<array::dimension_label_options> labels, format::ArraySchema schema = grid(),
                          std::uint32_t version = format::written_version) {
    auto st = std::make_shared<storage::memory>();
    CHECK_THROWS_AS(
        array::create("/a", std::move(schema), {.storage = st, .format_version = version, .dimension_labels = labels}),
        std::invalid_argument);
    CHECK_FALSE(array::is_array(*st, "/a"));
  };
  using O = array::dimension_label_options;
  refused({O{.dimension = 2, .name = "l"}});                                      // no such dimension
  refused({O{.dimension = 0, .name = ""}});                                       // no name
  refused({O{.dimension = 0, .name = "l", .order = format::DataOrder::UNORDERED}});  // unordered
  refused({O{.dimension = 0, .name = "v"}});                                      // an attribute's name
  refused({O{.dimension = 0, .name = "cols"}});                                   // a dimension's name
  refused({O{.dimension = 0, .name = "l"}, O{.dimension = 1, .name = "l"}});      // twice
  refused({O{.dimension = 0, .name = "l", .type = format::Datatype::STRING_UTF8}});  // not a label type
  refused({O{.dimension = 0, .name = "l", .tile_extent = testing::bytes_of({2})}});  // extent of the wrong size
  refused({O{.dimension = 0, .name = "l"}}, grid(), 17);                         // before format 18
  // Labels on float dimensions: TileDB makes labels on integer, date and time dimensions only.
  refused({O{.dimension = 0, .name = "l"}},
          format::make_array_schema(
              {.type = format::ArrayType::SPARSE,
               .dimensions = {format::make_dimension<double>("f", 0.0, 1.0, 0.5)},
               .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::FLOAT64})}}));
}

} // namespace test_dimension_labels
