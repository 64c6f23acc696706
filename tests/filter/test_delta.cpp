// The DELTA filter: every datatype it accepts, deltas that overflow the
// element width, the reinterpret datatype and its option byte (format
// version 19 on), exact bytes, corrupt parts.
#include "tilefmt/filter/delta.hpp"

#include <limits>

#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/xor.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "filter_testing.hpp"

namespace test_delta {

using namespace tilefmt;
using tilefmt::testing::bytes_of_values;
using tilefmt::testing::check_both_ways;
using tilefmt::testing::one_chunk;
using tilefmt::testing::hex_bytes;
using D = format::Datatype;

namespace {

template <class T>
std::vector<T> edge_values(std::size_t n, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 6) {
    case 0: v[i] = std::numeric_limits<T>::lowest(); break;
    case 1: v[i] = std::numeric_limits<T>::max(); break; // the delta overflows T and int64
    case 2: v[i] = r.next<T>(); break;
    case 3: v[i] = static_cast<T>(i); break;
    default: v[i] = v[i - 1]; break;
    }
  }
  return v;
}

template <class T>
void round_trips(D type) {
  CAPTURE(format::codec_enum_name(type));
  for (std::size_t n : {1u, 2u, 3u, 1000u, 40000u}) {
    CAPTURE(n);
    check_both_ways<filter::pipeline<filter::delta<>>>(edge_values<T>(n, n), type);
    check_both_ways<filter::pipeline<filter::delta<>, filter::zstd<>>>(edge_values<T>(n, n + 1), type);
    check_both_ways<filter::pipeline<filter::delta<>>>(std::vector<T>(n, T(5)), type);
  }
  // An empty tile has no chunks, so nothing to compress.
  check_both_ways<filter::pipeline<filter::delta<>>>(std::vector<T>{}, type);
}

} // namespace

TEST_CASE("DELTA: round trips on every datatype it accepts") {
  round_trips<std::int8_t>(D::INT8);
  round_trips<std::uint8_t>(D::UINT8);
  round_trips<std::int16_t>(D::INT16);
  round_trips<std::uint16_t>(D::UINT16);
  round_trips<std::int32_t>(D::INT32);
  round_trips<std::uint32_t>(D::UINT32);
  round_trips<std::int64_t>(D::INT64);
  round_trips<std::uint64_t>(D::UINT64);
  round_trips<char>(D::CHAR);
  round_trips<std::uint8_t>(D::BOOL);
  for (int d = 0; d <= 43; ++d) {
    auto type = static_cast<D>(d);
    if (format::is_float(type)) continue;
    CAPTURE(format::codec_enum_name(type));
    // Every remaining datatype, as raw bytes through the runtime pipeline.
    std::size_t w = format::datatype_size(type);
    std::vector<std::byte> raw(w * 301);
    for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<std::byte>((i * i) >> 3);
    filter::runtime_pipeline rp(filter::pipeline<filter::delta<>>::descriptor(), type, 23);
    auto tile = rp.encode(raw, rp.context(w));
    CHECK(rp.decode(tile, rp.context(w)) == raw);
  }
}

TEST_CASE("DELTA: exact bytes, deltas truncated to the element width") {
  // int32 10, 12, 9, 9: n = 4, x0 = 10, deltas 2, -3, 0.
  auto tile = check_both_ways<filter::pipeline<filter::delta<>>>(std::vector<std::int32_t>{10, 12, 9, 9}, D::INT32);
  CHECK(tile == hex_bytes("0100000000000000 10000000 18000000 10000000"
                          "00000000 01000000 10000000 18000000"
                          "0400000000000000 0a000000 02000000 fdffffff 00000000"));
  // int8 127 -> -128: the delta -255 keeps its low byte, 0x01.
  auto t8 = check_both_ways<filter::pipeline<filter::delta<>>>(std::vector<std::int8_t>{127, -128}, D::INT8);
  CHECK(std::vector<std::byte>(t8.end() - 10, t8.end()) == hex_bytes("0200000000000000 7f 01"));
  // uint64 0 -> max: the delta -1.
  auto t64 = check_both_ways<filter::pipeline<filter::delta<>>>(
      std::vector<std::uint64_t>{0, std::numeric_limits<std::uint64_t>::max()}, D::UINT64);
  CHECK(std::vector<std::byte>(t64.end() - 8, t64.end()) == hex_bytes("ffffffffffffffff"));
  // Strings of any width are deltas of bytes.
  auto s = check_both_ways<filter::pipeline<filter::delta<>>>(std::vector<std::uint16_t>{0x0201, 0x0403}, D::STRING_UTF16);
  CHECK(std::vector<std::byte>(s.end() - 12, s.end()) == hex_bytes("0400000000000000 01 01 01 01"));
}

TEST_CASE("DELTA: options, with the reinterpret datatype from version 19") {
  using R = filter::delta<D::UINT8>;
  CHECK(filter::pipeline<filter::delta<>>::descriptor(23).filters[0] ==
        format::Filter{format::FilterType::DELTA, {hex_bytes("08 ffffffff 11")}});
  CHECK(filter::pipeline<R>::descriptor(19).filters[0] == format::Filter{format::FilterType::DELTA, {hex_bytes("08 ffffffff 06")}});
  CHECK(filter::pipeline<filter::delta<>>::descriptor(18).filters[0] ==
        format::Filter{format::FilterType::DELTA, {hex_bytes("08 ffffffff")}});
  CHECK_THROWS_AS(filter::pipeline<R>::descriptor(18), std::invalid_argument);
  // Read back: before 19 there is no reinterpret byte (ANY).
  auto old = filter::delta<D::INT16, 5>::from_filter(format::Filter{format::FilterType::DELTA, {hex_bytes("08 05000000")}}, 18);
  CHECK(old.reinterpret_datatype == D::ANY);
  CHECK(old.level == 5);
  CHECK(filter::delta<>::from_filter(format::Filter{format::FilterType::DELTA, {hex_bytes("08 05000000 07")}}, 19)
            .reinterpret_datatype == D::INT16);
  CHECK_THROWS_AS(filter::delta<>::from_filter(format::Filter{format::FilterType::DELTA, {hex_bytes("08 05000000")}}, 19),
                  format_error);
  CHECK_THROWS_AS(filter::delta<>::from_filter(format::Filter{format::FilterType::DELTA, {hex_bytes("02 05000000 11")}}, 19),
                  format_error);
  // The output datatype is the reinterpret datatype.
  CHECK(R{}.output_type(D::INT64) == D::UINT8);
  CHECK(filter::delta<>{}.output_type(D::INT64) == D::INT64);

  // uint16 values read as uint8: deltas of bytes.
  std::vector<std::uint16_t> v{0x0102, 0x0304};
  auto tile = check_both_ways<filter::pipeline<R>>(v, D::UINT16);
  CHECK(std::vector<std::byte>(tile.end() - 12, tile.end()) == hex_bytes("0400000000000000 02 ff 03 ff"));
  // int64 values read as int32.
  check_both_ways<filter::pipeline<filter::delta<D::INT32>, filter::zstd<>>>(std::vector<std::int64_t>{1, -5, 1LL << 40, 7},
                                                                            D::INT64);
}

TEST_CASE("DELTA: refused inputs") {
  // Floats, directly or reinterpreted.
  filter::runtime_pipeline f(filter::pipeline<filter::delta<>>::descriptor(), D::FLOAT32, 23);
  std::vector<std::byte> raw(8);
  CHECK_THROWS_AS(f.encode(raw, f.context(4)), std::invalid_argument);
  filter::runtime_pipeline r(filter::pipeline<filter::delta<D::FLOAT64>>::descriptor(), D::INT64, 23);
  CHECK_THROWS_AS(r.encode(raw, r.context(8)), std::invalid_argument);
  // A datatype that is not whole reinterpreted values.
  filter::runtime_pipeline w(filter::pipeline<filter::delta<D::INT32>>::descriptor(), D::INT16, 23);
  CHECK_THROWS_AS(w.encode(raw, w.context(2)), std::invalid_argument);
  // An empty part (chunking off on an empty tile): TileDB writes bytes it cannot read back.
  filter::runtime_pipeline e(filter::pipeline<filter::delta<>>::descriptor(23, false), D::INT32, 23);
  CHECK_THROWS_AS(e.encode(std::vector<std::byte>{}, e.context(4)), std::invalid_argument);
  // Earlier metadata is compressed with the same element type: XOR's 8 bytes are whole int64 values.
  check_both_ways<filter::pipeline<filter::xor_filter, filter::delta<>>>(std::vector<std::int64_t>{1, 2, 3}, D::INT64);
}

TEST_CASE("DELTA: corrupt parts fail with format_error, within bounded memory") {
  using P = filter::pipeline<filter::delta<>>;
  const auto md = hex_bytes("00000000 01000000 10000000 18000000");
  const auto data = hex_bytes("0400000000000000 0a000000 02000000 fdffffff 00000000");
  auto decode = [](const std::vector<std::byte>& tile) {
    std::vector<std::int32_t> out(4);
    P::decode_into<std::int32_t>(tile, std::span(out));
    return out;
  };
  CHECK(decode(one_chunk(16, md, data)) == std::vector<std::int32_t>{10, 12, 9, 9});
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(16, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(16, md, std::vector<std::byte>(data.begin(), data.begin() + n))), format_error);
  // TileDB 2.16 wrote one extra delta, of a value past the input: skipped.
  CHECK(decode(one_chunk(16, hex_bytes("00000000 01000000 10000000 1c000000"),
                         hex_bytes("0400000000000000 0a000000 02000000 fdffffff 00000000 efbeadde"))) ==
        std::vector<std::int32_t>{10, 12, 9, 9});
  CHECK_THROWS_AS(decode(one_chunk(16, hex_bytes("00000000 01000000 10000000 20000000"),
                                   hex_bytes("0400000000000000 0a000000 02000000 fdffffff 00000000 efbeadde 00000000"))),
                  format_error);
  // Wrong value count in the part.
  CHECK_THROWS_AS(decode(one_chunk(16, md, hex_bytes("0500000000000000 0a000000 02000000 fdffffff 00000000"))), format_error);
  CHECK_THROWS_AS(decode(one_chunk(16, md, hex_bytes("0000000000000000 0a000000 02000000 fdffffff 00000000"))), format_error);
  // A decompressed size larger than declared, or than the part can hold.
  CHECK_THROWS_AS(decode(one_chunk(16, hex_bytes("00000000 01000000 14000000 18000000"), data)), format_error);
  filter::runtime_pipeline rp(P::descriptor(), D::INT32, 23);
  CHECK_THROWS_AS(rp.decode(one_chunk(16, hex_bytes("00000000 02000000 f0ffffff 00000000 10000000 18000000"), data),
                            rp.context(4)),
                  format_error);
  // Not the first filter: a part declaring more than its bytes can hold is
  // refused before anything is allocated.
  using Q = filter::pipeline<filter::xor_filter, filter::delta<>>;
  std::vector<std::int32_t> out(4);
  CHECK_THROWS_AS(Q::decode_into<std::int32_t>(one_chunk(16, hex_bytes("00000000 01000000 f0ffffff 18000000"), data),
                                               std::span(out)),
                  format_error);
  tilefmt::testing::rng r;
  for (int i = 0; i < 300; ++i) {
    auto bad_md = md, bad_data = data;
    if (i % 2)
      bad_md[r.below(bad_md.size())] ^= static_cast<std::byte>(1u << r.below(8));
    else
      bad_data[r.below(12)] ^= static_cast<std::byte>(1u << r.below(8)); // the header and x0
    try {
      auto out = decode(one_chunk(16, bad_md, bad_data));
      CHECK(i % 2 == 0); // a changed x0 decodes to other values; a changed header never does
    } catch (const format_error&) {
    }
  }
}

} // namespace test_delta
