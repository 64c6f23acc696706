// The pipeline engine: chunk framing, metadata stacking, compile-time and
// runtime pipelines agreeing byte for byte, corrupt tiles rejected.
#include "tilefmt/filter/pipeline.hpp"

#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/bzip2.hpp"
#include "tilefmt/filter/checksum_md5.hpp"
#include "tilefmt/filter/checksum_sha256.hpp"
#include "tilefmt/filter/dictionary.hpp"
#include "tilefmt/filter/gzip.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/none.hpp"
#include "tilefmt/filter/rle.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "../support/testing.hpp"

namespace test_pipeline {

using namespace tilefmt;
using tilefmt::testing::hex_bytes;

namespace {
template <class T>
std::vector<T> smooth(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(i / 7 + (i % 3));
  return v;
}

template <class P, class T>
void check_both_ways(const std::vector<T>& values) {
  auto tile = P::template encode<T>(values);
  CHECK(P::template decode<T>(tile) == values);
  // The runtime pipeline built from the descriptor decodes it into the
  // values' little-endian bytes (on every host) and encodes the same tile.
  filter::runtime_pipeline rp(P::descriptor(), format::datatype_of<T>(), tilefmt::format::written_version);
  std::vector<std::byte> le(values.size() * sizeof(T));
  codec::store_le_array(le.data(), values.data(), values.size());
  CHECK(rp.decode(tile, rp.context(sizeof(T))) == le);
  CHECK(rp.encode(le, rp.context(sizeof(T))) == tile);
}

/// A var-size string tile: cells back to back, one offset per cell.
struct strings_tile {
  std::vector<std::byte> data;
  std::vector<std::uint64_t> offsets;
};

/// `n` cells in runs, from a small vocabulary, with a few long cells. The
/// first cell (when n > 1) is at least as long to write as any other: TileDB
/// sizes RLE's string lengths without the last run (see test_rle.cpp).
strings_tile string_cells(std::size_t n, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  strings_tile t;
  while (t.offsets.size() < n) {
    std::size_t len = t.offsets.empty() ? (n > 1 ? 300 : 5) : r.below(20) == 0 ? 2000 + r.below(3000) : r.below(12);
    std::string cell;
    char base = static_cast<char>('a' + r.below(5));
    for (std::size_t i = 0; i < len; ++i) cell += static_cast<char>(base + static_cast<char>(i % 3));
    for (std::size_t k = 1 + r.below(4); k > 0 && t.offsets.size() < n; --k) {
      t.offsets.push_back(t.data.size());
      for (char ch : cell) t.data.push_back(static_cast<std::byte>(ch));
    }
  }
  return t;
}
} // namespace

TEST_CASE("empty pipeline: chunks with no metadata, data as is") {
  std::vector<std::uint16_t> v{1, 2, 3};
  auto tile = filter::pipeline<>::encode<std::uint16_t>(v);
  CHECK(tile == hex_bytes("0100000000000000 06000000 06000000 00000000 010002000300"));
  CHECK(filter::pipeline<>::decode<std::uint16_t>(tile) == v);
  // An empty tile has no chunks.
  CHECK(filter::pipeline<>::encode<std::uint16_t>(std::vector<std::uint16_t>{}) == hex_bytes("0000000000000000"));
  CHECK(filter::pipeline<>::decode<std::uint16_t>(hex_bytes("0000000000000000")).empty());
}

TEST_CASE("chunking: a tile over 64 KiB has 64 KiB chunks; chunking off gives one") {
  auto v = smooth<std::int32_t>(40000); // 160000 bytes
  auto tile = filter::pipeline<filter::none>::encode<std::int32_t>(v);
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 3);
  CHECK(view.chunks[0].original_length == 65536);
  CHECK(view.chunks[2].original_length == 160000 - 2 * 65536);
  auto one = filter::pipeline<filter::none>::encode<std::int32_t>(v, {.chunking = false});
  CHECK(codec::decode<format::TileView>(one).chunks.size() == 1);
  CHECK(filter::pipeline<filter::none>::descriptor(23, false).max_chunk_size == 0);
}

TEST_CASE("compressors round trip, alone and stacked") {
  for (std::size_t n : {0u, 1u, 7u, 1000u, 16385u, 50000u}) {
    CAPTURE(n);
    auto v = smooth<std::int32_t>(n);
    check_both_ways<filter::pipeline<filter::zstd<>>>(v);
    check_both_ways<filter::pipeline<filter::zstd<19>>>(v);
    check_both_ways<filter::pipeline<filter::lz4<>>>(v);
    check_both_ways<filter::pipeline<filter::gzip<>>>(v);
    check_both_ways<filter::pipeline<filter::gzip<9>>>(v);
    check_both_ways<filter::pipeline<filter::bzip2<>>>(v);
    check_both_ways<filter::pipeline<filter::checksum_md5, filter::zstd<>, filter::checksum_sha256>>(v);
    check_both_ways<filter::pipeline<filter::gzip<1>, filter::lz4<>>>(v);
  }
}

TEST_CASE("metadata stacking: checksum after compression keeps the compression header after its own") {
  std::vector<std::uint8_t> v(100, 7);
  using P = filter::pipeline<filter::zstd<>, filter::checksum_md5>;
  auto tile = P::encode<std::uint8_t>(v);
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 1);
  auto md = view.chunks[0].metadata.bytes();
  // md5 header (8 + 2 x (8 + 16)) first: one metadata part (zstd's header), one data part.
  codec::reader r(md);
  auto ck = codec::decode<format::ChecksumMD5MD>(r);
  CHECK(ck.metadata_checksums.size() == 1);
  CHECK(ck.data_checksums.size() == 1);
  CHECK(ck.metadata_checksums[0].length == 16);
  auto zmd = codec::decode<format::CompressionMD>(md.subspan(r.offset()));
  CHECK(zmd.data_parts.size() == 1);
  CHECK(zmd.data_parts[0].original_length == 100);
  // Compression swallows the earlier metadata: md5 then zstd leaves one header.
  using Q = filter::pipeline<filter::checksum_md5, filter::zstd<>>;
  auto q_bytes = Q::encode<std::uint8_t>(v); // the view points into these bytes
  auto q = codec::decode<format::TileView>(q_bytes);
  auto qmd = codec::decode<format::CompressionMD>(q.chunks[0].metadata.bytes());
  CHECK(qmd.metadata_parts.size() == 1);
  CHECK(qmd.metadata_parts[0].original_length == 8 + 24);
}

TEST_CASE("checksum mismatch is a checksum_error; verification can be skipped") {
  auto v = smooth<std::uint32_t>(1000);
  using P = filter::pipeline<filter::checksum_sha256>;
  auto tile = P::encode<std::uint32_t>(v);
  tile[tile.size() - 10] ^= std::byte{1};
  CHECK_THROWS_AS(P::decode<std::uint32_t>(tile), filter::checksum_error);
  auto got = P::decode<std::uint32_t>(tile, {.verify_checksums = false});
  CHECK(got.size() == v.size());
  CHECK(got != v);
}

TEST_CASE("CHECKSUM_SHA256: FIPS 180-2's digest of \"abc\" in TileDB's layout") {
  const std::vector<std::uint8_t> abc{'a', 'b', 'c'};
  using P = filter::pipeline<filter::checksum_sha256>;
  // One chunk of 3 bytes; its metadata: no metadata part, one data part of
  // 3 bytes and its digest; then the data as is.
  const auto expected = hex_bytes("0100000000000000 03000000 03000000 30000000"
                                  "00000000 01000000 0300000000000000"
                                  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
                                  "616263");
  auto tile = P::encode<std::uint8_t>(abc);
  CHECK(tile == expected);
  CHECK(P::decode<std::uint8_t>(expected) == abc);
  filter::runtime_pipeline rp(P::descriptor(), format::Datatype::UINT8, 23);
  CHECK(rp.encode(std::as_bytes(std::span(abc)), rp.context(1)) == expected);
  // The empty message's digest, for an empty part.
  std::array<std::uint8_t, 32> empty{};
  filter::detail::sha256_hash::digest({}, empty.data());
  CHECK(hex_bytes("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") ==
        std::vector<std::byte>(reinterpret_cast<const std::byte*>(empty.data()),
                               reinterpret_cast<const std::byte*>(empty.data()) + empty.size()));
}

TEST_CASE("corrupt tiles: every truncation and many bit flips fail cleanly") {
  auto v = smooth<std::int64_t>(3000);
  using P = filter::pipeline<filter::checksum_md5, filter::lz4<>>;
  auto tile = P::encode<std::int64_t>(v);
  for (std::size_t n = 0; n < tile.size(); n += (n < 64 ? 1 : 97)) {
    CAPTURE(n);
    CHECK_THROWS(P::decode<std::int64_t>(std::span(tile).first(n)));
  }
  tilefmt::testing::rng r;
  int rejected = 0;
  for (int i = 0; i < 300; ++i) {
    auto bad = tile;
    bad[r.below(bad.size())] ^= static_cast<std::byte>(1u << r.below(8));
    try {
      auto out = P::decode<std::int64_t>(bad);
      CHECK(out == v); // a flip that changes nothing observable (e.g. in a level byte) is fine
    } catch (const format_error&) {
      ++rejected;
    }
  }
  CHECK(rejected > 250);
}

TEST_CASE("a compressor after the first filter cannot claim more than its parts can hold") {
  // Found by fuzz/fuzz_filter_pipeline: [BYTESHUFFLE, ZSTD] whose ZSTD
  // stage declared a 788 MB part for 45 compressed bytes; the reader
  // allocated it before decompressing (only the first filter's output is
  // checked against the chunk). The input: type, version, cell size, flags,
  // the stored pipeline, then the tile.
  const auto input = hex_bytes(
      "40160400 0000010002000000090000000002050000000201000000"
      "0100000000000000300000002d00000018000000010000000100000008000000110000003000002f1c000000"
      "28b52ffd2008410000010000003000000028b52ffd20309d0000680806040f0a14161d151d212500010048f005");
  codec::reader r(std::span<const std::byte>(input).subspan(4));
  auto p = codec::decode<format::FilterPipeline>(r);
  filter::runtime_pipeline rp(p, format::Datatype::DATETIME_WEEK, 22);
  auto tile = codec::decode<format::TileView>(std::span<const std::byte>(input).subspan(4 + r.offset()));
  std::vector<std::byte> out(filter::detail::unfiltered_size(tile));
  try {
    rp.decode_into(tile, out, rp.context(4));
    FAIL("expected a format_error");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()).find("ZSTD filter: a part of") != std::string::npos);
  }

  // Every compressor but the first is held to tile_context::max_part_size.
  using P = filter::pipeline<filter::byteshuffle, filter::bzip2<>>;
  auto values = smooth<std::int32_t>(1000);
  auto stored = P::encode<std::int32_t>(values);
  filter::runtime_pipeline bz(P::descriptor(), format::Datatype::INT32, format::written_version);
  auto ctx = bz.context(4);
  ctx.max_part_size = 4000;
  CHECK(bz.decode(stored, ctx).size() == 4000);
  ctx.max_part_size = 3999;
  CHECK_THROWS_AS(bz.decode(stored, ctx), format_error);
}

TEST_CASE("runtime pipeline: unknown filters are named") {
  format::FilterPipeline p;
  p.filters.value.push_back(format::Filter::make(format::FilterType::DEPRECATED)); // TileDB rejects type 17 too
  try {
    filter::runtime_pipeline rp(p, format::Datatype::UINT8, 23);
    FAIL("expected unsupported_filter");
  } catch (const filter::unsupported_filter& e) {
    CHECK(std::string(e.what()).find("unsupported filter: DEPRECATED") != std::string::npos);
  }
}

TEST_CASE("runtime pipeline encode_var: RLE and DICTIONARY strings get the offsets, one chunk, and decode back") {
  using D = format::Datatype;
  for (std::size_t n : {1u, 7u, 500u, 3000u}) {
    CAPTURE(n);
    const strings_tile t = string_cells(n, n);
    for (const auto& stored : {filter::pipeline<filter::rle<>>::descriptor(), filter::pipeline<filter::dictionary<>>::descriptor(),
                               filter::pipeline<filter::rle<>, filter::zstd<>>::descriptor(),
                               filter::pipeline<filter::dictionary<>, filter::lz4<>>::descriptor()}) {
      for (D type : {D::STRING_ASCII, D::STRING_UTF8}) {
        filter::runtime_pipeline rp(stored, type, 23);
        REQUIRE(filter::skip_offsets_filtering(stored, type, 23));
        // The caller sets no ctx.offsets: encode_var hands the stages its own.
        auto tile = rp.encode_var(t.data, t.offsets, rp.context(1));
        // TileDB does not chunk these, whatever the tile's size.
        CHECK(codec::decode<format::TileView>(tile).chunks.size() == 1);
        std::vector<std::uint64_t> rebuilt;
        auto rctx = rp.context(1);
        rctx.rebuilt_offsets = &rebuilt;
        CHECK(rp.decode(tile, rctx) == t.data);
        CHECK(rebuilt == t.offsets);
      }
    }
  }
}

TEST_CASE("runtime pipeline encode_var: other var tiles are chunked by cells, as TileDB does") {
  using D = format::Datatype;
  const strings_tile t = string_cells(4000, 11);
  REQUIRE(t.data.size() > 3 * filter::max_tile_chunk_size);
  auto expect = filter::var_chunks(t.data.size(), t.offsets, 1);
  REQUIRE(expect.size() > 3);
  // zstd alone; and RLE before the v12 rule (ASCII at version 11), where it
  // encodes bytes and the offsets tile is stored on its own.
  for (const auto& [stored, version] : {std::pair{filter::pipeline<filter::zstd<>>::descriptor(11), 23u},
                                        std::pair{filter::pipeline<filter::rle<>>::descriptor(11), 11u}}) {
    filter::runtime_pipeline rp(stored, D::STRING_ASCII, version);
    auto tile = rp.encode_var(t.data, t.offsets, rp.context(1));
    auto view = codec::decode<format::TileView>(tile);
    REQUIRE(view.chunks.size() == expect.size());
    for (std::size_t i = 0; i < expect.size(); ++i) CHECK(view.chunks[i].original_length == expect[i].size);
    CHECK(rp.decode(tile, rp.context(1)) == t.data);
  }
  // A stored max_chunk_size of 0 turns chunking off for var tiles too.
  filter::runtime_pipeline whole(filter::pipeline<filter::zstd<>>::descriptor(23, false), D::STRING_ASCII, 23);
  CHECK(codec::decode<format::TileView>(whole.encode_var(t.data, t.offsets, whole.context(1))).chunks.size() == 1);
}

} // namespace test_pipeline
