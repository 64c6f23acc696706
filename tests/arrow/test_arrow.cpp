// Query results through the Arrow C Data and C Stream interfaces
// (include/tilefmt/arrow/): formats, lengths, buffers (handed over, not
// copied, where Arrow's layout is TileDB's), bitmaps, offsets, lists,
// dictionaries, streams, errors, and release callbacks that free
// everything once (the sanitized builds catch a leak or a double free).
// pyarrow validates the same exports in python/tests/test_arrow.py.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/arrow/export.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/storage/memory.hpp"

#include "../support/testing.hpp"

namespace test_arrow {

using namespace tilefmt;
namespace fs = std::filesystem;
using format::Datatype;

namespace {

/// A sparse array in memory: int64 dimension x (10 cells, x = 0..9, space
/// tiles of 2), and
/// attributes of the kinds Arrow sees differently.
std::shared_ptr<storage::memory> make_array() {
  auto st = std::make_shared<storage::memory>();
  auto color = format::make_attribute({.name = "color", .type = Datatype::INT8, .nullable = true});
  color.enumeration_name.value.value = "colors";
  const auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("x", 0, 99, 2)},  // five space tiles: batches
       .attributes = {format::make_attribute({.name = "a", .type = Datatype::INT32}),
                      format::make_attribute({.name = "f", .type = Datatype::FLOAT64, .nullable = true}),
                      format::make_attribute(
                          {.name = "s", .type = Datatype::STRING_UTF8, .cell_val_num = format::var_num, .nullable = true}),
                      format::make_attribute({.name = "b", .type = Datatype::BOOL}),
                      format::make_attribute({.name = "pair", .type = Datatype::INT16, .cell_val_num = 2}),
                      format::make_attribute({.name = "v", .type = Datatype::UINT32, .cell_val_num = format::var_num}),
                      format::make_attribute({.name = "day", .type = Datatype::DATETIME_DAY}),
                      format::make_attribute({.name = "ms", .type = Datatype::DATETIME_MS}),
                      format::make_attribute({.name = "c", .type = Datatype::CHAR, .cell_val_num = format::var_num}),
                      color},
       .capacity = 4});
  array::write_options o{.storage = st};
  o.enumerations = {format::make_enumeration("colors", {"red", "green", "blue"})};
  array::create("/arr", schema, o);
  std::vector<std::int64_t> x;
  std::vector<std::int32_t> a;
  std::vector<double> f;
  std::vector<std::uint8_t> f_valid, s_valid, b, color_valid;
  std::vector<std::string> s, c;
  std::vector<std::int16_t> pair;
  std::vector<std::uint32_t> v;
  std::vector<std::uint64_t> v_offsets;
  std::vector<std::int64_t> day, ms;
  std::vector<std::int8_t> color_of;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    a.push_back(i * 10);
    f.push_back(i + 0.5);
    f_valid.push_back(i % 3 != 0);
    s.push_back(std::string(static_cast<std::size_t>(i), 'a' + i));
    s_valid.push_back(i != 4);
    b.push_back(i % 2);
    pair.push_back(static_cast<std::int16_t>(i));
    pair.push_back(static_cast<std::int16_t>(-i));
    v_offsets.push_back(v.size());  // in values
    for (int k = 0; k < i % 3; ++k) v.push_back(static_cast<std::uint32_t>(100 * i + k));
    day.push_back(18000 + i);
    ms.push_back(1'700'000'000'000 + i);
    c.push_back(std::string(1, static_cast<char>(i)));  // bytes, not text
    color_of.push_back(static_cast<std::int8_t>(i % 3));
    color_valid.push_back(i != 7);
  }
  array::sparse_writer("/arr", st)
      .set_coords<std::int64_t>("x", x)
      .set<std::int32_t>("a", a)
      .set<double>("f", f, f_valid)
      .set_var("s", s, s_valid)
      .set<std::uint8_t>("b", b)
      .set<std::int16_t>("pair", pair)
      .set_var<std::uint32_t>("v", std::span<const std::uint32_t>(v), std::span<const std::uint64_t>(v_offsets))
      .set<std::int64_t>("day", day)
      .set<std::int64_t>("ms", ms)
      .set_var("c", c)
      .set<std::int8_t>("color", color_of, color_valid)
      .commit({.storage = st});
  return st;
}

const ArrowSchema& child(const ArrowSchema& s, const std::string& name) {
  for (std::int64_t i = 0; i < s.n_children; ++i)
    if (name == s.children[i]->name) return *s.children[i];
  FAIL("no field " << name);
  throw std::logic_error("unreachable");
}
std::int64_t index_of(const ArrowSchema& s, const std::string& name) {
  for (std::int64_t i = 0; i < s.n_children; ++i)
    if (name == s.children[i]->name) return i;
  return -1;
}
bool bit(const void* bitmap, std::int64_t i) { return (static_cast<const std::uint8_t*>(bitmap)[i / 8] >> (i % 8)) & 1; }

} // namespace

TEST_CASE("a query result as one record batch: formats, buffers, bitmaps, offsets, lists, a dictionary") {
  auto st = make_array();
  const auto arr = array::open("/arr", {.storage = st});
  const auto q = arr.query().layout(array::query_layout::global_order);
  auto result = q.read();
  const void* a_data = result.bytes("a").data();  // handed over, not copied
  const void* s_data = result.bytes("s").data();
  ArrowSchema schema;
  ArrowArray batch;
  arrow::export_result(q, std::move(result), &schema, &batch);
  CHECK(std::string(schema.format) == "+s");
  REQUIRE(schema.n_children == 11);  // x, then ten attributes
  CHECK(batch.length == 10);
  CHECK(batch.n_children == 11);
  auto field = [&](const std::string& n) -> const ArrowArray& { return *batch.children[index_of(schema, n)]; };

  CHECK(std::string(child(schema, "x").format) == "l");
  CHECK(std::string(child(schema, "a").format) == "i");
  CHECK(field("a").buffers[1] == a_data);
  CHECK(static_cast<const std::int32_t*>(field("a").buffers[1])[9] == 90);
  CHECK(field("a").buffers[0] == nullptr);  // no nulls: no bitmap

  CHECK(std::string(child(schema, "f").format) == "g");
  CHECK((child(schema, "f").flags & ARROW_FLAG_NULLABLE) != 0);
  CHECK(field("f").null_count == 4);  // 0, 3, 6, 9
  CHECK_FALSE(bit(field("f").buffers[0], 3));
  CHECK(bit(field("f").buffers[0], 4));

  CHECK(std::string(child(schema, "s").format) == "U");
  const auto& sa = field("s");
  CHECK(sa.n_buffers == 3);
  CHECK(sa.buffers[2] == s_data);
  const auto* so = static_cast<const std::int64_t*>(sa.buffers[1]);
  CHECK(so[0] == 0);
  CHECK(so[10] == 45);  // the end: 0 + 1 + ... + 9 characters
  CHECK(std::string(static_cast<const char*>(sa.buffers[2]) + so[3], so[4] - so[3]) == "ddd");
  CHECK(sa.null_count == 1);

  CHECK(std::string(child(schema, "b").format) == "b");
  CHECK_FALSE(bit(field("b").buffers[1], 0));
  CHECK(bit(field("b").buffers[1], 1));

  CHECK(std::string(child(schema, "pair").format) == "+w:2");
  REQUIRE(field("pair").n_children == 1);
  CHECK(std::string(child(schema, "pair").children[0]->format) == "s");
  CHECK(field("pair").children[0]->length == 20);
  CHECK(static_cast<const std::int16_t*>(field("pair").children[0]->buffers[1])[7] == -3);

  CHECK(std::string(child(schema, "v").format) == "+L");
  const auto* vo = static_cast<const std::int64_t*>(field("v").buffers[1]);
  CHECK(vo[1] - vo[0] == 0);
  CHECK(vo[2] - vo[1] == 1);  // counted in values, not bytes
  CHECK(vo[3] - vo[2] == 2);
  CHECK(field("v").children[0]->length == vo[10]);
  CHECK(static_cast<const std::uint32_t*>(field("v").children[0]->buffers[1])[vo[2] + 1] == 201);

  CHECK(std::string(child(schema, "day").format) == "tdD");
  CHECK(static_cast<const std::int32_t*>(field("day").buffers[1])[2] == 18002);
  CHECK(std::string(child(schema, "ms").format) == "tsm:");
  CHECK(std::string(child(schema, "c").format) == "Z");

  const auto& cs = child(schema, "color");
  CHECK(std::string(cs.format) == "c");
  REQUIRE(cs.dictionary != nullptr);
  CHECK(std::string(cs.dictionary->format) == "U");
  const auto& ca = field("color");
  REQUIRE(ca.dictionary != nullptr);
  CHECK(ca.dictionary->length == 3);
  CHECK(ca.null_count == 1);
  const auto* dict_offsets = static_cast<const std::int64_t*>(ca.dictionary->buffers[1]);
  CHECK(std::string(static_cast<const char*>(ca.dictionary->buffers[2]) + dict_offsets[2], 4) == "blue");

  // Metadata: the TileDB type of every field.
  const char* md = child(schema, "day").metadata;
  REQUIRE(md != nullptr);
  std::int32_t pairs, klen, vlen;
  std::memcpy(&pairs, md, 4);
  std::memcpy(&klen, md + 4, 4);
  std::memcpy(&vlen, md + 8 + klen, 4);
  CHECK(pairs == 1);
  CHECK(std::string(md + 8, klen) == "tiledb.datatype");
  CHECK(std::string(md + 12 + klen, vlen) == "DATETIME_DAY");

  // A consumer may move a child out and release it after the parent.
  ArrowArray moved = *batch.children[index_of(schema, "s")];
  batch.children[index_of(schema, "s")]->release = nullptr;
  batch.release(&batch);
  CHECK((batch.release == nullptr));
  CHECK(std::string(static_cast<const char*>(moved.buffers[2]), 3) == "bcc");  // still there
  moved.release(&moved);
  schema.release(&schema);
  CHECK((schema.release == nullptr));
}

TEST_CASE("a query as a stream of batches: the schema first, batches that add up, then the end") {
  auto st = make_array();
  const auto arr = array::open("/arr", {.storage = st});
  const auto q = arr.query().attributes({"a", "s"}).layout(array::query_layout::global_order);
  ArrowArrayStream stream;
  arrow::export_stream(q, 64, &stream);  // a few cells a batch
  ArrowSchema schema;
  REQUIRE(stream.get_schema(&stream, &schema) == 0);
  CHECK(schema.n_children == 3);  // x, a, s
  schema.release(&schema);
  std::int64_t cells = 0, batches = 0, sum = 0;
  for (;;) {
    ArrowArray batch;
    REQUIRE(stream.get_next(&stream, &batch) == 0);
    if (batch.release == nullptr) break;
    ++batches;
    cells += batch.length;
    for (std::int64_t i = 0; i < batch.length; ++i) sum += static_cast<const std::int32_t*>(batch.children[1]->buffers[1])[i];
    batch.release(&batch);
  }
  CHECK(cells == 10);
  CHECK(batches > 1);
  CHECK(sum == 450);
  CHECK(stream.get_last_error(&stream) == nullptr);
  stream.release(&stream);
  CHECK((stream.release == nullptr));
}

TEST_CASE("an enumeration index past the dictionary (a damaged file) is an error, not a read out of bounds") {
  auto st = make_array();
  // The enumeration file rewritten with one label: indices 1 and 2 are past it.
  std::size_t rewritten = 0;
  for (const auto& e : st->list("/arr/__schema/__enumerations")) {
    const auto path = fs::path("/arr/__schema/__enumerations") / e.name;
    auto en = codec::decode<format::Enumeration>(filter::read_generic_tile(st->read(path)).payload);
    auto shorter = format::make_enumeration(en.name.value, {"red"});
    shorter.path_name = en.path_name;
    st->write(path, filter::write_generic_tile(codec::encode(shorter)));
    ++rewritten;
  }
  REQUIRE(rewritten == 1);
  const auto arr = array::open("/arr", {.storage = st});
  const auto q = arr.query().attributes({"color"});
  ArrowSchema schema;
  ArrowArray batch;
  CHECK_THROWS_WITH_AS(arrow::export_result(q, q.read(), &schema, &batch), doctest::Contains("past its enumeration"),
                       std::out_of_range);
  // The stream says so through get_next.
  ArrowArrayStream stream;
  arrow::export_stream(q, 1 << 20, &stream);
  ArrowArray part;
  CHECK(stream.get_next(&stream, &part) == EIO);
  CHECK(std::string(stream.get_last_error(&stream)).find("past its enumeration") != std::string::npos);
  stream.release(&stream);
}

} // namespace test_arrow
