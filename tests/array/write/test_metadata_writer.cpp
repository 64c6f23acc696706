// Writing array metadata: the `__meta` files are byte for byte those TileDB
// wrote for the same entries (tests/data/tiledb/metadata_all_types, written by
// TileDB-Py 0.36.1), and what is written reads back.
#include "tilefmt/array/write/metadata_writer.hpp"

#include <unistd.h>

#include <filesystem>

#include "../../support/testing.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/filter/generic_tile.hpp"

namespace test_metadata_writer {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-metadata-writer-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

format::ArraySchema small_schema() {
  return format::make_array_schema({.type = format::ArrayType::DENSE,
                                    .dimensions = {format::make_dimension<std::int32_t>("d", 1, 4, 2)},
                                    .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
}

} // namespace

TEST_CASE("each __meta file TileDB-Py wrote is written again byte for byte from its entries") {
  const fs::path original = fs::path(TILEFMT_TEST_DATA) / "tiledb" / "metadata_all_types" / "array";
  const fs::path root = testing::copy_to_temp(original, "metadata-twin");
  fs::remove_all(root / "__meta");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(original / "__meta")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 10);
  storage::local st;
  for (const auto& f : files) {
    CAPTURE(f.filename().string());
    const auto payload = filter::read_generic_tile(st.read(f)).payload;
    const auto entries = codec::decode<format::ArrayMetadata>(payload).entries.value;
    array::metadata_writer m(root);
    for (const auto& e : entries) m.put(e);
    const auto name = format::parse_timestamped_name(f.filename().string());
    CHECK(m.commit({.timestamp = name.t1, .label = name.uuid}) == f.filename().string());
    CHECK(st.read(root / "__meta" / f.filename()) == st.read(f));
  }
  // And the merged metadata reads as the original's.
  CHECK(array::open(root).metadata().to_json() == array::open(original).metadata().to_json());
  fs::remove_all(root);
}

TEST_CASE("puts and removes read back, newest file first; what TileDB refuses is refused") {
  const fs::path root = scratch("api");
  array::create(root, small_schema(), {.timestamp = 1700000000000});
  array::metadata_writer m(root);
  m.put("ints", std::vector<std::int64_t>{1, -2, 3})
      .put("floats", std::vector<double>{0.25})
      .put_string("name", "caf\xc3\xa9")
      .put("gone", std::vector<std::uint8_t>{1})
      .put("empty", std::vector<std::int32_t>{});
  CHECK(m.size() == 5);
  CHECK_FALSE(m.commit({.timestamp = 1700000000001}).empty());
  CHECK_THROWS_AS(m.commit(), std::logic_error);

  array::metadata_writer later(root);
  later.remove("gone").put("ints", std::vector<std::int64_t>{7});
  later.commit({.timestamp = 1700000000002});

  const auto md = array::open(root).metadata();
  CHECK(md.size() == 4);
  CHECK(md.get<std::int64_t>("ints") == std::vector<std::int64_t>{7});
  CHECK(md.get<double>("floats") == std::vector<double>{0.25});
  CHECK(md.get_string("name") == "caf\xc3\xa9");
  CHECK(md.get<std::int32_t>("empty").empty());
  CHECK_FALSE(md.contains("gone"));
  // Opened before the second file: the first one alone.
  const auto earlier = array::open(root, {.timestamp_end = 1700000000001}).metadata();
  CHECK(earlier.contains("gone"));
  CHECK(earlier.get<std::int64_t>("ints") == std::vector<std::int64_t>{1, -2, 3});

  array::metadata_writer bad(root);
  CHECK_THROWS_AS(bad.put("", std::vector<std::int32_t>{1}), std::invalid_argument);
  CHECK_THROWS_AS(bad.put("any", std::vector<std::uint8_t>{1}, format::Datatype::ANY), std::invalid_argument);
  CHECK(bad.commit().empty());  // no entry: no file, as TileDB
  fs::remove_all(root);
}

TEST_CASE("metadata of an array at an older format version takes that version, and its types") {
  const fs::path root = scratch("v9");
  array::create(root, small_schema(), {.timestamp = 1700000000000, .format_version = 9});
  array::metadata_writer m(root);
  CHECK_THROWS_AS(m.put("flag", std::vector<std::uint8_t>{1}, format::Datatype::BOOL), std::invalid_argument);
  m.put("t", std::vector<std::int64_t>{5}, format::Datatype::TIME_MS);
  const std::string name = m.commit({.timestamp = 1700000000001});
  const auto tile = filter::read_generic_tile(storage::local{}.read(root / "__meta" / name));
  CHECK(tile.header.version.value == 9u);
  CHECK(array::open(root).metadata().get<std::int64_t>("t") == std::vector<std::int64_t>{5});
  fs::remove_all(root);
}

} // namespace test_metadata_writer
