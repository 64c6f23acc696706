// format/print.hpp: schemas, pipelines and values in words, as text and JSON.
#include "tilefmt/format/print.hpp"

#include "../support/testing.hpp"

namespace test_print {

using namespace tilefmt;
using format::Datatype;

TEST_CASE("values by datatype, text and JSON") {
  std::vector<std::byte> v(8);
  codec::store_le<std::int32_t>(v.data(), -5);
  codec::store_le<std::int32_t>(v.data() + 4, 7);
  const std::string text = format::values_to_text(Datatype::INT32, v);
  CHECK(text.find("-5") != std::string::npos);
  CHECK(text.find("7") != std::string::npos);
  std::vector<std::byte> nan(8);
  codec::store_le<double>(nan.data(), std::numeric_limits<double>::quiet_NaN());
  CHECK(format::values_to_text(Datatype::FLOAT64, nan, true).find("\"NaN\"") != std::string::npos);
  // Strings are quoted by codec::json_string: bytes that are not UTF-8 stay valid JSON.
  CHECK(format::values_to_text(Datatype::STRING_ASCII, testing::text_bytes("a\"\x80"), true).find("\\u0080") !=
        std::string::npos);
}

TEST_CASE("pipelines and schemas in words") {
  format::FilterPipeline p;
  p.filters.value.push_back(format::Filter{format::FilterType::ZSTD, {testing::hex_bytes("03000000")}});
  const std::string text = format::pipeline_to_text(p, 22);
  CHECK(text.find("ZSTD") != std::string::npos);
  CHECK(format::pipeline_to_json(p, 22).find("\"ZSTD\"") != std::string::npos);
  const auto s = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("d", 1, 10, 5)},
       .attributes = {format::make_attribute({.name = "a", .type = Datatype::FLOAT32})}});
  const std::string json = format::schema_to_json(s);
  CHECK(json.front() == '{');
  CHECK(json.find("\"a\"") != std::string::npos);
  CHECK(format::schema_to_text(s).find("FLOAT32") != std::string::npos);
}

} // namespace test_print
