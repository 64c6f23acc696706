// The RLE filter: fixed values of the tile's cell size (run lengths
// big-endian, runs of at most 65535), and var-size ASCII / UTF8 strings
// with their offsets (TileDB's width quirk, the v12/v17 rules), exact
// bytes, compile-time and runtime stages agreeing, corrupt chunks.
#include "tilefmt/filter/rle.hpp"

#include <limits>
#include <string>

#include "tilefmt/filter/checksum_md5.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/xor.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "filter_testing.hpp"

namespace test_rle {

using namespace tilefmt;
using tilefmt::testing::bytes_of_values;
using tilefmt::testing::check_both_ways;
using tilefmt::testing::one_chunk;
using tilefmt::testing::hex_bytes;
using D = format::Datatype;

namespace {

std::vector<std::byte> part_of(const std::vector<std::byte>& tile) {
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 1);
  auto d = view.chunks[0].data.bytes();
  return {d.begin(), d.end()};
}

template <class T>
std::vector<T> runs(std::size_t n, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<T> v;
  while (v.size() < n) {
    T x = r.next<T>();
    std::size_t len = 1 + r.below(r.below(4) == 0 ? 300 : 6);
    for (std::size_t i = 0; i < len && v.size() < n; ++i) v.push_back(x);
  }
  return v;
}

template <class T>
void round_trips(D type) {
  CAPTURE(format::codec_enum_name(type));
  for (std::size_t n : {0u, 1u, 2u, 100u, 5000u, 70000u}) {
    CAPTURE(n);
    check_both_ways<filter::pipeline<filter::rle<>>>(runs<T>(n, n), type);
    check_both_ways<filter::pipeline<filter::rle<>>>(std::vector<T>(n, T(1)), type, {.chunking = false}); // one long run, split
    check_both_ways<filter::pipeline<filter::rle<>, filter::zstd<>>>(runs<T>(n, n + 1), type);
    std::vector<T> alt(n);
    for (std::size_t i = 0; i < n; ++i) alt[i] = i % 2 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    check_both_ways<filter::pipeline<filter::rle<>>>(alt, type);
  }
  // Cells of three values: runs of 3 x sizeof(T) bytes.
  check_both_ways<filter::pipeline<filter::rle<>>>(runs<T>(3 * 400, 9), type, {.cell_val_num = 3});
}

// ---- var-size strings ----

struct var_tile {
  std::vector<std::byte> data;
  std::vector<std::uint64_t> offsets;
};

var_tile make_tile(const std::vector<std::string>& cells) {
  var_tile t;
  for (const auto& c : cells) {
    t.offsets.push_back(t.data.size());
    for (char ch : c) t.data.push_back(static_cast<std::byte>(ch));
  }
  return t;
}

/// Writes a var tile as TileDB does (one chunk, offsets given), through the
/// runtime pipeline and through the compile-time stages; both must agree;
/// reads it back, offsets rebuilt.
template <class... F>
std::vector<std::byte> check_strings(const std::vector<std::string>& cells, D type = D::STRING_ASCII, std::uint32_t version = 23) {
  var_tile t = make_tile(cells);
  auto desc = filter::pipeline<F...>::descriptor(version, false);
  filter::runtime_pipeline rp(desc, type, version);
  auto ctx = rp.context(1);
  ctx.offsets = t.offsets;
  auto tile = rp.encode_var(t.data, t.offsets, ctx);

  std::tuple<F...> stages{};
  filter::detail::tuple_stages<F...> seq{stages};
  filter::detail::runner run(seq);
  run.set_input_type(type);
  CHECK(filter::detail::encode_tile(run, ctx, t.data, {{0, t.data.size()}}) == tile);

  std::vector<std::uint64_t> rebuilt;
  auto rctx = rp.context(1);
  rctx.rebuilt_offsets = &rebuilt;
  CHECK(rp.decode(tile, rctx) == t.data);
  CHECK(rebuilt == t.offsets);
  // Told how many cells to expect, it checks them.
  std::vector<std::uint64_t> sized(t.offsets.size() + 1);
  rctx.rebuilt_offsets = &sized;
  CHECK_THROWS_AS(rp.decode(tile, rctx), format_error);
  sized.assign(t.offsets.size(), 0);
  CHECK(rp.decode(tile, rctx) == t.data);
  CHECK(sized == t.offsets);
  return tile;
}

std::vector<std::string> string_runs(std::size_t n, std::size_t max_len, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<std::string> v;
  while (v.size() < n) {
    std::string s = r.text(max_len);
    std::size_t len = 1 + r.below(r.below(5) == 0 ? 400 : 4);
    for (std::size_t i = 0; i < len && v.size() < n; ++i) v.push_back(s);
  }
  return v;
}

std::vector<std::byte> chunk_md(const std::vector<std::byte>& tile) {
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 1);
  auto m = view.chunks[0].metadata.bytes();
  return {m.begin(), m.end()};
}

} // namespace

TEST_CASE("RLE: round trips on every datatype, values as wide as the cell") {
  round_trips<std::int8_t>(D::INT8);
  round_trips<std::uint8_t>(D::UINT8);
  round_trips<std::int16_t>(D::INT16);
  round_trips<std::uint16_t>(D::UINT16);
  round_trips<std::int32_t>(D::INT32);
  round_trips<std::uint32_t>(D::UINT32);
  round_trips<std::int64_t>(D::INT64);
  round_trips<std::uint64_t>(D::UINT64);
  round_trips<float>(D::FLOAT32);
  round_trips<double>(D::FLOAT64);
  round_trips<char>(D::CHAR);
  round_trips<std::int64_t>(D::DATETIME_DAY);
  for (int d = 0; d <= 43; ++d) {
    auto type = static_cast<D>(d);
    CAPTURE(format::codec_enum_name(type));
    std::size_t w = format::datatype_size(type);
    std::vector<std::byte> raw(w * 500);
    for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<std::byte>(i / (w * 7));
    filter::runtime_pipeline rp(filter::pipeline<filter::rle<>>::descriptor(), type, 23);
    auto tile = rp.encode(raw, rp.context(w));
    CHECK(rp.decode(tile, rp.context(w)) == raw);
  }
  // Floats keep their bits, NaN included.
  std::vector<double> special{std::nan(""), std::nan(""), -0.0, 0.0, std::numeric_limits<double>::infinity()};
  check_both_ways<filter::pipeline<filter::rle<>>>(special, D::FLOAT64);
}

TEST_CASE("RLE: exact bytes (run lengths big-endian)") {
  using P = filter::pipeline<filter::rle<>>;
  auto tile = check_both_ways<P>(std::vector<std::int32_t>{7, 7, 7, 9}, D::INT32);
  CHECK(tile == hex_bytes("0100000000000000 10000000 0c000000 10000000"
                          "00000000 01000000 10000000 0c000000"
                          "07000000 0003 09000000 0001"));
  CHECK(P::descriptor().filters[0] == format::Filter{format::FilterType::RLE, {hex_bytes("04 ffffffff")}});
  // Runs longer than 65535 are split: 70000 = 65535 + 4465 (0x1171).
  CHECK(part_of(check_both_ways<P>(std::vector<std::uint8_t>(70000, 5), D::UINT8, {.chunking = false})) == hex_bytes("05 ffff 05 1171"));
  CHECK(part_of(check_both_ways<P>(std::vector<std::uint8_t>(65535, 5), D::UINT8, {.chunking = false})) == hex_bytes("05 ffff"));
  CHECK(part_of(check_both_ways<P>(std::vector<std::uint8_t>(65536, 5), D::UINT8, {.chunking = false})) == hex_bytes("05 ffff 05 0001"));
  // The value width is the cell size: 2 x int16 cells compare 4 bytes.
  CHECK(part_of(check_both_ways<P>(std::vector<std::int16_t>{1, 2, 1, 2, 1, 3}, D::INT16, {.cell_val_num = 2})) ==
        hex_bytes("01000200 0002 01000300 0001"));
  // An empty chunk compresses to nothing (chunking off).
  CHECK(check_both_ways<P>(std::vector<std::int32_t>{}, D::INT32, {.chunking = false}) ==
        hex_bytes("0100000000000000 00000000 00000000 10000000 00000000 01000000 00000000 00000000"));
}

TEST_CASE("RLE: parts TileDB cannot write back are refused") {
  // XOR's 8-byte header is compressed with the 12-byte cell width: TileDB
  // stores nothing for it and cannot read the chunk back.
  std::vector<std::int32_t> v(30, 4);
  using P = filter::pipeline<filter::xor_filter, filter::rle<>>;
  CHECK_THROWS_AS(P::encode<std::int32_t>(v, {.cell_val_num = 3}), std::invalid_argument);
  // With 4-byte cells it works, the header compressed as two values.
  CHECK(P::decode<std::int32_t>(P::encode<std::int32_t>(v)) == v);
  // A part that is not whole cells fails as in TileDB.
  filter::runtime_pipeline rp(filter::pipeline<filter::rle<>>::descriptor(), D::INT32, 23);
  CHECK_THROWS_AS(rp.encode(std::vector<std::byte>(10), rp.context(4)), std::invalid_argument);
}

TEST_CASE("RLE: corrupt chunks fail with format_error, within bounded memory") {
  using P = filter::pipeline<filter::rle<>>;
  const auto md = hex_bytes("00000000 01000000 10000000 0c000000");
  const auto data = hex_bytes("07000000 0003 09000000 0001");
  auto decode = [](const std::vector<std::byte>& tile) {
    std::vector<std::int32_t> out(4);
    P::decode_into<std::int32_t>(tile, std::span(out));
    return out;
  };
  CHECK(decode(one_chunk(16, md, data)) == std::vector<std::int32_t>{7, 7, 7, 9});
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(16, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n) {
    auto cut_md = md;
    cut_md[12] = static_cast<std::byte>(n);
    CHECK_THROWS_AS(decode(one_chunk(16, cut_md, std::vector<std::byte>(data.begin(), data.begin() + n))), format_error);
  }
  // Runs decoding past the declared size, or short of it.
  CHECK_THROWS_AS(decode(one_chunk(16, md, hex_bytes("07000000 0004 09000000 0001"))), format_error);
  CHECK_THROWS_AS(decode(one_chunk(16, md, hex_bytes("07000000 0002 09000000 0001"))), format_error);
  CHECK_THROWS_AS(decode(one_chunk(16, md, hex_bytes("07000000 ffff 09000000 ffff"))), format_error);
  // Not the first filter: declared sizes beyond what the runs can hold are refused before allocation.
  using Q = filter::pipeline<filter::checksum_md5, filter::rle<>>;
  std::vector<std::int32_t> out(4);
  CHECK_THROWS_AS(Q::decode_into<std::int32_t>(one_chunk(16, hex_bytes("00000000 01000000 ffffffff 0c000000"), data),
                                               std::span(out)),
                  format_error);
  tilefmt::testing::rng r;
  for (int i = 0; i < 300; ++i) {
    auto bad = data;
    bad[r.below(bad.size())] ^= static_cast<std::byte>(1u << r.below(8));
    try {
      decode(one_chunk(16, md, bad));
    } catch (const format_error&) {
    }
  }
}

TEST_CASE("RLE on var strings: exact bytes and the offsets rebuilt") {
  // Runs ("aa" x2) ("b" x1) ("" x3): run and length widths 1.
  auto tile = check_strings<filter::rle<>>({"aa", "aa", "b", "", "", ""});
  CHECK(tile == hex_bytes("0100000000000000 05000000 09000000 16000000"
                          "00000000 01000000 05000000 09000000 30000000 01 01"
                          "02 02 6161 01 01 62 03 00"));
  // 256 equal strings: the run needs 2 bytes.
  auto t256 = check_strings<filter::rle<>>(std::vector<std::string>(256, "z"));
  CHECK(part_of(t256) == hex_bytes("0100 01 7a"));
  CHECK(chunk_md(t256) == hex_bytes("00000000 01000000 00010000 04000000 00080000 02 01"));
  // A 300-byte first string: 2-byte lengths for every run.
  std::string long_s(300, 'q');
  auto tl = check_strings<filter::rle<>>({long_s, "a"});
  auto pl = part_of(tl);
  CHECK(std::vector<std::byte>(pl.begin(), pl.begin() + 3) == hex_bytes("01 012c"));
  CHECK(std::vector<std::byte>(pl.end() - 4, pl.end()) == hex_bytes("01 0001 61"));
  // A run-ending string in the middle is measured too.
  check_strings<filter::rle<>>({"a", long_s, long_s, "b"});
  // One cell, empty string; one run of a long string (it is the first string).
  check_strings<filter::rle<>>({""});
  check_strings<filter::rle<>>({std::string(70000, 'x'), std::string(70000, 'x')});
  // The last run's string fits the width TileDB measured from the others.
  CHECK(part_of(check_strings<filter::rle<>>({"a", "a", std::string(200, 'b')})).size() == 2 + 1 + 2 + 200);
}

TEST_CASE("RLE on var strings: TileDB's longest-string quirk") {
  // TileDB does not measure the last run's string: with a longer one it
  // writes a truncated length and cannot read the tile back. Refused.
  filter::runtime_pipeline rp(filter::pipeline<filter::rle<>>::descriptor(23, false), D::STRING_ASCII, 23);
  var_tile t = make_tile({"a", std::string(300, 'x')});
  auto ctx = rp.context(1);
  ctx.offsets = t.offsets;
  CHECK_THROWS_AS(rp.encode_var(t.data, t.offsets, ctx), std::invalid_argument);
  t = make_tile({"a", "a", std::string(70000, 'x')});
  ctx.offsets = t.offsets;
  CHECK_THROWS_AS(rp.encode_var(t.data, t.offsets, ctx), std::invalid_argument);
}

TEST_CASE("RLE on var strings: random tiles, UTF8, stacked with other filters") {
  for (std::size_t n : {1u, 2u, 10u, 1000u, 30000u}) {
    CAPTURE(n);
    check_strings<filter::rle<>>(string_runs(n, 20, n));
    check_strings<filter::rle<>, filter::zstd<>>(string_runs(n, 300, n + 1));
    check_strings<filter::rle<>, filter::checksum_md5>(string_runs(n, 3, n + 2), D::STRING_UTF8);
  }
  std::vector<std::string> utf8{"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", ""};
  check_strings<filter::rle<>>(utf8, D::STRING_UTF8, 17);
}

TEST_CASE("RLE on var strings: the v12 / v17 rules") {
  using P = filter::pipeline<filter::rle<>>;
  auto desc = P::descriptor();
  CHECK(filter::skip_offsets_filtering(desc, D::STRING_ASCII, 12));
  CHECK_FALSE(filter::skip_offsets_filtering(desc, D::STRING_ASCII, 11));
  CHECK(filter::skip_offsets_filtering(desc, D::STRING_UTF8, 17));
  CHECK_FALSE(filter::skip_offsets_filtering(desc, D::STRING_UTF8, 16));
  CHECK_FALSE(filter::skip_offsets_filtering(desc, D::CHAR, 23));
  CHECK_FALSE(filter::skip_offsets_filtering(filter::pipeline<filter::zstd<>>::descriptor(), D::STRING_ASCII, 23));
  CHECK_FALSE(filter::use_tile_chunking(desc, true, D::STRING_ASCII, 12));
  CHECK(filter::use_tile_chunking(desc, true, D::STRING_ASCII, 11));
  CHECK_FALSE(filter::use_tile_chunking(desc, true, D::STRING_UTF8, 12)); // TileDB does not tell them apart here
  CHECK(filter::use_tile_chunking(desc, false, D::STRING_ASCII, 23));
  CHECK_FALSE(filter::use_tile_chunking(filter::pipeline<filter::zstd<>>::descriptor(23, false), false, D::INT32, 23));

  // Before the rule applies, a var string tile is RLE'd as bytes (cell size
  // 1) and the offsets are stored separately.
  var_tile t = make_tile({"ab", "ab", "c"});
  for (auto [type, version] : {std::pair{D::STRING_ASCII, 11u}, std::pair{D::STRING_UTF8, 16u}}) {
    filter::runtime_pipeline rp(P::descriptor(version, false), type, version);
    auto ctx = rp.context(1);
    ctx.offsets = t.offsets;
    auto tile = rp.encode_var(t.data, t.offsets, ctx);
    CHECK(part_of(tile) == hex_bytes("61 0001 62 0001 61 0001 62 0001 63 0001"));
    CHECK(rp.decode(tile, rp.context(1)) == t.data);
  }
}

TEST_CASE("RLE on var strings: corrupt chunks fail with format_error") {
  filter::runtime_pipeline rp(filter::pipeline<filter::rle<>>::descriptor(23, false), D::STRING_ASCII, 23);
  const auto md = hex_bytes("00000000 01000000 05000000 09000000 30000000 01 01");
  const auto data = hex_bytes("02 02 6161 01 01 62 03 00");
  auto decode = [&](const std::vector<std::byte>& tile) {
    std::vector<std::uint64_t> offsets;
    auto ctx = rp.context(1);
    ctx.rebuilt_offsets = &offsets;
    auto out = rp.decode(tile, ctx);
    return offsets;
  };
  CHECK(decode(one_chunk(5, md, data)) == std::vector<std::uint64_t>{0, 2, 4, 5, 5, 5});
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(5, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n) {
    auto cut_md = md;
    cut_md[12] = static_cast<std::byte>(n);
    CHECK_THROWS_AS(decode(one_chunk(5, cut_md, std::vector<std::byte>(data.begin(), data.begin() + n))), format_error);
  }
  auto with = [&](std::size_t at, int value) {
    auto m = md;
    m[at] = static_cast<std::byte>(value);
    return m;
  };
  CHECK_THROWS_AS(decode(one_chunk(5, with(0, 1), data)), format_error);   // metadata parts
  CHECK_THROWS_AS(decode(one_chunk(5, with(8, 6), data)), format_error);   // input bytes
  CHECK_THROWS_AS(decode(one_chunk(5, with(16, 0x38), data)), format_error); // 7 cells
  CHECK_THROWS_AS(decode(one_chunk(5, with(16, 0x28), data)), format_error); // 5 cells
  CHECK_THROWS_AS(decode(one_chunk(5, with(16, 0x31), data)), format_error); // not 8 x cells
  CHECK_THROWS_AS(decode(one_chunk(5, with(20, 3), data)), format_error);  // width 3
  CHECK_THROWS_AS(decode(one_chunk(5, md, hex_bytes("02 02 6161 01 01 62 ff 00"))), format_error); // a huge run of ""
  CHECK_THROWS_AS(decode(one_chunk(5, md, hex_bytes("02 03 6161 01 01 62 03 00"))), format_error); // lengths off
  // Without the offsets to rebuild (or for a type the rule does not cover),
  // the chunk is read as fixed values and its header does not parse.
  CHECK_THROWS_AS(rp.decode(one_chunk(5, md, data), rp.context(1)), format_error);
  tilefmt::testing::rng r;
  for (int i = 0; i < 500; ++i) {
    auto bad_md = md, bad_data = data;
    if (i % 2)
      bad_md[r.below(bad_md.size())] ^= static_cast<std::byte>(1u << r.below(8));
    else
      bad_data[r.below(bad_data.size())] ^= static_cast<std::byte>(1u << r.below(8));
    try {
      decode(one_chunk(5, bad_md, bad_data));
    } catch (const format_error&) {
    }
  }
}

} // namespace test_rle
