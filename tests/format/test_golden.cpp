// Golden bytes built by hand from the spec tables (format_spec/tile.md,
// generic_tile.md) and one real TileDB file: each decodes to the expected
// values, re-encodes to the same bytes, and rejects every truncation.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tilefmt/format/filter_metadata.hpp"
#include "tilefmt/format/generic_tile.hpp"
#include "tilefmt/format/tile.hpp"

#include "../support/testing.hpp"

namespace test_golden {

using namespace tilefmt;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::hex_bytes;

#ifndef TILEFMT_TEST_DATA
#error "TILEFMT_TEST_DATA must name tests/data"
#endif

namespace {
std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  REQUIRE(f.good());
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), {});
  return {reinterpret_cast<const std::byte*>(raw.data()), reinterpret_cast<const std::byte*>(raw.data()) + raw.size()};
}

template <class T>
void check_golden(const std::vector<std::byte>& bytes, const T& expected) {
  T v = codec::decode<T>(bytes);
  CHECK(v == expected);
  CHECK(codec::encode(v) == bytes);
  CHECK(codec::encoded_size(v) == bytes.size());
  check_every_prefix_throws<T>(bytes);
}
} // namespace

TEST_CASE("CompressedPartMD") {
  static_assert(codec::fixed_wire_size<format::CompressedPartMD> == 8);
  check_golden(hex_bytes("89000000 40000000"), format::CompressedPartMD{137, 64});
}

TEST_CASE("CompressionMD: counts first, metadata parts then data parts") {
  check_golden(hex_bytes("01000000 02000000  05000000 07000000  00000100 34120000  0a000000 0b000000"),
               format::CompressionMD{{}, {}, {{5, 7}}, {{65536, 0x1234}, {10, 11}}});
}

TEST_CASE("WindowMD<int32_t> and the bit width reduction metadata") {
  static_assert(codec::fixed_wire_size<format::WindowMD<std::int32_t>> == 9);
  static_assert(codec::fixed_wire_size<format::WindowMD<std::uint64_t>> == 13);
  check_golden(hex_bytes("fbffffff 08 00010000"), format::WindowMD<std::int32_t>{-5, 8, 256});
  check_golden(hex_bytes("00020000 02000000  0a000000 08 00010000  ffffff7f 20 00010000"),
               format::BitWidthReductionMD<std::int32_t>{512, {{{10, 8, 256}, {0x7fffffff, 32, 256}}}});
}

TEST_CASE("positive delta metadata") {
  static_assert(codec::fixed_wire_size<format::PositiveDeltaWindowMD<std::int64_t>> == 12);
  check_golden(hex_bytes("01000000 0900000000000000 00040000"),
               format::PositiveDeltaMD<std::int64_t>{{{{9, 1024}}}});
}

TEST_CASE("AESPart: lengths, 12-byte IV, 16-byte tag") {
  static_assert(codec::fixed_wire_size<format::AESPart> == 36);
  format::AESPart part{100, 100, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                       {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf}};
  check_golden(hex_bytes("64000000 64000000 0102030405060708090a0b0c a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"), part);
  format::EncryptionMD md{{}, {}, {}, {part}};
  auto b = codec::encode(md);
  CHECK(b.size() == 8 + 36);
  check_golden(b, md);
}

TEST_CASE("checksum metadata: per part a u64 length and the digest") {
  static_assert(codec::fixed_wire_size<format::ChecksumPart<16>> == 24);
  static_assert(codec::fixed_wire_size<format::ChecksumPart<32>> == 40);
  format::ChecksumMD5MD md{{}, {}, {}, {{16, {0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98,
                                              0xec, 0xf8, 0x42, 0x7e}}}};
  check_golden(hex_bytes("00000000 01000000 1000000000000000 d41d8cd98f00b204e9800998ecf8427e"), md);
}

TEST_CASE("Chunk: lengths, metadata, data") {
  // A gzip'ed chunk as in format_spec/tile.md: CompressionMD then the stream.
  auto bytes = hex_bytes("89000000 04000000 10000000  00000000 01000000 89000000 04000000  789c0300");
  format::Chunk c = codec::decode<format::Chunk>(bytes);
  CHECK(c.original_length == 137);
  CHECK(c.metadata.size() == 16);
  CHECK(c.data == hex_bytes("789c0300"));
  check_golden(bytes, c);
  auto md = codec::decode<format::CompressionMD>(c.metadata);
  CHECK(md == format::CompressionMD{{}, {}, {}, {{137, 4}}});

  // The view form points into the input.
  auto view = codec::decode<format::ChunkView>(bytes);
  CHECK(view.data.bytes().data() == bytes.data() + 12 + 16);
  CHECK(codec::encode(view) == bytes);

  // A lying length is caught before anything is read past the end.
  auto bad = bytes;
  bad[4] = std::byte{0x40};
  CHECK_THROWS_AS(codec::decode<format::Chunk>(bad), format_error);
}

TEST_CASE("Tile: chunk count then chunks; an empty tile") {
  check_golden(hex_bytes("0000000000000000"), format::Tile{});
  auto two = hex_bytes("0200000000000000  03000000 03000000 00000000 616263  00000000 00000000 00000000");
  format::Tile t = codec::decode<format::Tile>(two);
  REQUIRE(t.chunks.size() == 2);
  CHECK(t.chunks[0].data == hex_bytes("616263"));
  CHECK(t.chunks[1].original_length == 0);
  check_golden(two, t);
}

TEST_CASE("generic tile header: the worked example of a v10 schema file") {
  // Version 10, persisted 100, tile 137, CHAR, cell 1, no encryption,
  // pipeline 65536 / one GZIP filter at level 1.
  auto bytes = hex_bytes("0a000000 6400000000000000 8900000000000000 04 0100000000000000 00 12000000"
                         "00000100 01000000 01 05000000 01 01000000");
  REQUIRE(bytes.size() == 52);
  auto h = codec::decode<format::GenericTileHeader>(bytes);
  CHECK(h.version.value == 10);
  CHECK(h.persisted_size == 100);
  CHECK(h.tile_size == 137);
  CHECK(h.datatype == format::Datatype::CHAR);
  CHECK(h.cell_size == 1);
  CHECK(h.encryption_type == format::EncryptionType::NO_ENCRYPTION);
  REQUIRE(h.filters->filters.size() == 1);
  CHECK(h.filters->filters[0].type == format::FilterType::GZIP);
  auto opts = h.filters->filters[0].options_as<format::CompressionOptions>(h.version);
  CHECK(opts.compressor == format::Compressor::GZIP);
  CHECK(opts.level == 1);
  check_golden(bytes, h);

  auto bad_type = bytes;
  bad_type[20] = std::byte{44}; // datatype past GEOM_WKT
  try {
    codec::decode<format::GenericTileHeader>(bad_type);
    FAIL("expected format_error");
  } catch (const format_error& e) {
    CHECK(e.field() == "GenericTileHeader.datatype");
    CHECK(e.offset() == 20);
  }
  auto bad_frame = bytes;
  bad_frame[30] = std::byte{0x13}; // pipeline claims 19 bytes
  CHECK_THROWS_AS(codec::decode<format::GenericTileHeader>(bad_frame), format_error);
}

TEST_CASE("generic tile of a real TileDB v10 schema file") {
  auto file = read_file(std::filesystem::path(TILEFMT_TEST_DATA) /
                        "legacy/zero_var_chunks_v10/__schema/__1693562063520_1693562063520_87f6551825c94139b3000f0d6b7c0ac0");
  codec::reader header_reader(file);
  const auto h = codec::decode<format::GenericTileHeader>(header_reader);
  const std::size_t used = header_reader.offset();
  CHECK(used == 52);
  CHECK(h.persisted_size == file.size() - used);
  auto tile = codec::decode<format::TileView>(std::span(file).subspan(used));
  REQUIRE(tile.chunks.size() == 1);
  CHECK(tile.chunks[0].original_length == h.tile_size);
  auto md = codec::decode<format::CompressionMD>(tile.chunks[0].metadata.bytes());
  REQUIRE(md.data_parts.size() == 1);
  CHECK(md.data_parts[0].compressed_length == tile.chunks[0].data.size());
  CHECK(std::to_integer<int>(tile.chunks[0].data[0]) == 0x78); // zlib header
  CHECK(std::to_integer<int>(tile.chunks[0].data[1]) == 0x01); // level 1
  std::vector<std::byte> again = codec::encode(h);
  auto body = codec::encode(tile);
  again.insert(again.end(), body.begin(), body.end());
  CHECK(again == file);
}

TEST_CASE("filter options by version") {
  format::DeltaOptions d{format::Compressor::DELTA, -1, {format::Datatype::INT32}};
  auto v19 = format::Filter::make(format::FilterType::DELTA, d, 19);
  CHECK(v19.options.size() == 6);
  auto v18 = format::Filter::make(format::FilterType::DELTA, d, 18);
  CHECK(v18.options.size() == 5);
  CHECK(v19.options_as<format::DeltaOptions>(19).reinterpret_datatype.value == format::Datatype::INT32);
  CHECK(v18.options_as<format::DeltaOptions>(18).reinterpret_datatype.value == format::Datatype::ANY);
  static_assert(codec::fixed_wire_size<format::FloatScaleOptions> == 24);
  static_assert(codec::fixed_wire_size<format::WebpOptions> == 12);
  static_assert(codec::fixed_wire_size<format::CompressionOptions> == 5);
}

} // namespace test_golden
