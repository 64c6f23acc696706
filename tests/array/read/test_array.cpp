// Opening arrays: listing, time travel, metadata, fragments read back, and
// damaged arrays giving errors that name the file (never a crash).
#include "tilefmt/array/read/array.hpp"

#include <filesystem>

#include "../../support/testing.hpp"

namespace test_array {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

fs::path copy_array(const fs::path& src, const std::string& name) { return testing::copy_to_temp(src, name); }
} // namespace

TEST_CASE("a dense array: fragments in timestamp order, values with fill in unwritten cells") {
  auto arr = array::open(data / "tiledb/dense_1d_int32/array");
  REQUIRE(arr.fragments().size() == 2);
  CHECK(arr.fragments()[0].timestamp_start() < arr.fragments()[1].timestamp_start());
  const auto& f = arr.fragments()[1];
  CHECK(f.dense());
  CHECK(f.format_version() == 22);
  CHECK(f.tile_num() == 3);
  CHECK(f.cell_num() == 30);
  auto a = f.read<std::int32_t>("a");
  REQUIRE(a.size() == 30);
  // The write covered [15, 37] of tiles [11, 40]: cells 11-14 and 38-40 are fill.
  CHECK(a[0] == std::numeric_limits<std::int32_t>::min());
  CHECK(a[3] == std::numeric_limits<std::int32_t>::min());
  CHECK(a[4] != std::numeric_limits<std::int32_t>::min());
  CHECK(a[29] == std::numeric_limits<std::int32_t>::min());
  CHECK_THROWS_AS(f.read<std::int64_t>("a"), std::invalid_argument);
  CHECK_THROWS_AS(f.read<std::int32_t>("nope"), std::invalid_argument);
}

TEST_CASE("time travel: opening before the second write sees one fragment") {
  auto all = array::open(data / "tiledb/dense_1d_int32/array");
  std::uint64_t t = all.fragments()[1].timestamp_start();
  auto early = array::open(data / "tiledb/dense_1d_int32/array", {.timestamp_end = t - 1});
  CHECK(early.fragments().size() == 1);
  auto late = array::open(data / "tiledb/dense_1d_int32/array", {.timestamp_start = t});
  CHECK(late.fragments().size() == 1);
}

TEST_CASE("sparse var and nullable columns") {
  auto arr = array::open(data / "tiledb/sparse_2d_duplicates/array");
  REQUIRE(arr.fragments().size() == 1);
  const auto& f = arr.fragments()[0];
  CHECK_FALSE(f.dense());
  auto s = f.read_var<char>("s");
  CHECK(s.offsets.size() == f.cell_num());
  CHECK(s.offsets.front() == 0);
  CHECK(std::is_sorted(s.offsets.begin(), s.offsets.end()));
  CHECK(f.read_validity("s").size() == f.cell_num());
}

TEST_CASE("a fragment's fields: attributes then dimensions, made once and found by name") {
  auto arr = array::open(data / "tiledb/sparse_2d_duplicates/array");
  const auto& f = arr.fragments()[0];
  const auto& fields = f.fields();
  REQUIRE(fields.size() == arr.schema().attributes.size() + arr.schema().domain.dimensions.size());
  CHECK(fields.front().is_attribute());
  CHECK(fields.back().is_dimension());
  // The readers ask per tile: the same objects each time, not copies.
  CHECK(&f.fields() == &fields);
  for (const auto& fi : fields) CHECK(&f.field(fi.name) == &fi);
  CHECK(f.special_fields().empty());
  CHECK_THROWS_AS(f.field("nope"), std::invalid_argument);
  // A copy of the fragment has fields of its own, equal to these.
  const array::fragment copy = f;
  REQUIRE(copy.fields().size() == fields.size());
  CHECK(&copy.fields() != &fields);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    CHECK(copy.fields()[i].name == fields[i].name);
    CHECK(copy.fields()[i].filters == fields[i].filters);  // the schema is shared
  }
}

TEST_CASE("array metadata merged across files, with typed access") {
  auto arr = array::open(data / "tiledb/metadata_all_types/array");
  const auto& m = arr.metadata();
  CHECK(m.size() > 10);
  CHECK(m.get<std::int16_t>("__np_flat_np_int16") == std::vector<std::int16_t>{-1, -2, -3});
  CHECK_THROWS_AS(m.get<double>("__np_flat_np_int16"), std::invalid_argument);
  CHECK_THROWS_AS(m.at("no such key"), std::out_of_range);
  CHECK(m.to_json().find("\"__np_flat_np_int16\"") != std::string::npos);
}

TEST_CASE("the v10 layout: fragments in the array folder with .ok files") {
  auto arr = array::open(data / "legacy/zero_var_chunks_v10");
  REQUIRE(arr.fragments().size() == 1);
  CHECK(arr.fragments()[0].format_version() == 10);
  CHECK(arr.fragments()[0].cell_num() == 1);
}

TEST_CASE("missing and damaged arrays give errors naming the file") {
  CHECK_THROWS_AS(array::open(data / "no-such-array"), array::io_error);

  auto root = copy_array(data / "tiledb/filter_byteshuffle_zstd/array", "damaged");
  // No schema.
  {
    auto bad = copy_array(root, "noschema");
    fs::remove_all(bad / "__schema");
    CHECK_THROWS(array::open(bad));
    fs::remove_all(bad);
  }
  // Every file of the fragment truncated or bit-flipped in turn: an error, never a crash.
  std::vector<fs::path> files;
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.file_size() > 0) files.push_back(e.path());
  int errors = 0;
  for (const auto& file : files) {
    auto original = tilefmt::storage::local{}.read(file);
    for (int variant = 0; variant < 4; ++variant) {
      auto bytes = original;
      if (variant == 0) bytes.resize(bytes.size() / 2);
      else if (variant == 1) bytes.resize(bytes.size() > 8 ? bytes.size() - 8 : 0);
      else bytes[(bytes.size() * static_cast<std::size_t>(variant)) / 5] ^= std::byte{0x5a};
      tilefmt::storage::local{}.write(file, bytes);
      try {
        auto arr = array::open(root);
        for (const auto& frag : arr.fragments())
          for (const auto& fi : frag.fields())
            for (std::size_t t = 0; t < frag.tile_num(); ++t) (void)frag.read_tile(fi, t);
      } catch (const format_error& e) {
        ++errors;
        CHECK(!e.file().empty());
      } catch (const array::io_error&) {
        ++errors;
      } catch (const std::invalid_argument&) {
        ++errors;
      }
    }
    tilefmt::storage::local{}.write(file, original);
  }
  CHECK(errors > static_cast<int>(files.size()));
  fs::remove_all(root);
}

} // namespace test_array
