// The DICTIONARY filter on var-size ASCII / UTF8 data tiles: the layout
// TileDB writes (ids sized by the cell count, a u32 little-endian dictionary
// size, big-endian lengths and ids, no string count), the v13 / v17 rules,
// offsets rebuilt, compile-time and runtime stages agreeing, corrupt chunks.
#include "tilefmt/filter/dictionary.hpp"

#include <string>

#include "tilefmt/filter/checksum_sha256.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "filter_testing.hpp"

namespace test_dictionary {

using namespace tilefmt;
using tilefmt::testing::bytes_of_values;
using tilefmt::testing::check_both_ways;
using tilefmt::testing::one_chunk;
using tilefmt::testing::hex_bytes;
using D = format::Datatype;

namespace {

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

template <class... F>
std::vector<std::byte> check_strings(const std::vector<std::string>& cells, D type = D::STRING_ASCII, std::uint32_t version = 23) {
  var_tile t = make_tile(cells);
  filter::runtime_pipeline rp(filter::pipeline<F...>::descriptor(version, false), type, version);
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
  return tile;
}

std::pair<std::vector<std::byte>, std::vector<std::byte>> chunk_of(const std::vector<std::byte>& tile) {
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 1);
  auto m = view.chunks[0].metadata.bytes();
  auto d = view.chunks[0].data.bytes();
  return {{m.begin(), m.end()}, {d.begin(), d.end()}};
}

std::vector<std::string> few_strings(std::size_t n, std::size_t distinct, std::size_t max_len, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<std::string> words(distinct);
  for (auto& w : words) w = r.text(max_len);
  std::vector<std::string> v(n);
  for (auto& s : v) s = words[r.below(distinct)];
  return v;
}

} // namespace

TEST_CASE("DICTIONARY: exact bytes") {
  // The spec's example, as the code writes it: dictionary in order of first
  // appearance, ids one byte (5 cells), lengths one byte.
  auto tile = check_strings<filter::dictionary<>>({"HG543232", "HG543232", "HG54", "A", "HG54"});
  CHECK(tile == hex_bytes("0100000000000000 19000000 05000000 2a000000"
                          "00000000 01000000 19000000 05000000 28000000 01 01 10000000"
                          "08 4847353433323332 04 48473534 01 41"
                          "00 00 01 02 01"));
  CHECK(filter::pipeline<filter::dictionary<>>::descriptor().filters[0] ==
        format::Filter{format::FilterType::DICTIONARY, {hex_bytes("07 ffffffff")}});
  // The id width follows the number of cells, not of distinct strings.
  auto [md, data] = chunk_of(check_strings<filter::dictionary<>>(std::vector<std::string>(256, "ab")));
  CHECK(std::vector<std::byte>(md.begin() + 20, md.end()) == hex_bytes("02 01 03000000 02 6162"));
  CHECK(data == std::vector<std::byte>(512, std::byte{0}));
  // Longer strings widen the lengths: 300 bytes need 2.
  auto [md2, data2] = chunk_of(check_strings<filter::dictionary<>>({"x", std::string(300, 'y'), "x"}));
  CHECK(std::vector<std::byte>(md2.begin() + 20, md2.begin() + 29) == hex_bytes("01 02 31010000 0001 78"));
  CHECK(data2 == hex_bytes("00 01 00"));
  // Empty strings are dictionary entries too.
  auto [md3, data3] = chunk_of(check_strings<filter::dictionary<>>({"", "", "a", ""}));
  CHECK(std::vector<std::byte>(md3.begin() + 20, md3.end()) == hex_bytes("01 01 03000000 00 01 61"));
  CHECK(data3 == hex_bytes("00 00 01 00"));
}

TEST_CASE("DICTIONARY: round trips, stacked with other filters, ASCII and UTF8") {
  for (std::size_t n : {1u, 2u, 255u, 256u, 1000u, 70000u}) {
    CAPTURE(n);
    check_strings<filter::dictionary<>>(few_strings(n, 1 + n / 50, 12, n));
    check_strings<filter::dictionary<>, filter::zstd<>>(few_strings(n, 3, 300, n + 1), D::STRING_UTF8);
    check_strings<filter::dictionary<>, filter::checksum_sha256>(few_strings(n, n, 5, n + 2));
  }
  check_strings<filter::dictionary<>>({""});
  check_strings<filter::dictionary<>>({std::string(70000, 'x'), "y"}); // 4-byte lengths
  check_strings<filter::dictionary<>>({"\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", "\xc3\xa9t\xc3\xa9"}, D::STRING_UTF8, 17);
}

TEST_CASE("DICTIONARY: the v13 / v17 rules, and nothing else is accepted") {
  using P = filter::pipeline<filter::dictionary<>>;
  CHECK(filter::skip_offsets_filtering(P::descriptor(), D::STRING_ASCII, 13));
  CHECK_FALSE(filter::skip_offsets_filtering(P::descriptor(), D::STRING_ASCII, 12));
  CHECK(filter::skip_offsets_filtering(P::descriptor(), D::STRING_UTF8, 17));
  CHECK_FALSE(filter::skip_offsets_filtering(P::descriptor(), D::STRING_UTF8, 16));
  CHECK_FALSE(filter::use_tile_chunking(P::descriptor(), true, D::STRING_UTF8, 13));
  CHECK(filter::use_tile_chunking(P::descriptor(), true, D::STRING_ASCII, 12));
  var_tile t = make_tile({"a", "b"});
  for (auto [type, v] : {std::pair{D::STRING_ASCII, 12u}, std::pair{D::STRING_UTF8, 16u}, std::pair{D::CHAR, 23u}}) {
    const std::uint32_t version = v;
    CAPTURE(version);
    filter::runtime_pipeline rp(P::descriptor(version, false), type, version);
    auto ctx = rp.context(1);
    ctx.offsets = t.offsets;
    CHECK_THROWS_AS(rp.encode_var(t.data, t.offsets, ctx), std::invalid_argument);
  }
  // Without offsets (a fixed tile) it cannot encode; without offsets to rebuild, it cannot decode.
  filter::runtime_pipeline rp(P::descriptor(23, false), D::STRING_ASCII, 23);
  CHECK_THROWS_AS(rp.encode(t.data, rp.context(1)), std::invalid_argument);
  auto ctx = rp.context(1);
  ctx.offsets = t.offsets;
  auto tile = rp.encode_var(t.data, t.offsets, ctx);
  CHECK_THROWS_AS(rp.decode(tile, rp.context(1)), format_error);
  // Not the first filter.
  filter::runtime_pipeline second(filter::pipeline<filter::checksum_sha256, filter::dictionary<>>::descriptor(23, false),
                                  D::STRING_ASCII, 23);
  CHECK_THROWS_AS(second.encode_var(t.data, t.offsets, ctx), std::invalid_argument);
  // Offsets that are not the whole tile's.
  std::vector<std::uint64_t> bad{0, 5};
  ctx.offsets = bad;
  CHECK_THROWS_AS(rp.encode_var(t.data, bad, ctx), std::invalid_argument);
}

TEST_CASE("DICTIONARY: corrupt chunks fail with format_error") {
  filter::runtime_pipeline rp(filter::pipeline<filter::dictionary<>>::descriptor(23, false), D::STRING_ASCII, 23);
  const auto md = hex_bytes("00000000 01000000 19000000 05000000 28000000 01 01 10000000"
                            "08 4847353433323332 04 48473534 01 41");
  const auto data = hex_bytes("00 00 01 02 01");
  auto decode = [&](const std::vector<std::byte>& tile) {
    std::vector<std::uint64_t> offsets;
    auto ctx = rp.context(1);
    ctx.rebuilt_offsets = &offsets;
    auto out = rp.decode(tile, ctx);
    return offsets;
  };
  CHECK(decode(one_chunk(25, md, data)) == std::vector<std::uint64_t>{0, 8, 16, 20, 21});
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(25, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(25, md, std::vector<std::byte>(data.begin(), data.begin() + n))), format_error);
  auto with = [&](std::size_t at, int value) {
    auto m = md;
    m[at] = static_cast<std::byte>(value);
    return m;
  };
  CHECK_THROWS_AS(decode(one_chunk(25, md, hex_bytes("00 00 01 03 01"))), format_error); // id past the dictionary
  CHECK_THROWS_AS(decode(one_chunk(25, with(20, 3), data)), format_error);             // id width 3
  CHECK_THROWS_AS(decode(one_chunk(25, with(21, 0), data)), format_error);             // length width 0
  CHECK_THROWS_AS(decode(one_chunk(25, with(22, 0x11), data)), format_error);          // dictionary size past the metadata
  CHECK_THROWS_AS(decode(one_chunk(25, with(26, 0x09), data)), format_error);          // an entry past the dictionary
  CHECK_THROWS_AS(decode(one_chunk(25, with(16, 0x30), data)), format_error);          // 6 cells for 5 ids
  CHECK_THROWS_AS(decode(one_chunk(25, with(8, 0x18), data)), format_error);           // 24 bytes declared
  CHECK_THROWS_AS(decode(one_chunk(25, md, hex_bytes("00 00 00 00 00"))), format_error); // 40 bytes, not 25
  tilefmt::testing::rng r;
  for (int i = 0; i < 500; ++i) {
    auto bad_md = md, bad_data = data;
    if (i % 2)
      bad_md[r.below(bad_md.size())] ^= static_cast<std::byte>(1u << r.below(8));
    else
      bad_data[r.below(bad_data.size())] ^= static_cast<std::byte>(1u << r.below(8));
    try {
      decode(one_chunk(25, bad_md, bad_data));
    } catch (const format_error&) {
    }
  }
}

} // namespace test_dictionary
