// Arrays of TileDB 1.3 and 1.4 (tests/data/legacy, from TileDB's test inputs) and of
// every format version 2-16 (tests/data/releases, written by those releases)
// and of version 23 (built from the spec)
// opened through array::open: legacy fragment metadata, zipped coordinates
// in one __coords file, data files named after attributes.
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <numeric>

#include "../../support/testing.hpp"

namespace test_legacy {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA) / "legacy";

template <class C>
std::vector<typename C::value_type> plain(const C& c) {
  return {c.begin(), c.end()};
}

fs::path copy_array(const fs::path& src, const std::string& name) { return testing::copy_to_temp(src, name); }
} // namespace

TEST_CASE("TileDB 1.4 sparse array with coordinates zipped in __coords (non_split_coords_v1_4_0)") {
  // TileDB's unit-backwards_compat.cc reads a = 1, 2, 3, 4 at (1,10), (2,10),
  // (3,10), (4,10) from this array.
  auto arr = array::open(data / "non_split_coords_v1_4_0");
  CHECK(arr.schema().is_sparse());
  REQUIRE(arr.fragments().size() == 1);
  const auto& f = arr.fragments()[0];
  CHECK(f.format_version() == 1);
  CHECK_FALSE(f.dense());
  CHECK(f.tile_num() == 1);
  CHECK(f.cell_num() == 4);
  CHECK(plain(f.read<std::int32_t>("a")) == std::vector<std::int32_t>{1, 2, 3, 4});
  CHECK(plain(f.read<std::int32_t>("d1")) == std::vector<std::int32_t>{1, 2, 3, 4});
  CHECK(plain(f.read<std::int32_t>("d2")) == std::vector<std::int32_t>{10, 10, 10, 10});
  auto ned = f.non_empty_domain();
  CHECK(ned.ranges.at(0).as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
  CHECK(ned.ranges.at(1).as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{10, 10});
  auto tile = f.read_tile(f.field("d2"), 0);
  CHECK(tile.values.size() == 16);
}

TEST_CASE("TileDB 1.3 dense array (dense_array_v1_3_0)") {
  // Current TileDB refuses this array (unit-backwards_compat.cc). Its schema
  // is 4x4 int32 ("rows", "cols", tiles of 4x4) with an uncompressed int32
  // attribute `a`; its one fragment covers [1,4] x [1,4]. No independent
  // statement of the values exists: a.tdb is the raw tile, 1 to 16.
  auto arr = array::open(data / "dense_array_v1_3_0");
  CHECK_FALSE(arr.schema().is_sparse());
  REQUIRE(arr.schema().attributes.size() == 1);
  CHECK(arr.schema().attributes[0].name.value == "a");
  REQUIRE(arr.fragments().size() == 1);
  const auto& f = arr.fragments()[0];
  CHECK(f.dense());
  CHECK(f.tile_num() == 1);
  CHECK(f.cell_num() == 16);
  std::vector<std::int32_t> want(16);
  std::iota(want.begin(), want.end(), 1);
  CHECK(plain(f.read<std::int32_t>("a")) == want);
}

TEST_CASE("legacy arrays, damaged: errors naming the file") {
  for (const char* name : {"non_split_coords_v1_4_0", "dense_array_v1_3_0"}) {
    CAPTURE(name);
    auto root = copy_array(data / name, name);
    std::vector<fs::path> files;
    for (auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.file_size() > 0) files.push_back(e.path());
    for (const auto& file : files) {
      CAPTURE(file.string());
      auto original = tilefmt::storage::local{}.read(file);
      for (std::size_t cut : {std::size_t{0}, original.size() / 2, original.size() - 1}) {
        auto bytes = original;
        bytes.resize(cut);
        tilefmt::storage::local{}.write(file, bytes);
        bool failed = false;
        try {
          auto arr = array::open(root);
          for (const auto& frag : arr.fragments())
            for (const auto& fi : frag.fields())
              for (std::size_t t = 0; t < frag.tile_num(); ++t) (void)frag.read_tile(fi, t);
        } catch (const format_error& e) {
          failed = true;
          CHECK(!e.file().empty());
        } catch (const array::io_error& e) {
          failed = true;
          CHECK(!e.path().empty());
        }
        CHECK(failed);
      }
      tilefmt::storage::local{}.write(file, original);
    }
    fs::remove_all(root);
  }
}

TEST_CASE("arrays of every format version 2-16, as the libtiledb of that version wrote them (tests/data/releases)") {
  // libtiledb release -> the format version it writes (tests/interop/c_versions.txt).
  const std::pair<const char*, std::uint32_t> releases[] = {
      {"1.5.0", 2},  {"1.6.3", 3},  {"1.7.7", 4},  {"2.0.8", 5},  {"2.1.6", 6},
      {"2.2.2", 7},  {"2.2.9", 8},  {"2.3.3", 9},  {"2.4.3", 10}, {"2.6.4", 10}, {"2.7.2", 11},
      {"2.8.3", 12}, {"2.9.5", 13}, {"2.10.4", 14}, {"2.11.3", 15}, {"2.12.3", 16}};
  const fs::path root = fs::path(TILEFMT_TEST_DATA) / "releases";
  for (const auto& rel : releases) {
    const std::string release = rel.first;  // not a structured binding: clang 14 cannot CAPTURE one
    const std::uint32_t version = rel.second;
    CAPTURE(release);
    {
      auto arr = array::open(root / release / "dense_1d");
      REQUIRE(arr.fragments().size() == 2);
      for (const auto& f : arr.fragments()) CHECK(f.format_version() == version);
      std::vector<std::int32_t> want(100);
      std::iota(want.begin(), want.end(), 0);
      std::iota(want.begin() + 10, want.begin() + 40, 1000);
      CHECK(plain(arr.query().read().get<std::int32_t>("a")) == want);
    }
    {
      auto arr = array::open(root / release / "sparse_2d");
      REQUIRE(arr.fragments().size() == 2);
      for (const auto& f : arr.fragments()) CHECK(f.format_version() == version);
      // The cells as written, keyed by coordinates: (v, s).
      std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int32_t, std::string>> want, got;
      auto word = [](int i) {
        std::string w;
        for (int k = 0; k <= i % 4; ++k) w += "w" + std::to_string(i);
        return w;
      };
      for (int i = 0; i < 40; ++i) {
        want[{37 * i % 100, 11 * i % 50}] = {i, word(i)};
        want[{37 * i % 100 + 500, 11 * i % 50 + 600}] = {-i, word(39 - i)};
      }
      const auto r = arr.query().layout(array::query_layout::unordered).read();
      const auto x = r.get<std::int64_t>("x");
      const auto y = r.get<std::int64_t>("y");
      const auto v = r.get<std::int32_t>("v");
      const auto& s = r.bytes("s");
      const auto& off = r.byte_offsets("s");
      REQUIRE(r.cell_num() == 80);
      for (std::size_t c = 0; c < 80; ++c) {
        const std::size_t e = c + 1 < off.size() ? off[c + 1] : s.size();
        got[{x[c], y[c]}] = {v[c], std::string(reinterpret_cast<const char*>(s.data()) + off[c], e - off[c])};
      }
      CHECK(got == want);
    }
  }
}

TEST_CASE("format version 23 (written by no release yet): fragments built from the spec open and read alike") {
  // A v22 sparse array written here, turned into v23 as the spec describes
  // it: schema and footers at version 23, fragment names ending in _23, and
  // after the processed conditions offset a count of optional sections: the
  // tile global order section (identifier 0: per dimension, the offsets of
  // generic tiles of the tiles' global order minimum and maximum
  // coordinates) and one of an identifier no reader knows, to be skipped.
  const fs::path root = fs::temp_directory_path() / ("tilefmt-v23-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("x", 0, 999, 100),
                      format::make_dimension<std::int32_t>("y", 0, 99, 10)},
       .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::INT32})}});
  schema.capacity = 4;
  array::create(root, schema, {.timestamp = 1700000000000});
  for (int w = 0; w < 2; ++w) {
    std::vector<std::int64_t> x;
    std::vector<std::int32_t> y, v;
    for (int i = 0; i < 10; ++i) {
      x.push_back(37 * i % 100 + 500 * w);
      y.push_back(11 * i % 50);
      v.push_back(i + 100 * w);
    }
    array::sparse_writer(root).set_coords("x", x).set_coords("y", y).set("v", v).commit(
        {.timestamp = 1700000000001 + static_cast<std::uint64_t>(w)});
  }
  const auto before = array::open(root).query().layout(array::query_layout::global_order).read();

  storage::local st;
  fs::path schema_path;  // the one schema file (beside the __enumerations folder)
  for (const auto& e : fs::directory_iterator(root / "__schema"))
    if (e.is_regular_file()) schema_path = e.path();
  auto s = codec::decode<format::ArraySchema>(filter::read_generic_tile(st.read(schema_path)).payload);
  s.version.value = 23;
  st.write(schema_path, filter::write_generic_tile(codec::encode(s), 23));
  std::vector<fs::path> frags;
  for (const auto& e : fs::directory_iterator(root / "__fragments")) frags.push_back(e.path());
  REQUIRE(frags.size() == 2);
  for (const auto& dir : frags) {
    format::FragmentContext ctx;
    ctx.version = 22;
    ctx.num_attributes = 1;
    ctx.dims = {{format::Datatype::INT64, false}, {format::Datatype::INT32, false}};
    auto file = st.read(dir / "__fragment_metadata.tdb");
    const auto loc = format::locate_footer(file, ctx);
    auto footer = format::read_footer(file, ctx);
    file.resize(loc.offset);
    // The tile global order min/max tiles: one value per data tile.
    format::TileGlobalOrderOffsets order;
    for (int k = 0; k < 2; ++k)
      for (int d = 0; d < 2; ++d) {
        (k == 0 ? order.min_offsets : order.max_offsets).value.push_back(file.size());
        const auto tile = filter::write_generic_tile(std::vector<std::byte>(footer.sparse_tile_num * (d == 0 ? 8 : 4)), 23);
        file.insert(file.end(), tile.begin(), tile.end());
      }
    ctx.version = 23;
    footer.version = 23;
    footer.optional_sections.value.value = {format::make_optional_section(order, ctx),
                                            format::OptionalSection{99, {std::vector<std::byte>(5, std::byte{7})}}};
    const auto tail = format::write_footer(footer, ctx);
    file.insert(file.end(), tail.begin(), tail.end());
    std::string name = dir.filename().string();
    REQUIRE(name.substr(name.size() - 3) == "_22");
    const std::string name23 = name.substr(0, name.size() - 2) + "23";
    st.write(dir / "__fragment_metadata.tdb", file);
    fs::rename(dir, dir.parent_path() / name23);
    fs::rename(root / "__commits" / (name + ".wrt"), root / "__commits" / (name23 + ".wrt"));
  }

  const auto arr = array::open(root);
  CHECK(arr.schema().version.value == 23u);
  REQUIRE(arr.fragments().size() == 2);
  for (const auto& f : arr.fragments()) {
    CHECK(f.format_version() == 23);
    const auto order = format::tile_global_order_offsets(f.footer(), {.version = 23,
                                                                      .dims = {{format::Datatype::INT64, false},
                                                                               {format::Datatype::INT32, false}},
                                                                      .num_attributes = 1});
    REQUIRE(order.has_value());
    CHECK(order->min_offsets.value.size() == 2);
  }
  const auto after = arr.query().layout(array::query_layout::global_order).read();
  REQUIRE(after.cell_num() == before.cell_num());
  for (const char* field : {"x", "y", "v"}) {
    CAPTURE(field);
    CHECK(std::vector<std::byte>(after.bytes(field).begin(), after.bytes(field).end()) ==
          std::vector<std::byte>(before.bytes(field).begin(), before.bytes(field).end()));
  }
  fs::remove_all(root);
}

} // namespace test_legacy
