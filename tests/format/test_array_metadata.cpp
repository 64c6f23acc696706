// Array metadata (format_spec/metadata.md, TileDB's metadata.cc): payloads
// built by hand with a value of every datatype and a deleted key decode to
// those values and re-encode to the same bytes; truncations and corruptions
// are rejected with the field named. The `__meta` files of arrays written by
// TileDB-Py (tests/data/tiledb, when present), applied in timestamp order,
// give what TileDB reported.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <boost/json.hpp>
#include <boost/json/src.hpp>

#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/format/names.hpp"

#include "../support/testing.hpp"

namespace test_array_metadata {

using namespace tilefmt;
using format::ArrayMetadata;
using format::Datatype;
using format::MetadataEntry;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::hex_bytes;

#ifndef TILEFMT_TEST_DATA
#error "TILEFMT_TEST_DATA must name tests/data"
#endif

namespace fs = std::filesystem;

namespace {

std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), p.string());
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), {});
  return {reinterpret_cast<const std::byte*>(raw.data()), reinterpret_cast<const std::byte*>(raw.data()) + raw.size()};
}

format_error decode_error(const std::vector<std::byte>& payload) {
  try {
    (void)codec::decode<ArrayMetadata>(payload);
  } catch (const format_error& e) {
    return e;
  }
  FAIL("expected format_error");
  return format_error("", 0);
}

// Entries as TileDB writes them, sorted by key: `u32 key length | key |
// u8 deletion | u8 type | u32 count | values`.
const char* const kPayload =
    "01000000 61 00 01 02000000 ffffffffffffffff 0700000000000000"  // "a": INT64 -1, 7
    "01000000 62 01"                                         // "b": deleted
    "01000000 63 00 03 01000000 000000000000f87f"            // "c": FLOAT64 NaN
    "01000000 64 00 0c 03000000 68c3a9"                      // "d": STRING_UTF8 "hé"
    "01000000 65 00 00 00000000"                             // "e": INT32, no values
    "01000000 66 00 29 03000000 010001"                      // "f": BOOL 1, 0, 1
    "01000000 67 00 19 01000000 00e8764817000000";           // "g": DATETIME_MS 100000000000

} // namespace

TEST_CASE("array metadata by hand: values, a deletion, an empty value") {
  auto payload = hex_bytes(kPayload);
  auto m = codec::decode<ArrayMetadata>(payload);
  CHECK(codec::encode(m) == payload);
  CHECK(codec::encoded_size(m) == payload.size());
  REQUIRE(m.entries.size() == 7);

  const auto& a = m.entries[0];
  CHECK(a.key.value == "a");
  CHECK_FALSE(a.deleted());
  CHECK(a.type() == Datatype::INT64);
  CHECK(a.num() == 2);
  CHECK(a.as<std::int64_t>() == std::vector<std::int64_t>{-1, 7});
  CHECK_THROWS_AS(a.as<std::uint64_t>(), std::invalid_argument);
  CHECK_THROWS_AS(a.as<double>(), std::invalid_argument);

  const auto& b = m.entries[1];
  CHECK(b.deleted());
  CHECK(b.deletion == 1);
  CHECK_THROWS_AS(b.as<std::int64_t>(), std::invalid_argument);
  CHECK(b == MetadataEntry::deletion_of("b"));

  CHECK(std::isnan(m.entries[2].as<double>().at(0)));
  CHECK(m.entries[3].as_string() == "h\xc3\xa9");
  CHECK(m.entries[3].as<char>().size() == 3);
  CHECK(m.entries[4].num() == 0);
  CHECK(m.entries[4].as<std::int32_t>().empty());
  CHECK(m.entries[4].bytes().empty());
  CHECK(m.entries[5].as<std::uint8_t>() == std::vector<std::uint8_t>{1, 0, 1});
  CHECK(m.entries[6].as<std::int64_t>() == std::vector<std::int64_t>{100000000000});
  CHECK_THROWS_AS(m.entries[6].as_string(), std::invalid_argument);

  CHECK(m.find("c") == &m.entries[2]);
  CHECK(m.find("z") == nullptr);

  // Built from values, the same bytes.
  ArrayMetadata built;
  built.entries.value = {
      MetadataEntry::of<std::int64_t>("a", {-1, 7}),
      MetadataEntry::deletion_of("b"),
      MetadataEntry::of<double>("c", {std::numeric_limits<double>::quiet_NaN()}),
      MetadataEntry::of_string("d", "h\xc3\xa9"),
      MetadataEntry::of<std::int32_t>("e", std::vector<std::int32_t>{}),
      MetadataEntry::of<std::uint8_t>("f", {1, 0, 1}, Datatype::BOOL),
      MetadataEntry::of<std::int64_t>("g", {100000000000}, Datatype::DATETIME_MS),
  };
  CHECK(codec::encode(built) == payload);
  CHECK_THROWS_AS(MetadataEntry::of<std::int32_t>("x", {1}, Datatype::INT64), std::invalid_argument);

  // An empty payload is no entries (TileDB writes no file then).
  CHECK(codec::decode<ArrayMetadata>(std::vector<std::byte>{}).entries.empty());
}

TEST_CASE("array metadata: a value of every datatype") {
  ArrayMetadata m;
  for (int t = 0; t <= 43; ++t) {
    auto type = static_cast<Datatype>(t);
    const std::size_t size = format::datatype_size(type);
    MetadataEntry e;
    e.key.value = "key_" + std::string(format::codec_enum_name(type));
    e.value->type = type;
    e.value->num = 2;
    for (std::size_t i = 0; i < 2 * size; ++i) e.value->bytes.value.push_back(static_cast<std::byte>(t + i));
    m.entries.value.push_back(e);
  }
  auto b = tilefmt::testing::check_round_trip(m);
  // 44 entries: key length 4, key, deletion 1, type 1, count 4, two values.
  std::size_t expected = 0;
  for (const auto& e : m.entries) expected += 4 + e.key.size() + 1 + 1 + 4 + 2 * format::datatype_size(e.type());
  CHECK(b.size() == expected);

  auto back = codec::decode<ArrayMetadata>(b);
  auto find = [&](Datatype t) { return back.find("key_" + std::string(format::codec_enum_name(t))); };
  CHECK(find(Datatype::INT8)->as<std::int8_t>() == std::vector<std::int8_t>{5, 6});
  CHECK(find(Datatype::UINT16)->as<std::uint16_t>() == std::vector<std::uint16_t>{0x0908, 0x0b0a});
  CHECK(find(Datatype::INT32)->as<std::int32_t>() == std::vector<std::int32_t>{0x03020100, 0x07060504});
  CHECK(find(Datatype::UINT32)->as<std::uint32_t>() == std::vector<std::uint32_t>{0x0c0b0a09, 0x100f0e0d});
  CHECK(find(Datatype::UINT64)->as<std::uint64_t>() ==
        std::vector<std::uint64_t>{0x11100f0e0d0c0b0aull, 0x1918171615141312ull});
  CHECK(find(Datatype::FLOAT32)->as<float>().size() == 2);
  CHECK(find(Datatype::STRING_UTF16)->as<char16_t>() == std::vector<char16_t>{0x0e0d, 0x100f});
  CHECK(find(Datatype::STRING_UCS4)->as<char32_t>() == std::vector<char32_t>{0x13121110, 0x17161514});
  CHECK(find(Datatype::TIME_AS)->as<std::int64_t>().size() == 2);
  CHECK(find(Datatype::BLOB)->as<std::byte>() == std::vector<std::byte>{std::byte{40}, std::byte{41}});
  CHECK(find(Datatype::GEOM_WKT)->as<std::byte>().size() == 2);
  CHECK(find(Datatype::BOOL)->as<std::uint8_t>() == std::vector<std::uint8_t>{41, 42});
  CHECK(find(Datatype::ANY)->as<std::byte>().size() == 2);
  CHECK_THROWS_AS(find(Datatype::UINT8)->as<std::int8_t>(), std::invalid_argument);
}

TEST_CASE("array metadata: truncations and corruptions") {
  auto payload = hex_bytes(kPayload);
  // Entry boundaries are valid shorter payloads (fewer entries); every other
  // prefix is rejected.
  std::vector<std::size_t> boundaries{0};
  {
    auto m = codec::decode<ArrayMetadata>(payload);
    std::size_t at = 0;
    for (const auto& e : m.entries) boundaries.push_back(at += codec::encoded_size(e));
  }
  CHECK(boundaries == std::vector<std::size_t>{0, 27, 33, 52, 66, 77, 91, 110});
  for (std::size_t n = 0; n < payload.size(); ++n) {
    CAPTURE(n);
    auto prefix = std::span<const std::byte>(payload).first(n);
    auto at = std::find(boundaries.begin(), boundaries.end(), n);
    if (at != boundaries.end())
      CHECK(codec::decode<ArrayMetadata>(prefix).entries.size() == static_cast<std::size_t>(at - boundaries.begin()));
    else
      CHECK_THROWS_AS(codec::decode<ArrayMetadata>(prefix), format_error);
  }
  check_every_prefix_throws<MetadataEntry>(std::span<const std::byte>(payload).first(27));

  auto bad = payload;
  bad[33 + 6] = std::byte{44};  // "c"'s type
  auto e = decode_error(bad);
  CHECK(e.field() == "ArrayMetadata.entries[2].value.type");
  CHECK(e.offset() == 39);

  bad = payload;
  bad[33 + 7 + 3] = std::byte{0x7f};  // "c" claims 2^30 doubles: rejected before any allocation
  e = decode_error(bad);
  CHECK(e.field().rfind("ArrayMetadata.entries[2].value.bytes", 0) == 0);

  bad = payload;
  bad[27 + 5] = std::byte{2};  // any non-zero deletion byte is a deletion (TileDB reads a char)
  auto m = codec::decode<ArrayMetadata>(bad);
  CHECK(m.entries[1].deleted());
  CHECK(codec::encode(m) == bad);
}

// ---------------------------------------------------------------------------
// Arrays written by TileDB-Py
// ---------------------------------------------------------------------------

TEST_CASE("__meta files of arrays written by TileDB-Py give the metadata TileDB reported") {
  const fs::path root = fs::path(TILEFMT_TEST_DATA) / "tiledb";
  if (!fs::exists(root / "manifest.json")) {
    MESSAGE("no TileDB-Py corpus under tests/data/tiledb: skipped");
    return;
  }
  std::ifstream in(root / "manifest.json");
  auto manifest = boost::json::parse(std::string((std::istreambuf_iterator<char>(in)), {}));
  std::size_t arrays = 0, files = 0;
  for (const auto& entry : manifest.at("arrays").as_array()) {
    if (entry.at("metadata").is_null()) continue;
    if (!entry.at("encryption").is_null()) continue;
    const fs::path meta_dir = root / std::string(entry.at("path").as_string()) / "__meta";
    CAPTURE(meta_dir.string());
    REQUIRE(fs::is_directory(meta_dir));
    // Files in timestamp order; later entries replace earlier ones.
    std::vector<std::pair<format::TimestampedName, fs::path>> listed;
    for (const auto& f : fs::directory_iterator(meta_dir)) {
      if (!f.is_regular_file()) continue;
      auto name = format::parse_timestamped_name(f.path().filename().string());
      if (!name.extension.empty()) continue;  // .vac files
      CHECK(name.grammar == format::NameGrammar::t1_t2_uuid);
      listed.emplace_back(name, f.path());
    }
    std::sort(listed.begin(), listed.end(), [](const auto& x, const auto& y) {
      return std::tie(x.first.t1, x.first.t2, x.first.uuid) < std::tie(y.first.t1, y.first.t2, y.first.uuid);
    });
    std::map<std::string, MetadataEntry> merged;
    for (const auto& [name, path] : listed) {
      auto tile = filter::read_generic_tile(read_file(path));
      auto m = codec::decode<ArrayMetadata>(tile.payload);
      CHECK(codec::encode(m) == tile.payload);
      CHECK(!m.entries.empty());  // TileDB writes no file without entries
      for (std::size_t i = 1; i < m.entries.size(); ++i)
        CHECK(m.entries[i - 1].key.value < m.entries[i].key.value);  // sorted by key
      for (const auto& e : m.entries) merged[e.key.value] = e;
      ++files;
    }
    const auto& expected = entry.at("metadata").at("entries").as_object();
    std::size_t live = 0;
    for (const auto& kv : merged) {
      const std::string& key = kv.first;  // not a structured binding: CAPTURE captures it in a lambda
      const MetadataEntry& e = kv.second;
      CAPTURE(key);
      if (e.deleted()) {
        CHECK(expected.if_contains(key) == nullptr);
        continue;
      }
      ++live;
      const auto* want = expected.if_contains(key);
      REQUIRE(want != nullptr);
      CHECK(want->at("type").as_string() == format::codec_enum_name(e.type()));
      CHECK(want->at("count").as_int64() == e.num());
      CHECK(hex_bytes(want->at("hex").as_string()) == std::vector<std::byte>(e.bytes().begin(), e.bytes().end()));
      const auto& values = want->at("values");
      if (e.type() == Datatype::INT64) {
        auto got = e.as<std::int64_t>();
        for (std::size_t i = 0; i < got.size(); ++i) CHECK(values.at(i).to_number<std::int64_t>() == got[i]);
      } else if (e.type() == Datatype::FLOAT64) {
        auto got = e.as<double>();
        for (std::size_t i = 0; i < got.size(); ++i) CHECK(values.at(i).to_number<double>() == got[i]);
      } else if (e.type() == Datatype::STRING_UTF8 || e.type() == Datatype::CHAR) {
        CHECK(values.as_string() == e.as_string());
      }
    }
    CHECK(live == expected.size());
    for (const auto& k : entry.at("metadata").at("deleted_keys").as_array()) {
      auto it = merged.find(std::string(k.as_string()));
      REQUIRE(it != merged.end());
      CHECK(it->second.deleted());
    }
    ++arrays;
  }
  MESSAGE(arrays << " arrays, " << files << " metadata files checked");
  CHECK(files > 0);
}

} // namespace test_array_metadata
