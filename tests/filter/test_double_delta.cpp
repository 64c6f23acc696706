// The DOUBLE_DELTA filter: the bit stream checked byte for byte by hand and
// against a bit-by-bit reference written from the spec, every datatype it
// accepts, the raw fallback, deltas that do not fit int64 refused as TileDB
// refuses them, the reinterpret datatype (format version 20 on), corrupt
// parts.
#include "tilefmt/filter/double_delta.hpp"

#include <limits>

#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/xor.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "filter_testing.hpp"

namespace test_double_delta {

using namespace tilefmt;
using tilefmt::testing::bytes_of_values;
using tilefmt::testing::check_both_ways;
using tilefmt::testing::one_chunk;
using tilefmt::testing::hex_bytes;
using D = format::Datatype;

namespace {

__extension__ typedef __int128 i128;

/// The compressed part, written from format_spec/filters/double_delta.md
/// with exact arithmetic, one bit at a time. Empty when a delta or double
/// delta does not fit int64 (TileDB refuses those).
template <class T>
std::vector<std::byte> reference(const std::vector<T>& v) {
  const std::size_t n = v.size();
  const i128 lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  std::vector<i128> dd;
  unsigned bitsize = 0;
  if (n > 2) {
    i128 d1 = i128(v[1]) - i128(v[0]);
    if (d1 < lo || d1 > hi) return {};
    i128 max = d1 < 0 ? -d1 : d1;
    i128 prev = d1;
    for (std::size_t i = 2; i < n; ++i) {
      i128 d = i128(v[i]) - i128(v[i - 1]);
      if (d < lo || d > hi) return {};
      i128 x = d - prev;
      if (x < lo || x > hi) return {};
      dd.push_back(x);
      max = std::max(max, x < 0 ? -x : x);
      prev = d;
    }
    bitsize = 1;
    while ((max >> bitsize) != 0) ++bitsize;
  }
  std::vector<std::byte> out(9);
  out[0] = static_cast<std::byte>(bitsize);
  for (int i = 0; i < 8; ++i) out[1 + i] = static_cast<std::byte>(static_cast<std::uint64_t>(n) >> (8 * i));
  auto raw = bytes_of_values(v);
  if (bitsize >= 8 * sizeof(T) - 1) {
    out.insert(out.end(), raw.begin(), raw.end());
    return out;
  }
  out.insert(out.end(), raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(n, 2) * sizeof(T)));
  std::vector<bool> bits;
  for (i128 x : dd) {
    bits.push_back(x < 0);
    i128 m = x < 0 ? -x : x;
    for (unsigned b = bitsize; b-- > 0;) bits.push_back(((m >> b) & 1) != 0);
  }
  for (std::size_t w = 0; w < bits.size(); w += 64) {
    std::uint64_t word = 0;
    for (std::size_t k = 0; k < 64 && w + k < bits.size(); ++k)
      if (bits[w + k]) word |= std::uint64_t{1} << (63 - k);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>(word >> (8 * i)));
  }
  return out;
}

/// The data of a one-chunk, one-part tile.
std::vector<std::byte> part_of(const std::vector<std::byte>& tile) {
  auto view = codec::decode<format::TileView>(tile);
  REQUIRE(view.chunks.size() == 1);
  auto d = view.chunks[0].data.bytes();
  return {d.begin(), d.end()};
}

template <class T>
std::vector<T> walk(std::size_t n, std::uint64_t seed, int step_bits) {
  tilefmt::testing::rng r(seed);
  std::vector<T> v(n);
  std::uint64_t x = r.next<std::uint64_t>() >> 3, dx = 0;
  for (auto& e : v) {
    dx += (r.next<std::uint64_t>() >> (64 - step_bits)) - (std::uint64_t{1} << (step_bits - 1));
    x += dx;
    e = static_cast<T>(x);
  }
  return v;
}

template <class T>
void round_trips(D type) {
  CAPTURE(format::codec_enum_name(type));
  using P = filter::pipeline<filter::double_delta<>>;
  for (std::size_t n : {1u, 2u, 3u, 4u, 65u, 1000u, 20000u}) {
    for (int step : {1, 3, 7, 12, 20, 31, 40, 62}) {
      if (step >= 8 * static_cast<int>(sizeof(T)) + 8) continue;
      CAPTURE(n);
      CAPTURE(step);
      auto v = walk<T>(n, n * 100 + static_cast<std::uint64_t>(step), step);
      auto ref = reference(v);
      if (ref.empty()) {
        CHECK_THROWS_AS(P::encode<T>(v, {.datatype = type}), std::invalid_argument);
        continue;
      }
      auto tile = check_both_ways<P>(v, type);
      if (n * sizeof(T) <= 65536) CHECK(part_of(tile) == ref);
    }
    check_both_ways<P>(std::vector<T>(n, T(9)), type); // all equal
    std::vector<T> alt(n);
    for (std::size_t i = 0; i < n; ++i) alt[i] = i % 2 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    if (sizeof(T) < 8 || n <= 2) check_both_ways<P>(alt, type); // int64 extremes overflow the deltas
  }
  check_both_ways<filter::pipeline<filter::double_delta<>, filter::zstd<>>>(walk<T>(5000, 1, 5), type);
  check_both_ways<P>(std::vector<T>{}, type);
}

} // namespace

TEST_CASE("DOUBLE_DELTA: round trips and reference bit streams on every datatype it accepts") {
  round_trips<std::int8_t>(D::INT8);
  round_trips<std::uint8_t>(D::UINT8);
  round_trips<std::int16_t>(D::INT16);
  round_trips<std::uint16_t>(D::UINT16);
  round_trips<std::int32_t>(D::INT32);
  round_trips<std::uint32_t>(D::UINT32);
  round_trips<std::int64_t>(D::INT64);
  round_trips<std::uint64_t>(D::UINT64);
  round_trips<std::int64_t>(D::DATETIME_MS);
  round_trips<std::int64_t>(D::TIME_NS);
  round_trips<char>(D::CHAR);
  for (int d = 0; d <= 43; ++d) {
    auto type = static_cast<D>(d);
    if (format::is_float(type)) continue;
    CAPTURE(format::codec_enum_name(type));
    std::size_t w = format::datatype_size(type);
    std::vector<std::byte> raw(w * 301);
    for (std::size_t i = 0; i < raw.size(); i += w) raw[i] = static_cast<std::byte>((i / w) * (i / w) / 7); // small values
    filter::runtime_pipeline rp(filter::pipeline<filter::double_delta<>>::descriptor(), type, 23);
    auto tile = rp.encode(raw, rp.context(w));
    CHECK(rp.decode(tile, rp.context(w)) == raw);
  }
}

TEST_CASE("DOUBLE_DELTA: exact bytes") {
  using P = filter::pipeline<filter::double_delta<>>;
  // int32 1, 2, 4, 7, 11, 11: deltas 1 2 3 4 0, double deltas 1 1 1 -4,
  // bitsize 3 (for 4); bits 0001 0001 0001 1100 from the top of one word.
  auto tile = check_both_ways<P>(std::vector<std::int32_t>{1, 2, 4, 7, 11, 11}, D::INT32);
  CHECK(tile == hex_bytes("0100000000000000 18000000 19000000 10000000"
                          "00000000 01000000 18000000 19000000"
                          "03 0600000000000000 01000000 02000000 000000000000 1c11"));
  // One and two values: bitsize 0, no stream.
  CHECK(part_of(check_both_ways<P>(std::vector<std::int32_t>{5}, D::INT32)) == hex_bytes("00 0100000000000000 05000000"));
  CHECK(part_of(check_both_ways<P>(std::vector<std::int32_t>{5, 9}, D::INT32)) ==
        hex_bytes("00 0200000000000000 05000000 09000000"));
  // Raw fallback: uint8 0, 200, 0 needs 9 bits >= 7.
  CHECK(part_of(check_both_ways<P>(std::vector<std::uint8_t>{0, 200, 0}, D::UINT8)) == hex_bytes("09 0300000000000000 00c800"));
  // CHAR is int8: 127, -128, -127 has a double delta of 256 (raw); the same
  // bytes as UINT8 (127, 128, 129) need 1 bit.
  std::vector<std::uint8_t> b{0x7f, 0x80, 0x81};
  CHECK(part_of(check_both_ways<P>(b, D::CHAR)) == hex_bytes("09 0300000000000000 7f8081"));
  CHECK(part_of(check_both_ways<P>(b, D::UINT8)) == hex_bytes("01 0300000000000000 7f80 0000000000000000"));
  // A stream crossing a word boundary: 33 bits per value, 3 values.
  std::vector<std::int64_t> big{0, 1LL << 31, 0, (1LL << 31) + 5, 0};
  CHECK(part_of(check_both_ways<P>(big, D::INT64)) == reference(big));
  CHECK(part_of(check_both_ways<P>(big, D::INT64)).size() == 9 + 16 + 16);
}

TEST_CASE("DOUBLE_DELTA: deltas beyond int64 are refused as TileDB refuses them") {
  using P = filter::pipeline<filter::double_delta<>>;
  const auto min64 = std::numeric_limits<std::int64_t>::min(), max64 = std::numeric_limits<std::int64_t>::max();
  const auto umax = std::numeric_limits<std::uint64_t>::max();
  CHECK_THROWS_AS(P::encode<std::int64_t>(std::vector<std::int64_t>{min64, max64, 0}), std::invalid_argument);
  CHECK_THROWS_AS(P::encode<std::uint64_t>(std::vector<std::uint64_t>{0, std::uint64_t{1} << 63, 0}), std::invalid_argument);
  CHECK_THROWS_AS(P::encode<std::uint64_t>(std::vector<std::uint64_t>{0, umax, umax}), std::invalid_argument);
  // -2^63 is a valid delta of uint64 values; 0 - (-2^63) is not a valid double delta.
  CHECK_THROWS_AS(P::encode<std::uint64_t>(std::vector<std::uint64_t>{std::uint64_t{1} << 63, 0, 0}), std::invalid_argument);
  // A delta of -2^63 (bitsize 64: the raw fallback); 2^63 is not a delta.
  CHECK(part_of(check_both_ways<P>(std::vector<std::int64_t>{max64, -1, -2}, D::INT64))[0] == std::byte{64});
  CHECK_THROWS_AS(P::encode<std::uint64_t>(std::vector<std::uint64_t>{std::uint64_t{1} << 63, 0, std::uint64_t{1} << 63}),
                  std::invalid_argument);
  // Two values are never checked.
  check_both_ways<P>(std::vector<std::int64_t>{min64, max64}, D::INT64);
  // Values near the ends whose deltas fit.
  check_both_ways<P>(std::vector<std::uint64_t>{umax, umax - 1, umax - 3, umax - 2}, D::UINT64);
  check_both_ways<P>(std::vector<std::int64_t>{min64, min64 + 7, min64 + 1, min64}, D::INT64);
}

TEST_CASE("DOUBLE_DELTA: options, with the reinterpret datatype from version 20") {
  using R = filter::double_delta<D::INT16>;
  CHECK(filter::pipeline<filter::double_delta<>>::descriptor(23).filters[0] ==
        format::Filter{format::FilterType::DOUBLE_DELTA, {hex_bytes("06 ffffffff 11")}});
  CHECK(filter::pipeline<filter::double_delta<>>::descriptor(19).filters[0] ==
        format::Filter{format::FilterType::DOUBLE_DELTA, {hex_bytes("06 ffffffff")}});
  CHECK(filter::pipeline<R>::descriptor(20).filters[0] ==
        format::Filter{format::FilterType::DOUBLE_DELTA, {hex_bytes("06 ffffffff 07")}});
  CHECK_THROWS_AS(filter::pipeline<R>::descriptor(19), std::invalid_argument);
  CHECK(filter::double_delta<>::from_filter(format::Filter{format::FilterType::DOUBLE_DELTA, {hex_bytes("06 00000000")}}, 19)
            .reinterpret_datatype == D::ANY);
  CHECK(filter::double_delta<>::from_filter(format::Filter{format::FilterType::DOUBLE_DELTA, {hex_bytes("06 00000000 0a")}}, 20)
            .reinterpret_datatype == D::UINT64);
  CHECK_THROWS_AS(filter::double_delta<>::from_filter(format::Filter{format::FilterType::DOUBLE_DELTA, {hex_bytes("06 00000000")}}, 20),
                  format_error);
  // int32 values read as pairs of int16.
  std::vector<std::int32_t> v{0x00020001, 0x00070004};
  auto tile = check_both_ways<filter::pipeline<R>>(v, D::INT32, {.version = 20});
  CHECK(part_of(tile) == reference(std::vector<std::int16_t>{1, 2, 4, 7}));
  CHECK(R{}.output_type(D::INT32) == D::INT16);
  // TileDB accepts an input only when its values are whole reinterpreted values.
  std::vector<std::uint8_t> bytes{1, 0, 2, 0};
  CHECK_THROWS_AS(filter::pipeline<R>::encode<std::uint8_t>(bytes, {.version = 20}), std::invalid_argument);
  // Floats refused, directly or reinterpreted; widths that do not divide refused.
  std::vector<std::byte> raw(8);
  filter::runtime_pipeline f(filter::pipeline<filter::double_delta<>>::descriptor(), D::FLOAT64, 23);
  CHECK_THROWS_AS(f.encode(raw, f.context(8)), std::invalid_argument);
  filter::runtime_pipeline g(filter::pipeline<filter::double_delta<D::FLOAT32>>::descriptor(), D::INT32, 23);
  CHECK_THROWS_AS(g.encode(raw, g.context(4)), std::invalid_argument);
  filter::runtime_pipeline h(filter::pipeline<filter::double_delta<D::INT64>>::descriptor(), D::INT32, 23);
  CHECK_THROWS_AS(h.encode(raw, h.context(4)), std::invalid_argument);
  CHECK_THROWS_AS(h.decode(one_chunk(8, hex_bytes("00000000 01000000 08000000 11000000"),
                                     hex_bytes("00 0100000000000000 0000000000000000")),
                           h.context(4)),
                  format_error);
  // Stacked after XOR (whose header is compressed as int64 values too).
  check_both_ways<filter::pipeline<filter::xor_filter, filter::double_delta<>>>(std::vector<std::int64_t>{3, 1, 4, 1, 5}, D::INT64);
}

TEST_CASE("DOUBLE_DELTA: corrupt parts fail with format_error, within bounded memory") {
  using P = filter::pipeline<filter::double_delta<>>;
  const auto md = hex_bytes("00000000 01000000 18000000 19000000");
  const auto data = hex_bytes("03 0600000000000000 01000000 02000000 000000000000 1c11");
  auto decode = [](const std::vector<std::byte>& tile) {
    std::vector<std::int32_t> out(6);
    P::decode_into<std::int32_t>(tile, std::span(out));
    return out;
  };
  CHECK(decode(one_chunk(24, md, data)) == std::vector<std::int32_t>{1, 2, 4, 7, 11, 11});
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(24, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n) {
    auto cut = std::vector<std::byte>(data.begin(), data.begin() + n);
    auto cut_md = hex_bytes("00000000 01000000 18000000 00000000");
    cut_md[12] = static_cast<std::byte>(n);
    CHECK_THROWS_AS(decode(one_chunk(24, cut_md, cut)), format_error);
  }
  // A bit stream one word longer or shorter than n and bitsize call for.
  CHECK_THROWS_AS(decode(one_chunk(24, hex_bytes("00000000 01000000 18000000 21000000"),
                                   hex_bytes("03 0600000000000000 01000000 02000000 000000000000 1c11 0000000000000000"))),
                  format_error);
  CHECK_THROWS_AS(decode(one_chunk(24, hex_bytes("00000000 01000000 18000000 19000000"),
                                   hex_bytes("11 0600000000000000 01000000 02000000 000000000000 1c11"))),
                  format_error);
  // A value count that disagrees with the declared size.
  CHECK_THROWS_AS(decode(one_chunk(24, md, hex_bytes("03 0700000000000000 01000000 02000000 000000000000 1c11"))), format_error);
  CHECK_THROWS_AS(decode(one_chunk(24, md, hex_bytes("03 0000000000000000 01000000 02000000 000000000000 1c11"))), format_error);
  // Raw part of the wrong length.
  CHECK_THROWS_AS(decode(one_chunk(24, md, hex_bytes("1f 0600000000000000 01000000 02000000 000000000000 1c11"))), format_error);
  // Bitsize 0 with more than two values: only signs; TileDB decodes it too.
  CHECK(decode(one_chunk(24, hex_bytes("00000000 01000000 18000000 19000000"),
                         hex_bytes("00 0600000000000000 01000000 02000000 00000000000000f0"))) ==
        std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
  // A part declaring more than its bytes can hold, when not the first filter.
  using Q = filter::pipeline<filter::xor_filter, filter::double_delta<>>;
  std::vector<std::int32_t> out(6);
  CHECK_THROWS_AS(Q::decode_into<std::int32_t>(one_chunk(24, hex_bytes("00000000 01000000 ffffff7f 19000000"), data), std::span(out)),
                  format_error);
  tilefmt::testing::rng r;
  for (int i = 0; i < 300; ++i) {
    auto bad = data;
    bad[r.below(bad.size())] ^= static_cast<std::byte>(1u << r.below(8));
    try {
      decode(one_chunk(24, md, bad));
    } catch (const format_error&) {
    }
  }
}

} // namespace test_double_delta
