// The fields of a fragment, shared by the reader and the writer: footer
// slots, types, filters and data file names across format versions.
#include "tilefmt/array/model/field.hpp"

#include "../../support/testing.hpp"

namespace test_field {

using namespace tilefmt;
using format::DataFile;

namespace {
format::ArraySchema sparse_schema() {
  auto s = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int32_t>("x", 0, 99, 10), format::make_string_dimension("s")},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32}),
                      format::make_attribute({.name = "b c/d",
                                              .type = format::Datatype::STRING_ASCII,
                                              .cell_val_num = format::var_num,
                                              .nullable = true})}});
  s.domain.dimensions.value[0].filters.value = format::compression_pipeline(format::FilterType::LZ4);
  return s;
}
} // namespace

TEST_CASE("field: attributes and dimensions take their footer slots, types and filters") {
  const auto s = sparse_schema();
  auto fields = array::fragment_fields(s, 22, false);
  REQUIRE(fields.size() == 4);
  CHECK(fields[0].name == "a");
  CHECK(fields[0].is_attribute());
  CHECK(fields[0].footer_index == 0);
  CHECK(fields[0].cell_size() == 4);
  CHECK(fields[1].var());
  CHECK(fields[1].nullable);
  CHECK(fields[1].cell_size() == 8);  // an offset per cell
  CHECK(fields[2].is_dimension());
  CHECK(fields[2].footer_index == 3);  // after the attributes and __coords
  CHECK(fields[2].filters == &s.domain.dimensions.value[0].filters.value);
  CHECK(fields[3].footer_index == 4);
  CHECK(fields[3].var());
  CHECK(fields[3].filters == &s.coords_filters);  // no filters of its own
  CHECK(array::fragment_fields(s, 22, true).size() == 2);  // dense fragments store no dimensions
  // Before format 7 no attribute is nullable; before 5 dimensions live in __coords.
  CHECK_FALSE(array::attribute_field(s, 1, 6).nullable);
  auto old = array::dimension_field(s, 0, 4);
  CHECK(old.in_coords_file);
  CHECK(old.footer_index == 2);
  CHECK(old.file_name(4) == "__coords.tdb");
}

TEST_CASE("field: data file names by format version") {
  const auto s = sparse_schema();
  const auto b = array::attribute_field(s, 1, 22);
  CHECK(b.file_name(22) == "a1.tdb");
  CHECK(b.file_name(22, DataFile::var) == "a1_var.tdb");
  CHECK(b.file_name(9, DataFile::validity) == "a1_validity.tdb");
  CHECK(b.file_name(8, DataFile::var) == "b c%2Fd_var.tdb");
  CHECK_THROWS_AS(b.file_name(7), format_error);  // '/' cannot be part of a file name
  CHECK(array::attribute_field(s, 0, 7).file_name(7) == "a.tdb");
  CHECK(array::dimension_field(s, 1, 22).file_name(22, DataFile::var) == "d1_var.tdb");
  CHECK(format::encode_name_v8("<>\\|\"!#$%&'()*+,/:;=?@[]") ==
        "%20%2D%30%3C%22%21%23%24%25%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D");
}

TEST_CASE("field: the fields TileDB adds to consolidated fragments") {
  const auto s = sparse_schema();
  format::FragmentContext ctx;
  ctx.num_attributes = 2;
  ctx.dims = {{format::Datatype::INT32, false}, {format::Datatype::STRING_ASCII, true}};
  CHECK(array::special_fields(s, ctx).empty());
  ctx.has_timestamps = true;
  ctx.has_delete_meta = true;
  auto f = array::special_fields(s, ctx);
  REQUIRE(f.size() == 3);
  CHECK(f[0].name == "__timestamps");
  CHECK(f[0].footer_index == 5);
  CHECK(f[0].special());
  CHECK(f[0].file_name(14) == "t.tdb");
  CHECK(f[1].file_name(15) == "dt.tdb");
  CHECK(f[2].file_name(15) == "dci.tdb");
  CHECK(f[2].footer_index == 7);
  CHECK(f[2].type == format::Datatype::UINT64);
}

} // namespace test_field
