// Array schema (format_spec/array_schema.md, enumeration.md): schema files
// written by TileDB 1.3, 1.4, format v10, v11 and an experimental build
// decode to what TileDB's tests say those arrays hold and re-encode to the
// same bytes; payloads built by hand from the spec tables (versions 1 to 4
// from the format description of those releases, later versions from the
// current spec and TileDB's serializers) do too; every version gate from 1 to
// 23 is exercised; truncated and corrupted payloads are rejected with the
// field named. Arrays written by TileDB-Py (tests/data/tiledb, when present)
// are checked against the facts their manifest records.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <boost/json.hpp>
#include <boost/json/src.hpp>

#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/print.hpp"

#include "../support/testing.hpp"

namespace test_array_schema {

using namespace tilefmt;
using format::ArraySchema;
using format::Datatype;
using format::FilterType;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::hex_bytes;

#ifndef TILEFMT_TEST_DATA
#error "TILEFMT_TEST_DATA must name tests/data"
#endif

namespace fs = std::filesystem;

namespace {

const fs::path data_dir = fs::path(TILEFMT_TEST_DATA);

std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), p.string());
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), {});
  return {reinterpret_cast<const std::byte*>(raw.data()), reinterpret_cast<const std::byte*>(raw.data()) + raw.size()};
}

/// The only file in a folder (a schema folder of the test arrays).
fs::path only_file(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) found.push_back(e.path());
  REQUIRE(found.size() == 1);
  return found[0];
}

std::vector<std::byte> schema_payload(const fs::path& file) {
  auto bytes = read_file(file);
  auto tile = filter::read_generic_tile(bytes);
  CHECK(tile.stored_size == bytes.size());
  return tile.payload;
}

/// Decodes, checks that encode and encoded_size give back the bytes and that
/// every proper prefix is rejected.
ArraySchema check_schema(const std::vector<std::byte>& payload) {
  ArraySchema s = codec::decode<ArraySchema>(payload);
  CHECK(codec::encode(s) == payload);
  CHECK(codec::encoded_size(s) == payload.size());
  check_every_prefix_throws<ArraySchema>(payload);
  return s;
}

/// The error a corrupted payload gives.
format_error decode_error(const std::vector<std::byte>& payload) {
  try {
    (void)codec::decode<ArraySchema>(payload);
  } catch (const format_error& e) {
    return e;
  }
  FAIL("expected format_error");
  return format_error("", 0);
}

template <class T>
std::vector<std::byte> le(T v) {
  std::vector<std::byte> b(sizeof(T));
  codec::store_le(b.data(), v);
  return b;
}

double nan_check(const std::vector<std::byte>& b) { return codec::load_le<double>(b.data()); }

// Filter pipelines used below: max_chunk_size 65536, then the filters.
constexpr const char* kEmptyPipeline = "00000100 00000000";
constexpr const char* kZstdDefault = "00000100 01000000 02 05000000 02 ffffffff";
constexpr const char* kRleDefault = "00000100 01000000 04 05000000 04 ffffffff";

std::string cat(std::initializer_list<std::string> parts) {
  std::string s;
  for (const auto& p : parts) s += p + " ";
  return s;
}

} // namespace

// ---------------------------------------------------------------------------
// Schema files written by TileDB
// ---------------------------------------------------------------------------

TEST_CASE("TileDB 1.4 schema, format version 1 (non_split_coords_v1_4_0)") {
  // unit-backwards_compat.cc reads `a` (int32) and coordinates d1, d2 (int32)
  // of this sparse array.
  auto payload = schema_payload(data_dir / "legacy/non_split_coords_v1_4_0/__array_schema.tdb");
  REQUIRE(payload.size() == 106);
  auto s = check_schema(payload);
  CHECK(s.version.value == 1);
  CHECK(s.array_type == format::ArrayType::SPARSE);
  CHECK(s.tile_order == format::Layout::COL_MAJOR);
  CHECK(s.cell_order == format::Layout::COL_MAJOR);
  CHECK(s.capacity == 100000);
  CHECK(s.coords_filters.filters.empty());
  REQUIRE(s.offsets_filters.filters.size() == 1);
  CHECK(s.offsets_filters.filters[0].type == FilterType::ZSTD);
  CHECK(s.offsets_filters.filters[0].options_as<format::CompressionOptions>(1).level == -1);
  CHECK(s.domain.type.value == Datatype::INT32);
  REQUIRE(s.domain.dimensions.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& d = s.domain.dimensions[i];
    CHECK(d.name.value == (i == 0 ? "d1" : "d2"));
    CHECK(d.type.value == Datatype::INT32);  // copied from the domain
    CHECK(d.cell_val_num.value == 1);
    CHECK(d.domain_size.value == 8);
    CHECK(d.domain_as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{0, 10000});
    CHECK(d.tile_extent_as<std::int32_t>() == 10001);
    CHECK(&s.dimension_filters(i) == &s.coords_filters);
  }
  REQUIRE(s.attributes.size() == 1);
  const auto& a = s.attributes[0];
  CHECK(a.name.value == "a");
  CHECK(a.type == Datatype::INT32);
  CHECK(a.cell_val_num == 1);
  CHECK(a.filters.filters.empty());
  CHECK(a.fill_value->empty());  // not stored before v6
  CHECK(a.fill() == le(std::numeric_limits<std::int32_t>::min()));
  CHECK(a.cell_size() == 4);
}

TEST_CASE("format v10 schema with a string dimension (zero_var_chunks_v10)") {
  // sc-33480.cc: sparse, row-major, dimension "d" STRING_ASCII, attribute "a" int32.
  auto payload = schema_payload(only_file(data_dir / "legacy/zero_var_chunks_v10/__schema"));
  REQUIRE(payload.size() == 137);
  auto s = check_schema(payload);
  CHECK(s.version.value == 10);
  CHECK(s.allows_dups.value == false);
  CHECK(s.is_sparse());
  CHECK(s.tile_order == format::Layout::ROW_MAJOR);
  CHECK(s.cell_order == format::Layout::ROW_MAJOR);
  CHECK(s.capacity == 10000);
  CHECK(s.coords_filters == format::compression_pipeline(FilterType::ZSTD));
  CHECK(s.offsets_filters == format::compression_pipeline(FilterType::ZSTD));
  CHECK(s.validity_filters.value == format::compression_pipeline(FilterType::RLE));
  REQUIRE(s.domain.dimensions.size() == 1);
  const auto& d = s.domain.dimensions[0];
  CHECK(d.name.value == "d");
  CHECK(d.type.value == Datatype::STRING_ASCII);
  CHECK(d.is_var());
  CHECK(d.domain_size.value == 0);
  CHECK(d.domain.empty());
  CHECK_FALSE(d.has_tile_extent());
  CHECK(d.tile_extent.empty());
  REQUIRE(s.attributes.size() == 1);
  CHECK(s.attributes[0].name.value == "a");
  CHECK(s.attributes[0].type == Datatype::INT32);
  CHECK(s.attributes[0].fill_value->value == le(std::numeric_limits<std::int32_t>::min()));
  CHECK(s.attributes[0].nullable.value == false);

  // The schema TileDB's defaults give for that program, encoded as v10, is the file.
  auto built =
      format::make_array_schema({.type = format::ArrayType::SPARSE,
                                 .dimensions = {format::make_string_dimension("d")},
                                 .attributes = {format::make_attribute({.name = "a", .type = Datatype::INT32})}});
  built.version.value = 10;
  CHECK(codec::encode(built) == payload);
  CHECK(built == s);
}

TEST_CASE("format v11 schema (sparse_array_v11)") {
  // helpers.cc write_sparse_v11: a1 int32, a2 char var, a3 float32 x 2,
  // dimensions d1, d2 uint64.
  auto payload = schema_payload(only_file(data_dir / "legacy/sparse_array_v11/__schema"));
  REQUIRE(payload.size() == 312);
  auto s = check_schema(payload);
  CHECK(s.version.value == 11);
  CHECK(s.is_sparse());
  CHECK(s.capacity == 2);
  REQUIRE(s.domain.dimensions.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& d = s.domain.dimensions[i];
    CHECK(d.name.value == (i == 0 ? "d1" : "d2"));
    CHECK(d.type.value == Datatype::UINT64);
    CHECK(d.domain_as<std::uint64_t>() == std::pair<std::uint64_t, std::uint64_t>{1, 4});
    CHECK(d.tile_extent_as<std::uint64_t>() == 2);
    CHECK(d.filters->filters.empty());
    CHECK(s.dimension_filters(i) == s.coords_filters);
  }
  REQUIRE(s.attributes.size() == 3);
  const auto& a1 = s.attributes[0];
  CHECK(a1.name.value == "a1");
  CHECK(a1.type == Datatype::INT32);
  CHECK(a1.filters == format::compression_pipeline(FilterType::LZ4));
  const auto& a2 = s.attributes[1];
  CHECK(a2.name.value == "a2");
  CHECK(a2.type == Datatype::CHAR);
  CHECK(a2.is_var());
  CHECK(a2.cell_size() == format::var_size);
  CHECK(a2.filters == format::compression_pipeline(FilterType::GZIP));
  CHECK(a2.fill_value->value == hex_bytes("80"));
  const auto& a3 = s.attributes[2];
  CHECK(a3.name.value == "a3");
  CHECK(a3.type == Datatype::FLOAT32);
  CHECK(a3.cell_val_num == 2);
  CHECK(a3.cell_size() == 8);
  CHECK(a3.filters == format::compression_pipeline(FilterType::ZSTD));
  CHECK(a3.fill_value->value == hex_bytes("0000c07f 0000c07f"));
  CHECK(s.attribute("a3") == &a3);
  CHECK(s.attribute("a4") == nullptr);
  CHECK(s.dimension("d2") == &s.domain.dimensions[1]);

  SUBCASE("a corrupt datatype byte names its field") {
    // version 4, allows_dups, type, orders 3, capacity 8 = 16; three pipelines
    // of 18 bytes = 70; dimension count 4, "d1" 4 + 2: the type is at 80.
    REQUIRE(payload[80] == std::byte{10});
    auto bad = payload;
    bad[80] = std::byte{44};
    auto e = decode_error(bad);
    CHECK(e.field() == "ArraySchema.domain.dimensions[0].type");
    CHECK(e.offset() == 80);
    CHECK(std::string(e.what()).find("invalid Datatype value 44") != std::string::npos);

    // a3 (4+2 name, 1 type, 4 cvn, 18 pipeline, 8+8 fill, 2) starts at 312 - 47 = 265.
    REQUIRE(payload[271] == std::byte{2});
    bad = payload;
    bad[271] = std::byte{0xff};
    e = decode_error(bad);
    CHECK(e.field() == "ArraySchema.attributes[2].type");
    CHECK(e.offset() == 271);

    bad = payload;
    bad[6] = std::byte{2};  // tile order GLOBAL_ORDER
    e = decode_error(bad);
    CHECK(e.field() == "ArraySchema.tile_order");
    CHECK(e.offset() == 6);
    bad[6] = std::byte{5};
    CHECK(decode_error(bad).field() == "ArraySchema.tile_order");
    bad = payload;
    bad[7] = std::byte{4};  // cell order HILBERT is allowed, 5 is not
    CHECK(codec::decode<ArraySchema>(bad).cell_order == format::Layout::HILBERT);
    bad[7] = std::byte{5};
    CHECK(decode_error(bad).field() == "ArraySchema.cell_order");

    bad = payload;
    bad[16 + 8] = std::byte{20};  // the coords filter's type
    CHECK(decode_error(bad).field() == "ArraySchema.coords_filters.filters[0].type");

    bad = payload;
    bad[4] = std::byte{2};  // allows_dups is a bool
    CHECK(decode_error(bad).field() == "ArraySchema.allows_dups");

    bad = payload;
    bad[310] = std::byte{2};  // a3's nullable
    CHECK(decode_error(bad).field() == "ArraySchema.attributes[2].nullable");

    bad = payload;  // a dimension count no input could hold
    bad[70] = bad[71] = bad[72] = bad[73] = std::byte{0xff};
    CHECK_THROWS_AS(codec::decode<ArraySchema>(bad), format_error);
  }
}

TEST_CASE("an experimental build's schema, version 4294967295 (experimental_array_vUINT32_MAX)") {
  auto payload = schema_payload(only_file(data_dir / "legacy/experimental_array_vUINT32_MAX/__schema"));
  REQUIRE(payload.size() == 149);
  CHECK(codec::load_le<std::uint32_t>(payload.data()) == 4294967295u);
  auto e = decode_error(payload);
  CHECK(e.field() == "ArraySchema.version");
  CHECK(e.offset() == 0);
  CHECK(std::string(e.what()).find("4294967295 is newer than 23") != std::string::npos);
  check_every_prefix_throws<ArraySchema>(payload);

  // Its bytes have the layout of versions 7 to 16 (no order field yet).
  for (std::uint32_t v : {7u, 16u}) {
    auto as_v = payload;
    codec::store_le<std::uint32_t>(as_v.data(), v);
    auto s = check_schema(as_v);
    CHECK(s.array_type == format::ArrayType::DENSE);
    REQUIRE(s.domain.dimensions.size() == 1);
    CHECK(s.domain.dimensions[0].name.value == "d");
    CHECK(s.domain.dimensions[0].domain_as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
    CHECK(s.domain.dimensions[0].tile_extent_as<std::int32_t>() == 4);
    REQUIRE(s.attributes.size() == 1);
    CHECK(s.attributes[0].name.value == "a");
    CHECK(s.attributes[0].type == Datatype::INT32);
  }
  auto as_17 = payload;
  codec::store_le<std::uint32_t>(as_17.data(), 17);
  CHECK(decode_error(as_17).field() == "ArraySchema.attributes[0].order");
}

namespace {
/// The generic tile of TileDB 1.3 and earlier: a 30-byte header without a
/// version, then chunks of `u64 original length | u64 compressed length | bytes`.
struct V13TileHeader {
  std::uint64_t persisted_size;
  std::uint64_t tile_size;
  Datatype datatype;
  std::uint64_t cell_size;
  std::uint8_t compressor;
  std::int32_t level;
};
struct V13Chunk {
  std::uint64_t original_length;
  codec::counted<std::uint64_t, std::vector<std::byte>> data;
};
struct V13Tile {
  codec::counted<std::uint64_t, std::vector<V13Chunk>> chunks;
};
} // namespace

TEST_CASE("TileDB 1.3 schema: a library version instead of a format version (dense_array_v1_3_0)") {
  // TileDB no longer opens this array (unit-backwards_compat.cc expects an
  // error). Its generic tile has that release's 30-byte header (no version,
  // one compressor) and a chunked zlib stream.
  auto file = read_file(data_dir / "legacy/dense_array_v1_3_0/__array_schema.tdb");
  CHECK_THROWS_AS(filter::read_generic_tile(file), format_error);
  codec::reader header_reader(file);
  const auto header = codec::decode<V13TileHeader>(header_reader);
  const std::size_t used = header_reader.offset();
  REQUIRE(used == 30);
  CHECK(header.compressor == 1);  // GZIP
  auto tile = codec::decode<V13Tile>(std::span<const std::byte>(file).subspan(30));
  REQUIRE(tile.chunks.size() == 1);
  // The stream is zlib at level 1; its payload (99 bytes) inflated:
  auto payload = hex_bytes(
      "01000000 03000000 00000000"  // library version 1.3.0
      "00 00 00 1027000000000000"   // dense, row-major tiles and cells, capacity 10000
      "02 ffffffff 02 ffffffff"     // coords and offsets: ZSTD, level -1
      "00 02000000"                 // domain: int32, two dimensions
      "04000000 726f7773 01000000 04000000 00 04000000"
      "04000000 636f6c73 01000000 04000000 00 04000000"
      "01000000 01000000 61 00 00 ffffffff 01000000");  // attribute a: int32, no compressor, 1 value
  REQUIRE(payload.size() == header.tile_size);
  CHECK(tile.chunks[0].original_length == 99);

  auto s = codec::decode<format::LibraryVersionArraySchema>(payload);
  CHECK(codec::encode(s) == payload);
  check_every_prefix_throws<format::LibraryVersionArraySchema>(payload);
  CHECK(s.major_version.value == 1);
  CHECK(s.minor_version == 3);
  CHECK(s.patch_version == 0);
  CHECK(s.array_type == format::ArrayType::DENSE);
  CHECK(s.capacity == 10000);
  CHECK(s.coords_compressor == format::LibraryVersionCompressor{2, -1});
  REQUIRE(s.domain.dimensions.size() == 2);
  CHECK(s.domain.dimensions[0].name.value == "rows");
  CHECK(s.domain.dimensions[1].name.value == "cols");
  for (const auto& d : s.domain.dimensions) {
    CHECK(d.type.value == Datatype::INT32);
    CHECK(d.domain_as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
    CHECK(d.tile_extent_as<std::int32_t>() == 4);
  }
  REQUIRE(s.attributes.size() == 1);
  CHECK(s.attributes[0].name.value == "a");
  CHECK(s.attributes[0].type == Datatype::INT32);
  CHECK(s.attributes[0].compressor == format::LibraryVersionCompressor{0, -1});
  CHECK(s.attributes[0].cell_val_num == 1);
  // Read as a versioned schema, its "version" is 1 and the layout does not fit.
  CHECK_THROWS_AS(codec::decode<ArraySchema>(payload), format_error);
}

TEST_CASE("every schema file under tests/data/legacy is accounted for") {
  // Versioned schemas decode and re-encode; a version newer than 23 is an
  // error naming it; a TileDB 1.3 file (no generic tile version) is a
  // LibraryVersionArraySchema (checked above).
  std::size_t versioned = 0, newer = 0, library_version = 0;
  for (const auto& e : fs::recursive_directory_iterator(data_dir / "legacy")) {
    const auto& p = e.path();
    const bool schema = p.filename() == "__array_schema.tdb" ||
                        (p.parent_path().filename() == "__schema" && e.is_regular_file());
    if (!schema) continue;
    CAPTURE(p.string());
    auto bytes = read_file(p);
    std::vector<std::byte> payload;
    try {
      payload = filter::read_generic_tile(bytes).payload;
    } catch (const format_error&) {
      // No version in front: the 30-byte header of TileDB 1.3, then its tile.
      codec::reader header_reader(bytes);
      const auto header = codec::decode<V13TileHeader>(header_reader);
      const std::size_t used = header_reader.offset();
      CHECK(header.persisted_size == bytes.size() - used);
      CHECK(codec::decode<V13Tile>(std::span<const std::byte>(bytes).subspan(used)).chunks.size() == 1);
      ++library_version;
      continue;
    }
    if (codec::load_le<std::uint32_t>(payload.data()) > tilefmt::format::newest_read_version) {
      CHECK(decode_error(payload).field() == "ArraySchema.version");
      ++newer;
      continue;
    }
    auto s = codec::decode<ArraySchema>(payload);
    CHECK(codec::encode(s) == payload);
    ++versioned;
  }
  CHECK(versioned == 3);
  CHECK(newer == 1);
  CHECK(library_version == 1);
}

// ---------------------------------------------------------------------------
// Hand-built payloads
// ---------------------------------------------------------------------------

namespace {
/// A v1-4 schema from the tables of the format description of TileDB 1.4-1.7
/// (ArraySchema, Domain, Dimension, Attribute, FilterPipeline, Filter).
std::string v1_to_v4_schema(std::uint32_t version) {
  char v[12];
  std::snprintf(v, sizeof v, "%02x000000", version);
  return cat({v,
              "00 01 00",                     // dense; tile order COL_MAJOR; cell order ROW_MAJOR
              "e803000000000000",             // capacity 1000
              "00000100 02000000"             // coords filters: 65536, two filters:
              " 07 04000000 00010000"         //   BIT_WIDTH_REDUCTION, max window 256
              " 02 05000000 02 03000000",     //   ZSTD level 3
              "00000000 02000000"             // offsets filters: max_chunk_size 0, two filters:
              " 0a 04000000 00040000"         //   POSITIVE_DELTA, max window 1024
              " 09 00000000",                 //   BYTESHUFFLE
              "01 02000000",                  // domain: INT64, two dimensions
              "04000000 726f7773"             // "rows"
              " 0100000000000000 6400000000000000 00 0a00000000000000",  // [1, 100], extent 10
              "04000000 636f6c73"             // "cols"
              " fbffffffffffffff 0500000000000000 01",                  // [-5, 5], null extent
              "02000000",                     // two attributes
              "01000000 61 03 01000000"       // "a": FLOAT64, 1 value,
              " 00000100 01000000 01 05000000 01 09000000",             // GZIP level 9
              "01000000 73 04 ffffffff"       // "s": CHAR, var-size,
              " 00000100 00000000"});         // no filters
}
} // namespace

TEST_CASE("versions 1 to 4 by hand from the format description's tables") {
  for (std::uint32_t version = 1; version <= 4; ++version) {
    CAPTURE(version);
    auto payload = hex_bytes(v1_to_v4_schema(version));
    REQUIRE(payload.size() == 4 + 3 + 8 + 27 + 22 + 5 + 33 + 25 + 4 + 28 + 18);
    auto s = check_schema(payload);
    CHECK(s.version.value == version);
    CHECK(s.array_type == format::ArrayType::DENSE);
    CHECK(s.tile_order == format::Layout::COL_MAJOR);
    CHECK(s.cell_order == format::Layout::ROW_MAJOR);
    CHECK(s.capacity == 1000);
    REQUIRE(s.coords_filters.filters.size() == 2);
    CHECK(s.coords_filters.filters[0].type == FilterType::BIT_WIDTH_REDUCTION);
    CHECK(s.coords_filters.filters[0].options_as<format::WindowOptions>(version).max_window_size == 256);
    CHECK(s.coords_filters.filters[1].options_as<format::CompressionOptions>(version).level == 3);
    CHECK(s.offsets_filters.max_chunk_size == 0);
    CHECK(s.offsets_filters.filters[0].options_as<format::WindowOptions>(version).max_window_size == 1024);
    CHECK(s.offsets_filters.filters[1].type == FilterType::BYTESHUFFLE);
    CHECK(s.domain.type.value == Datatype::INT64);
    const auto& rows = s.domain.dimensions[0];
    CHECK(rows.type.value == Datatype::INT64);
    CHECK(rows.domain_as<std::int64_t>() == std::pair<std::int64_t, std::int64_t>{1, 100});
    CHECK(rows.tile_extent_as<std::int64_t>() == 10);
    const auto& cols = s.domain.dimensions[1];
    CHECK(cols.domain_as<std::int64_t>() == std::pair<std::int64_t, std::int64_t>{-5, 5});
    CHECK_FALSE(cols.has_tile_extent());
    CHECK(cols.tile_extent_as<std::int64_t>() == std::nullopt);
    const auto& a = s.attributes[0];
    CHECK(a.type == Datatype::FLOAT64);
    CHECK(a.filters.filters[0].options_as<format::CompressionOptions>(version).level == 9);
    CHECK(std::isnan(nan_check(a.fill())));
    const auto& str = s.attributes[1];
    CHECK(str.name.value == "s");
    CHECK(str.is_var());
    CHECK(str.fill() == hex_bytes("80"));
    CHECK(str.filters.filters.empty());

    // A corrupt domain type names the Domain's field; a dimension cut short names the dimension.
    auto bad = payload;
    const std::size_t domain_at = 4 + 3 + 8 + 27 + 22;
    REQUIRE(bad[domain_at] == std::byte{1});
    bad[domain_at] = std::byte{200};
    CHECK(decode_error(bad).field() == "ArraySchema.domain.type");
    bad = payload;
    bad[domain_at + 5 + 3] = std::byte{0x7f};  // the first dimension's name is longer than the payload
    auto name_error = decode_error(bad);
    CHECK(name_error.field().rfind("ArraySchema.domain.dimensions[0].name", 0) == 0);
    CHECK(name_error.offset() == payload.size());  // the first character that is not there
  }

  // Version 2, sparse, a FLOAT32 domain: domain and extent are sized by the
  // domain's type (2 x 4 and 4 bytes).
  auto payload = hex_bytes(cat({"02000000 01 00 00 1027000000000000", kEmptyPipeline, kEmptyPipeline,
                                "02 01000000 01000000 78 0000003f 00002041 00 00002040",  // x in [0.5, 10], extent 2.5
                                "01000000 01000000 76 08 01000000", kEmptyPipeline}));       // v: UINT16
  auto s = check_schema(payload);
  CHECK(s.domain.dimensions[0].type.value == Datatype::FLOAT32);
  CHECK(s.domain.dimensions[0].domain_as<float>() == std::pair<float, float>{0.5f, 10.0f});
  CHECK(s.domain.dimensions[0].tile_extent_as<float>() == 2.5f);
  CHECK(s.attributes[0].fill() == hex_bytes("ffff"));

  // Before v5 every dimension has the domain's type; the encoder refuses otherwise.
  s.domain.dimensions[0].type.value = Datatype::FLOAT64;
  CHECK_THROWS_AS(codec::encode(s), std::invalid_argument);
}

TEST_CASE("version 5 and 6 by hand: typed dimensions, then fill values") {
  const std::string dims =
      "02000000"
      " 01000000 64 0b ffffffff 00000100 00000000 0000000000000000 01"      // d: STRING_ASCII, var, no domain, null extent
      " 01000000 74 18 01000000 00000100 01000000 06 05000000 06 ffffffff"  // t: DATETIME_SEC, DOUBLE_DELTA (5 option bytes)
      " 1000000000000000 0000000000000000 40420f0000000000 00 100e000000000000";  // [0, 1000000], extent 3600
  auto v5 = hex_bytes(cat({"05000000 01 01 00 00 1027000000000000", kZstdDefault, kZstdDefault, dims,
                           "01000000 01000000 76 07 01000000", kEmptyPipeline}));  // v: INT16, no fill value
  auto s5 = check_schema(v5);
  CHECK(s5.allows_dups.value == true);
  REQUIRE(s5.domain.dimensions.size() == 2);
  CHECK(s5.domain.dimensions[0].is_var());
  CHECK(s5.domain.dimensions[0].type.value == Datatype::STRING_ASCII);
  const auto& t = s5.domain.dimensions[1];
  CHECK(t.type.value == Datatype::DATETIME_SEC);
  CHECK(t.domain_as<std::int64_t>() == std::pair<std::int64_t, std::int64_t>{0, 1000000});
  CHECK(t.tile_extent_as<std::int64_t>() == 3600);
  REQUIRE(t.filters->filters.size() == 1);
  CHECK(t.filters->filters[0].options.size() == 5);
  CHECK(&s5.dimension_filters(1) == &t.filters.value);
  CHECK(&s5.dimension_filters(0) == &s5.coords_filters);
  CHECK(s5.attributes[0].fill() == le(std::numeric_limits<std::int16_t>::min()));

  auto v6 = hex_bytes(cat({"06000000 00 00 01 01 1027000000000000", kZstdDefault, kZstdDefault, dims,
                           "01000000 01000000 76 07 02000000", kEmptyPipeline,
                           "0400000000000000 0700 0900"}));  // fill value {7, 9}
  auto s6 = check_schema(v6);
  CHECK(s6.attributes[0].fill_value->value == hex_bytes("0700 0900"));
  CHECK(s6.attributes[0].fill() == hex_bytes("0700 0900"));
  CHECK(s6.attributes[0].cell_size() == 4);
}

TEST_CASE("version 23 by hand: labels, enumerations, current domain and every attribute field") {
  const std::string v23 = cat({
      "17000000 00 01 01 04 6400000000000000",  // v23, no dups, sparse, COL_MAJOR tiles, HILBERT cells, capacity 100
      kZstdDefault,
      "00000100 01000000 13 06000000 08 ffffffff 11",  // offsets: DELTA, level -1, reinterpret ANY
      kRleDefault,
      "02000000",
      " 02000000 6431 00 01000000 00000100 00000000 0800000000000000 00000000 64000000 00 0a000000",  // d1 int32 [0,100]/10
      " 02000000 6432 0b ffffffff 00000100 00000000 0000000000000000 01",                            // d2 string
      "02000000",
      " 01000000 61 03 01000000",  // a: FLOAT64
      "  00000100 01000000 0f 18000000 000000000000e03f 000000000000f03f 0400000000000000",  // SCALE_FLOAT 0.5, 1, 4
      "  0800000000000000 000000000000f87f 01 00 01 00000000",  // NaN fill, nullable, validity 0, INCREASING, no enumeration
      " 01000000 65 06 01000000 00000100 00000000",             // e: UINT8
      "  0100000000000000 02 00 00 00 06000000 636f6c6f7273",  // fill 2, UNORDERED, enumeration "colors"
      "01000000",                                               // one dimension label
      " 00000000 03000000 6c626c 01 0f00000000000000 5f5f6c6162656c732f6c305f6c626c",  // dim 0 "lbl" "__labels/l0_lbl"
      " 05000000 6c6162656c 01 03 01000000 00",  // "label", INCREASING, FLOAT64, 1 value, internal
      "01000000",                                // one enumeration
      " 06000000 636f6c6f7273 24000000 5f5f30313233343536373839616263646566303132333435363738396162636465665f30",
      "00000000 00 00",                          // current domain: version 0, not empty, NDRECTANGLE
      " 0a000000 14000000",                      // d1 in [10, 20]
      " 0300000000000000 0100000000000000 61627a",  // d2 in ["a", "bz"]
  });
  auto payload = hex_bytes(v23);
  auto s = check_schema(payload);
  CHECK(s.version.value == 23);
  CHECK(s.cell_order == format::Layout::HILBERT);
  auto delta = s.offsets_filters.filters[0].options_as<format::DeltaOptions>(23);
  CHECK(delta.compressor == format::Compressor::DELTA);
  CHECK(delta.reinterpret_datatype.value == Datatype::ANY);
  const auto& a = s.attributes[0];
  auto scale = a.filters.filters[0].options_as<format::FloatScaleOptions>(23);
  CHECK(scale.scale == 0.5);
  CHECK(scale.offset == 1.0);
  CHECK(scale.byte_width == 4);
  CHECK(a.nullable.value);
  CHECK(a.order.value == format::DataOrder::INCREASING);
  CHECK(a.enumeration_name->empty());
  const auto& e = s.attributes[1];
  CHECK(e.fill_value->value == hex_bytes("02"));
  CHECK(e.enumeration_name->value == "colors");
  REQUIRE(s.dimension_labels->size() == 1);
  const auto& l = s.dimension_labels.value[0];
  CHECK(l.dimension_index == 0);
  CHECK(l.name.value == "lbl");
  CHECK(l.relative_uri);
  CHECK(l.uri.value == "__labels/l0_lbl");
  CHECK(l.label_attr_name.value == "label");
  CHECK(l.label_order == format::DataOrder::INCREASING);
  CHECK(l.label_type == Datatype::FLOAT64);
  CHECK(l.label_cell_val_num == 1);
  CHECK_FALSE(l.is_external);
  REQUIRE(s.enumerations->size() == 1);
  CHECK(s.enumerations.value[0].name.value == "colors");
  CHECK(s.enumerations.value[0].filename.value == "__0123456789abcdef0123456789abcdef_0");
  const auto& cd = s.current_domain.value;
  CHECK_FALSE(cd.empty);
  CHECK(cd.type.value == format::CurrentDomainType::NDRECTANGLE);
  REQUIRE(cd.ndrectangle->ranges.size() == 2);
  CHECK(cd.ndrectangle->ranges[0].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{10, 20});
  CHECK(cd.ndrectangle->ranges[1].as_strings() == std::pair<std::string_view, std::string_view>{"a", "bz"});

  auto generic = boost::json::parse(codec::to_json(s));  // the generic dump is valid JSON too
  CHECK(generic.at("current_domain").at("ndrectangle") == boost::json::parse(R"([["0a000000", "14000000"], ["61", "627a"]])"));
  auto json = boost::json::parse(format::schema_to_json(s));
  CHECK(json.at("cell_order") == "HILBERT");
  CHECK(json.at("offsets_filters").at("filters").at(0) ==
        boost::json::parse(R"({"type": "DELTA", "level": -1, "reinterpret_datatype": "ANY"})"));
  CHECK(json.at("attributes").at(0).at("filters").at("filters").at(0) ==
        boost::json::parse(R"({"type": "SCALE_FLOAT", "scale": 0.5, "offset": 1, "byte_width": 4})"));
  CHECK(json.at("attributes").at(0).at("order") == "INCREASING");
  CHECK(json.at("attributes").at(1).at("enumeration_name") == "colors");
  CHECK(json.at("dimensions").at(1).at("domain").is_null());
  CHECK(json.at("dimension_labels").at(0).at("uri") == "__labels/l0_lbl");
  CHECK(json.at("enumerations").at(0).at("filename") == "__0123456789abcdef0123456789abcdef_0");
  CHECK(json.at("current_domain").at("ranges") == boost::json::parse(R"({"d1": [10, 20], "d2": ["a", "bz"]})"));
  const std::string text = format::schema_to_text(s);
  CHECK(text.find("\n  current_domain:\n    version: 0\n    empty: false\n    type: NDRECTANGLE\n"
                  "    ranges:\n      d1: [10, 20]\n      d2: [\"a\", \"bz\"]\n") != std::string::npos);
  CHECK(text.find("filters: SCALE_FLOAT(scale=0.5, offset=1, byte_width=4)") != std::string::npos);

  SUBCASE("built from the declarations") {
    ArraySchema b = format::make_array_schema(
        {.type = format::ArrayType::SPARSE,
         .dimensions = {format::make_dimension<std::int32_t>("d1", 0, 100, 10), format::make_string_dimension("d2")},
         .attributes = {format::make_attribute(
                            {.name = "a",
                             .type = Datatype::FLOAT64,
                             .nullable = true,
                             .filters = {65536,
                                         {{format::Filter::make(FilterType::SCALE_FLOAT,
                                                                format::FloatScaleOptions{0.5, 1.0, 4}, 23)}}}}),
                        format::make_attribute({.name = "e", .type = Datatype::UINT8})}});
    b.version.value = 23;  // built schemas carry format::written_version; this one is 23's layout
    b.tile_order = format::Layout::COL_MAJOR;
    b.cell_order = format::Layout::HILBERT;
    b.capacity = 100;
    b.offsets_filters.filters.value = {
        format::Filter::make(FilterType::DELTA, format::DeltaOptions{format::Compressor::DELTA, -1, {Datatype::ANY}}, 23)};
    b.attributes.value[0].order.value = format::DataOrder::INCREASING;
    b.attributes.value[1].fill_value->value = hex_bytes("02");
    b.attributes.value[1].enumeration_name->value = "colors";
    b.dimension_labels->value.push_back({0, {"lbl"}, true, {"__labels/l0_lbl"}, {"label"},
                                         format::DataOrder::INCREASING, Datatype::FLOAT64, 1, false});
    b.enumerations->value.push_back({{"colors"}, {"__0123456789abcdef0123456789abcdef_0"}});
    b.current_domain->empty = false;
    b.current_domain->ndrectangle->ranges = {format::fixed_range<std::int32_t>(10, 20),
                                             format::var_range("a", "bz")};
    CHECK(codec::encode(b) == payload);
    CHECK(b == s);

    // The current domain must have one range per dimension, of the right size.
    b.current_domain->ndrectangle->ranges.pop_back();
    CHECK_THROWS_AS(codec::encode(b), std::invalid_argument);
    b.current_domain->ndrectangle->ranges.push_back(format::fixed_range<std::int64_t>(1, 2));
    b.current_domain->ndrectangle->ranges[0] = format::fixed_range<std::int64_t>(1, 2);
    CHECK_THROWS_AS(codec::encoded_size(b), std::invalid_argument);
  }

  SUBCASE("corruptions name their field") {
    const std::size_t cd_at = payload.size() - (4 + 1 + 1 + 8 + 16 + 3);
    REQUIRE(payload[cd_at + 5] == std::byte{0});
    auto bad = payload;
    bad[cd_at] = std::byte{1};  // current domain version 1, as the spec says: TileDB rejects it
    auto err = decode_error(bad);
    CHECK(err.field() == "ArraySchema.current_domain.version");
    CHECK(err.offset() == cd_at);
    bad = payload;
    bad[cd_at + 5] = std::byte{1};
    CHECK(decode_error(bad).field() == "ArraySchema.current_domain.type");
    bad = payload;
    bad[payload.size() - 3 - 8] = std::byte{9};  // d2's start_size 9 > its 3 bytes
    CHECK(decode_error(bad).field() == "ArraySchema.current_domain.ndrectangle.ranges[1].start_size");
    bad = payload;
    bad[payload.size() - 3 - 16] = std::byte{4};  // d2's range claims 4 bytes: one is missing
    CHECK(decode_error(bad).field() == "ArraySchema.current_domain.ndrectangle.ranges[1].bytes");

    // An empty current domain is only version and flag.
    auto empty = std::vector<std::byte>(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(cd_at + 5));
    empty[cd_at + 4] = std::byte{1};
    auto se = check_schema(empty);
    CHECK(se.current_domain->empty);
    CHECK(se.current_domain->ndrectangle->ranges.empty());
  }
}

TEST_CASE("every version gate from 1 to 23") {
  // The same logical schema written at each version: one int32 dimension and
  // one int32 attribute, empty pipelines. Its size grows exactly by the
  // fields each version adds.
  for (std::uint32_t v = 1; v <= 23; ++v) {
    CAPTURE(v);
    ArraySchema s =
        format::make_array_schema({.type = format::ArrayType::DENSE,
                                   .dimensions = {format::make_dimension<std::int32_t>("d", 1, 4, 2)},
                                   .attributes = {format::make_attribute({.name = "a", .type = Datatype::INT32})}});
    s.version.value = v;
    s.coords_filters = s.offsets_filters = s.validity_filters.value = format::FilterPipeline{};
    if (v < 5) s.domain.type.value = Datatype::INT32;
    if (v < 6) s.attributes.value[0].fill_value->value.clear();
    std::size_t expected = 76;                 // versions 1-4
    if (v >= 5) expected += 1 - 1 + 21;        // allows_dups; no domain type; type, cell_val_num, filters, domain size
    if (v >= 6) expected += 8 + 4;             // fill value
    if (v >= 7) expected += 8 + 2;             // validity filters; nullable, fill value validity
    if (v >= 17) expected += 1;                // order
    if (v >= 18) expected += 4;                // no dimension labels
    if (v >= 20) expected += 4 + 4;            // no enumerations; the attribute's empty enumeration name
    if (v >= 22) expected += 5;                // empty current domain
    auto b = codec::encode(s);
    CHECK(b.size() == expected);
    auto back = check_schema(b);
    CHECK(back == s);
    CHECK(back.domain.dimensions[0].type.value == Datatype::INT32);
    CHECK(back.attributes[0].fill() == le(std::numeric_limits<std::int32_t>::min()));
  }
}

// ---------------------------------------------------------------------------
// Pieces
// ---------------------------------------------------------------------------

TEST_CASE("default fill values, per datatype") {
  using format::default_fill_value;
  CHECK(default_fill_value(Datatype::INT8, 1) == hex_bytes("80"));
  CHECK(default_fill_value(Datatype::UINT8, 1) == hex_bytes("ff"));
  CHECK(default_fill_value(Datatype::INT16, 1) == hex_bytes("0080"));
  CHECK(default_fill_value(Datatype::UINT16, 1) == hex_bytes("ffff"));
  CHECK(default_fill_value(Datatype::INT32, 2) == hex_bytes("00000080 00000080"));
  CHECK(default_fill_value(Datatype::UINT32, 1) == hex_bytes("ffffffff"));
  CHECK(default_fill_value(Datatype::INT64, 1) == hex_bytes("0000000000000080"));
  CHECK(default_fill_value(Datatype::UINT64, 1) == hex_bytes("ffffffffffffffff"));
  CHECK(default_fill_value(Datatype::FLOAT32, 1) == hex_bytes("0000c07f"));
  CHECK(default_fill_value(Datatype::FLOAT64, 3) == hex_bytes("000000000000f87f 000000000000f87f 000000000000f87f"));
  CHECK(default_fill_value(Datatype::CHAR, format::var_num) == hex_bytes("80"));
  CHECK(default_fill_value(Datatype::CHAR, 3) == hex_bytes("808080"));
  CHECK(default_fill_value(Datatype::STRING_ASCII, format::var_num) == hex_bytes("00"));
  CHECK(default_fill_value(Datatype::STRING_UTF8, format::var_num) == hex_bytes("00"));
  CHECK(default_fill_value(Datatype::STRING_UTF16, 1) == hex_bytes("0000"));
  CHECK(default_fill_value(Datatype::STRING_UCS4, 1) == hex_bytes("00000000"));
  CHECK(default_fill_value(Datatype::ANY, 1) == hex_bytes("00"));
  CHECK(default_fill_value(Datatype::BOOL, 4) == hex_bytes("00000000"));
  CHECK(default_fill_value(Datatype::BLOB, format::var_num) == hex_bytes("00"));
  CHECK(default_fill_value(Datatype::GEOM_WKB, 1) == hex_bytes("00"));
  CHECK(default_fill_value(Datatype::GEOM_WKT, 1) == hex_bytes("00"));
  for (int t = static_cast<int>(Datatype::DATETIME_YEAR); t <= static_cast<int>(Datatype::TIME_AS); ++t)
    CHECK(default_fill_value(static_cast<Datatype>(t), 1) == hex_bytes("0000000000000080"));
}

TEST_CASE("enumeration files") {
  // Strings: the data, then the offsets (a byte size, then a u64 per value).
  auto payload = hex_bytes(
      "00000000 06000000 636f6c6f7273"
      "24000000 5f5f30313233343536373839616263646566303132333435363738396162636465665f30"
      "0b ffffffff 01"
      "0c00000000000000 726564677265656e626c7565"  // "redgreenblue"
      "1800000000000000 0000000000000000 0300000000000000 0800000000000000");
  auto e = codec::decode<format::Enumeration>(payload);
  CHECK(codec::encode(e) == payload);
  check_every_prefix_throws<format::Enumeration>(payload);
  CHECK(e.name.value == "colors");
  CHECK(e.path_name.value == "__0123456789abcdef0123456789abcdef_0");
  CHECK(e.type == Datatype::STRING_ASCII);
  CHECK(e.is_var());
  CHECK(e.ordered);
  CHECK(e.offset_values() == std::vector<std::uint64_t>{0, 3, 8});
  CHECK(e.string_values() == std::vector<std::string>{"red", "green", "blue"});

  // Fixed-size values have no offsets.
  auto ints = hex_bytes("00000000 01000000 6e 00000000 00 01000000 00 0800000000000000 0a000000 14000000");
  auto fixed = codec::decode<format::Enumeration>(ints);
  CHECK(codec::encode(fixed) == ints);
  check_every_prefix_throws<format::Enumeration>(ints);
  CHECK(fixed.type == Datatype::INT32);
  CHECK(fixed.offset_values().empty());
  CHECK(fixed.data.value == hex_bytes("0a000000 14000000"));

  auto newer = ints;
  newer[0] = std::byte{1};  // a version this library does not know
  try {
    (void)codec::decode<format::Enumeration>(newer);
    FAIL("expected format_error");
  } catch (const format_error& err) {
    CHECK(err.field() == "Enumeration.version");
  }
}

TEST_CASE("an NDRectangle on its own, with the dimensions in a context") {
  format::NDRectangleContext ctx{{{Datatype::UINT16, false}, {Datatype::STRING_ASCII, true}, {Datatype::FLOAT64, false}}};
  format::NDRectangle r{{format::fixed_range<std::uint16_t>(3, 9), format::var_range("", "zz"),
                         format::fixed_range<double>(-1.5, 2.0)}};
  auto b = tilefmt::testing::check_round_trip(r, ctx);
  CHECK(b == hex_bytes("0300 0900  0200000000000000 0000000000000000 7a7a  000000000000f8bf 0000000000000040"));
  check_every_prefix_throws<format::NDRectangle>(b, ctx);
  auto back = codec::decode<format::NDRectangle>(b, ctx);
  CHECK(back.ranges[1].lo().empty());
  CHECK(back.ranges[2].as<double>() == std::pair<double, double>{-1.5, 2.0});
  CHECK_THROWS_AS(back.ranges[0].as<std::uint32_t>(), std::invalid_argument);
  CHECK(codec::to_json(r) == R"([["0300", "0900"], ["", "7a7a"], ["000000000000f8bf", "0000000000000040"]])");
}

TEST_CASE("attributes and dimensions decoded alone with a version") {
  struct ctx_t {
    std::uint32_t version;
  };
  auto a = format::make_attribute({.name = "x", .type = Datatype::UINT32, .cell_val_num = 2, .nullable = true});
  auto b17 = codec::encode(a, ctx_t{17});
  auto b16 = codec::encode(a, ctx_t{16});
  CHECK(b17.size() == b16.size() + 1);
  CHECK(codec::decode<format::Attribute>(b17, ctx_t{17}) == a);
  CHECK(a.cell_size() == 8);
  auto d = format::make_dimension<std::uint8_t>("y", 0, 255, std::nullopt);
  CHECK(codec::encode(d, ctx_t{23}) ==
        hex_bytes("01000000 79 06 01000000 00000100 00000000 0200000000000000 00ff 01"));
}

// ---------------------------------------------------------------------------
// Dumps
// ---------------------------------------------------------------------------

TEST_CASE("schema dumps in words") {
  auto s = codec::decode<ArraySchema>(schema_payload(only_file(data_dir / "legacy/sparse_array_v11/__schema")));
  CHECK(format::schema_to_text(s) == R"(ArraySchema
  version: 11
  allows_dups: false
  array_type: SPARSE
  tile_order: ROW_MAJOR
  cell_order: ROW_MAJOR
  capacity: 2
  coords_filters: ZSTD(level=-1)
  offsets_filters: ZSTD(level=-1)
  validity_filters: RLE(level=-1)
  dimensions:
    - name: "d1"
      type: UINT64
      cell_val_num: 1
      filters: (none)
      domain: [1, 4]
      tile_extent: 2
    - name: "d2"
      type: UINT64
      cell_val_num: 1
      filters: (none)
      domain: [1, 4]
      tile_extent: 2
  attributes:
    - name: "a1"
      type: INT32
      cell_val_num: 1
      filters: LZ4(level=-1)
      fill_value: -2147483648
      nullable: false
      fill_value_validity: 0
    - name: "a2"
      type: CHAR
      cell_val_num: var
      filters: GZIP(level=-1)
      fill_value: "\u0080"
      nullable: false
      fill_value_validity: 0
    - name: "a3"
      type: FLOAT32
      cell_val_num: 2
      filters: ZSTD(level=-1)
      fill_value: [NaN, NaN]
      nullable: false
      fill_value_validity: 0
)");

  auto json = boost::json::parse(format::schema_to_json(s));
  CHECK(json.at("version") == 11);
  CHECK(json.at("array_type") == "SPARSE");
  CHECK(json.at("coords_filters").at("filters").at(0).at("type") == "ZSTD");
  CHECK(json.at("coords_filters").at("filters").at(0).at("level") == -1);
  CHECK(json.at("dimensions").at(1).at("domain") == boost::json::array{1, 4});
  CHECK(json.at("attributes").at(1).at("cell_val_num") == "var");
  CHECK(json.at("attributes").at(2).at("fill_value") == boost::json::array{"NaN", "NaN"});

  // The generic dump names every field and enum too.
  auto generic = codec::to_text(s);
  CHECK(generic.find("array_type: SPARSE") != std::string::npos);
  CHECK(generic.find("validity_filters: FilterPipeline") != std::string::npos);
  (void)boost::json::parse(codec::to_json(s));

  // Filters in words, options decoded by type and version.
  using format::Filter;
  CHECK(format::filter_to_text(Filter::make(FilterType::BIT_WIDTH_REDUCTION, format::WindowOptions{128}, 23), 23) ==
        "BIT_WIDTH_REDUCTION(max_window_size=128)");
  CHECK(format::filter_to_text(
            Filter::make(FilterType::DOUBLE_DELTA,
                         format::DoubleDeltaOptions{format::Compressor::DOUBLE_DELTA, -1, {Datatype::INT32}}, 20),
            20) == "DOUBLE_DELTA(level=-1, reinterpret_datatype=INT32)");
  CHECK(format::filter_to_text(
            Filter::make(FilterType::DOUBLE_DELTA, format::DoubleDeltaOptions{format::Compressor::DOUBLE_DELTA, 4, {}}, 19),
            19) == "DOUBLE_DELTA(level=4)");
  CHECK(format::filter_to_text(Filter::make(FilterType::DICTIONARY,
                                            format::CompressionOptions{format::Compressor::DICTIONARY_ENCODING, -1}, 23),
                               23) == "DICTIONARY(level=-1)");
  CHECK(format::filter_to_text(Filter::make(FilterType::DICTIONARY,
                                            format::CompressionOptions{format::Compressor::ZSTD, 3}, 23),
                               23) == "DICTIONARY(compressor=ZSTD, level=3)");
  CHECK(format::filter_to_text(
            Filter::make(FilterType::WEBP, format::WebpOptions{80.5f, 3, 1, 64, 256, {}}, 23), 23) ==
        "WEBP(quality=80.5, format=RGBA, lossless=1, y_extent=64, x_extent=256)");
  CHECK(format::filter_to_text(Filter::make(FilterType::CHECKSUM_SHA256), 23) == "CHECKSUM_SHA256");
  CHECK(format::filter_to_text(Filter{FilterType::ZSTD, {hex_bytes("0203")}}, 23) == "ZSTD(options=\"0203\")");
  CHECK(format::filter_to_json(Filter::make(FilterType::SCALE_FLOAT, format::FloatScaleOptions{0.25, -3, 2}, 23), 23) ==
        R"({"type": "SCALE_FLOAT", "scale": 0.25, "offset": -3, "byte_width": 2})");
  format::FilterPipeline unchunked{0, {{Filter::make(FilterType::XOR)}}};
  CHECK(format::pipeline_to_text(unchunked, 23) == "XOR max_chunk_size=0");

  // Values by type.
  CHECK(format::values_to_text(Datatype::STRING_UTF8, hex_bytes("c3a9 22")) == R"("é\"")");
  CHECK(format::values_to_text(Datatype::BLOB, hex_bytes("00ff")) == R"("00ff")");
  CHECK(format::values_to_text(Datatype::DATETIME_MS, le<std::int64_t>(-5)) == "-5");
  CHECK(format::values_to_text(Datatype::FLOAT32, le(std::numeric_limits<float>::infinity()), true) == R"("Infinity")");
}

// ---------------------------------------------------------------------------
// Arrays written by TileDB-Py (tests/data/tiledb, with a manifest)
// ---------------------------------------------------------------------------

namespace {

std::vector<fs::path> corpus_manifests() {
  std::vector<fs::path> out;
  const fs::path root = data_dir / "tiledb";
  if (!fs::is_directory(root)) return out;
  if (fs::exists(root / "manifest.json")) return {root / "manifest.json"};
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "manifest.json")) out.push_back(e.path() / "manifest.json");
  std::sort(out.begin(), out.end());
  return out;
}

std::string layout_name(std::string_view py) {
  if (py == "row-major") return "ROW_MAJOR";
  if (py == "col-major") return "COL_MAJOR";
  if (py == "hilbert") return "HILBERT";
  if (py == "global") return "GLOBAL_ORDER";
  if (py == "unordered") return "UNORDERED";
  return std::string(py);
}

void check_filters(const boost::json::value& expected, const format::FilterPipeline& got, std::uint32_t version,
                   bool compare_chunk_size) {
  const auto& list = expected.at("filters").as_array();
  REQUIRE(list.size() == got.filters.size());
  if (compare_chunk_size && expected.at("max_chunk_size").as_int64() != 0)
    CHECK(static_cast<std::int64_t>(got.max_chunk_size) == expected.at("max_chunk_size").as_int64());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& f = got.filters[i];
    CHECK(list[i].at("type").as_string() == format::codec_enum_name(f.type));
    const auto& opts = list[i].at("options").as_object();
    if (auto* level = opts.if_contains("level")) {
      std::int32_t stored = f.type == FilterType::DELTA ? f.options_as<format::DeltaOptions>(version).level
                            : f.type == FilterType::DOUBLE_DELTA
                                ? f.options_as<format::DoubleDeltaOptions>(version).level
                                : f.options_as<format::CompressionOptions>(version).level;
      CHECK(level->as_int64() == stored);
    }
    if (auto* window = opts.if_contains("window"))
      CHECK(window->as_int64() == f.options_as<format::WindowOptions>(version).max_window_size);
    if (auto* width = opts.if_contains("bytewidth"))
      CHECK(width->as_int64() == static_cast<std::int64_t>(f.options_as<format::FloatScaleOptions>(version).byte_width));
  }
}

std::vector<std::byte> from_hex(std::string_view h) { return hex_bytes(h); }

} // namespace

TEST_CASE("dumps show a huge default fill value as value and count, without building it") {
  // Found by fuzz/fuzz_schema: a v5 schema (no stored fill values) whose
  // attribute has 0x41000001 INT32 values per cell; the dump built the
  // default fill value, 4 GiB, from a 4-byte field.
  const auto payload = hex_bytes(
      "05000000 00 00 00 00 1027000000000000"         // v5, dups, dense, orders, capacity
      "00000100 00000000 00000100 00000000"           // coords, offsets filters
      "01000000 01000000 78 00 01000000 00000100 00000000"  // 1 dimension "x" INT32
      "0800000000000000 01000000 10000000 00 04000000"      // domain [1, 16], extent 4
      "01000000 01000000 61 00 01000041 00000100 00000000");  // "a" INT32 x 0x41000001
  auto s = codec::decode<ArraySchema>(payload);
  REQUIRE(s.attributes[0].cell_val_num == 0x41000001u);
  CHECK(format::schema_to_text(s).find("fill_value: -2147483648 x 1090519041") != std::string::npos);
  auto json = boost::json::parse(format::schema_to_json(s));
  const auto& fill = json.at("attributes").at(0).at("fill_value");
  CHECK(fill.at("value").as_int64() == std::numeric_limits<std::int32_t>::min());
  CHECK(fill.at("count").as_int64() == 0x41000001);
  // Up to 65536 values the cell is listed as before.
  s.attributes.value[0].cell_val_num = 3;
  CHECK(format::schema_to_text(s).find("fill_value: [-2147483648, -2147483648, -2147483648]") != std::string::npos);
}

TEST_CASE("schemas of arrays written by TileDB-Py match their manifest") {
  auto manifests = corpus_manifests();
  if (manifests.empty()) {
    MESSAGE("no TileDB-Py corpus under tests/data/tiledb: skipped");
    return;
  }
  std::size_t schemas = 0;
  for (const auto& mpath : manifests) {
    std::ifstream in(mpath);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    auto manifest = boost::json::parse(text);
    const fs::path root = mpath.parent_path();
    for (const auto& entry : manifest.at("arrays").as_array()) {
      const std::string path = std::string(entry.at("path").as_string());
      CAPTURE(path);
      if (entry.as_object().contains("encryption") && !entry.at("encryption").is_null()) continue;
      const auto& facts = entry.at("schema");
      const fs::path schema_dir = root / path / "__schema";
      const auto& files = entry.at("schema_files").as_array();
      REQUIRE(!files.empty());
      // The newest schema (the listing is lexicographic) is the one TileDB-Py described.
      for (std::size_t fi = 0; fi < files.size(); ++fi) {
        const std::string name = std::string(files[fi].as_string());
        CAPTURE(name);
        auto payload = schema_payload(schema_dir / name);
        ArraySchema s = codec::decode<ArraySchema>(payload);
        CHECK(codec::encode(s) == payload);
        ++schemas;
        if (fi + 1 != files.size()) continue;
        const std::uint32_t v = s.version.value;
        CHECK(std::string(codec_enum_name(s.array_type)) == (facts.at("array_type") == "sparse" ? "SPARSE" : "DENSE"));
        CHECK(std::string(codec_enum_name(s.cell_order)) == layout_name(facts.at("cell_order").as_string()));
        // TileDB-Py reports no tile order for arrays in Hilbert cell order.
        if (facts.at("tile_order").is_string())
          CHECK(std::string(codec_enum_name(s.tile_order)) == layout_name(facts.at("tile_order").as_string()));
        CHECK(static_cast<std::int64_t>(s.capacity) == facts.at("capacity").as_int64());
        if (s.is_sparse()) CHECK(s.allows_dups.value == facts.at("allows_duplicates").as_bool());
        check_filters(facts.at("coords_filters"), s.coords_filters, v, true);
        check_filters(facts.at("offsets_filters"), s.offsets_filters, v, true);
        if (!facts.at("validity_filters").is_null()) check_filters(facts.at("validity_filters"), s.validity_filters.value, v, true);
        const auto& dims = facts.at("dims").as_array();
        REQUIRE(dims.size() == s.domain.dimensions.size());
        for (std::size_t i = 0; i < dims.size(); ++i) {
          const auto& d = s.domain.dimensions[i];
          CHECK(dims[i].at("name").as_string() == d.name.value);
          CHECK(dims[i].at("type").as_string() == format::codec_enum_name(d.type.value));
          CHECK(dims[i].at("var").as_bool() == d.is_var());
          // TileDB-Py reports the filters TileDB applies: the coords filters when the dimension has none.
          check_filters(dims[i].at("filters"), s.dimension_filters(i), v, false);
        }
        const auto& attrs = facts.at("attrs").as_array();
        REQUIRE(attrs.size() == s.attributes.size());
        for (std::size_t i = 0; i < attrs.size(); ++i) {
          const auto& a = s.attributes[i];
          CAPTURE(a.name.value);
          CHECK(attrs[i].at("name").as_string() == a.name.value);
          CHECK(attrs[i].at("type").as_string() == format::codec_enum_name(a.type));
          CHECK(attrs[i].at("cell_val_num").as_int64() == a.cell_val_num);
          CHECK(attrs[i].at("var").as_bool() == a.is_var());
          CHECK(attrs[i].at("nullable").as_bool() == a.nullable.value);
          // The fill value as TileDB read it; null when no cell showed it.
          if (attrs[i].at("fill_value_hex").is_string())
            CHECK(from_hex(attrs[i].at("fill_value_hex").as_string()) == a.fill());
          if (auto* fv = attrs[i].as_object().if_contains("fill_validity"))
            CHECK(fv->to_number<int>() == a.fill_value_validity.value);
          check_filters(attrs[i].at("filters"), a.filters, v, false);
          if (auto* en = attrs[i].as_object().if_contains("enumeration")) CHECK(en->as_string() == a.enumeration_name->value);
        }
        (void)boost::json::parse(format::schema_to_json(s));
      }
    }
  }
  MESSAGE(schemas << " schema files checked");
  CHECK(schemas > 0);
}

} // namespace test_array_schema
