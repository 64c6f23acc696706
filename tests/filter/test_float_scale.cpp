// The SCALE_FLOAT filter: TileDB's arithmetic to the bit (quotient in the
// input's precision, half away from zero, x86-64 results out of range,
// decode through the input type without a fused multiply-add), the part
// order, compile-time and runtime pipelines agreeing, corrupt chunks.
#include "tilefmt/filter/float_scale.hpp"

#include <bit>
#include <cmath>
#include <limits>

#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "filter_testing.hpp"

namespace test_float_scale {

using namespace tilefmt;
using tilefmt::testing::bytes_of_values;
using tilefmt::testing::one_chunk;
using tilefmt::testing::hex_bytes;

namespace {

struct cents {
  static constexpr double scale = 0.01;
  static constexpr double offset = 0.0;
  static constexpr std::uint64_t byte_width = 4;
};
struct spec_example { // format_spec/filters/float_scale.md
  static constexpr double scale = 0.25;
  static constexpr double offset = 10.0;
  static constexpr std::uint64_t byte_width = 2;
};
struct narrow {
  static constexpr double scale = 0.5;
  static constexpr double offset = -3.0;
  static constexpr std::uint64_t byte_width = 1;
};
struct tenth {
  static constexpr double scale = 0.1, offset = 0.0;
  static constexpr std::uint64_t byte_width = 4;
};
struct half {
  static constexpr double scale = 1.0, offset = 0.5;
  static constexpr std::uint64_t byte_width = 4;
};
template <std::uint64_t W>
struct unit {
  static constexpr double scale = 1, offset = 0;
  static constexpr std::uint64_t byte_width = W;
};
using w1 = unit<1>;
using w2 = unit<2>;
using w4 = unit<4>;
using w8 = unit<8>;
struct wide {
  static constexpr double scale = 1e-6;
  static constexpr double offset = 12.5;
  static constexpr std::uint64_t byte_width = 8;
};

/// What TileDB reads back for x, computed independently for values in range.
template <class T, class W>
T expected_back(T x, double scale, double offset) {
  T q = std::round((x - static_cast<T>(offset)) / static_cast<T>(scale));
  auto w = static_cast<W>(q);
  volatile double product = scale * static_cast<double>(static_cast<T>(w));
  return static_cast<T>(product + offset);
}

/// Encodes with pipeline<>, decodes, compares with the expected values, and
/// checks the runtime pipeline from the descriptor gives the same bytes
/// both ways.
template <class Params, class T>
void check_both_ways(const std::vector<T>& values, bool in_range = true) {
  using P = filter::pipeline<filter::float_scale<Params>>;
  auto tile = P::template encode<T>(values);
  auto back = P::template decode<T>(tile);
  REQUIRE(back.size() == values.size());
  if (in_range) {
    using W = std::conditional_t<Params::byte_width == 1, std::int8_t,
              std::conditional_t<Params::byte_width == 2, std::int16_t,
              std::conditional_t<Params::byte_width == 4, std::int32_t, std::int64_t>>>;
    for (std::size_t i = 0; i < values.size(); ++i) {
      CAPTURE(i);
      CAPTURE(values[i]);
      CHECK(std::bit_cast<std::array<std::byte, sizeof(T)>>(back[i]) ==
            std::bit_cast<std::array<std::byte, sizeof(T)>>(expected_back<T, W>(values[i], Params::scale, Params::offset)));
    }
  }
  filter::runtime_pipeline rp(P::descriptor(), format::datatype_of<T>(), tilefmt::format::written_version);
  CHECK(rp.decode(tile, rp.context(sizeof(T))) == bytes_of_values(back));
  CHECK(rp.encode(std::as_bytes(std::span(values)), rp.context(sizeof(T))) == tile);
  // Stacked with a compressor.
  using Q = filter::pipeline<filter::float_scale<Params>, filter::zstd<>>;
  CHECK(bytes_of_values(Q::template decode<T>(Q::template encode<T>(values))) == bytes_of_values(back));
}

template <class T>
std::vector<T> samples(std::size_t n, double lo, double hi, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(lo + (hi - lo) * static_cast<double>(r.below(1000001)) / 1e6);
  return v;
}

template <class T>
void all_params() {
  for (std::size_t n : {0u, 1u, 2u, 999u, 30000u}) {
    CAPTURE(n);
    check_both_ways<cents, T>(samples<T>(n, -20000, 20000, n));
    check_both_ways<spec_example, T>(samples<T>(n, 10 - 8000, 10 + 8000, n + 1));
    check_both_ways<narrow, T>(samples<T>(n, -60, 60, n + 2));
    check_both_ways<wide, T>(samples<T>(n, -1e6, 1e6, n + 3));
    check_both_ways<filter::float_scale_defaults, T>(samples<T>(n, -1e9, 1e9, n + 4));
    check_both_ways<cents, T>(std::vector<T>(n, T(4.125))); // all equal
    std::vector<T> extremes(n);
    for (std::size_t i = 0; i < n; ++i) extremes[i] = i % 2 ? T(-2147483.0) : T(2147483.0);
    check_both_ways<cents, T>(extremes);
  }
}

} // namespace

TEST_CASE("SCALE_FLOAT: round trips on float and double, as TileDB computes them") {
  all_params<float>();
  all_params<double>();
}

TEST_CASE("SCALE_FLOAT: exact bytes of the spec's example") {
  std::vector<double> v{10.0, 10.2500, 10.7540, 11.0001};
  using P = filter::pipeline<filter::float_scale<spec_example>>;
  auto tile = P::encode<double>(v);
  CHECK(tile == hex_bytes("0100000000000000 20000000 08000000 08000000"
                          "01000000 08000000"
                          "0000 0100 0300 0400"));
  CHECK(P::decode<double>(tile) == std::vector<double>{10.0, 10.25, 10.75, 11.0});
  // Options: the 24-byte C struct {scale, offset, byte_width}.
  CHECK(P::descriptor().filters[0].options.value ==
        hex_bytes("000000000000d03f 0000000000002440 0200000000000000"));
  CHECK(filter::float_scale<>{}.output_type(format::Datatype::FLOAT64) == format::Datatype::INT64);
  CHECK(filter::float_scale<narrow>{}.output_type(format::Datatype::FLOAT32) == format::Datatype::INT8);
}

TEST_CASE("SCALE_FLOAT: rounding half away from zero, in the input's precision") {
  // 1.15f / 0.1f is exactly 11.5 in float (11.4999998 in double): stored 12.
  using F = filter::pipeline<filter::float_scale<tenth>>;
  auto tile = F::encode<float>(std::vector<float>{1.15f});
  CHECK(std::vector<std::byte>(tile.end() - 4, tile.end()) == hex_bytes("0c000000"));
  // The same value as a double rounds in double: 11.
  auto d = F::encode<double>(std::vector<double>{static_cast<double>(1.15f)});
  CHECK(std::vector<std::byte>(d.end() - 4, d.end()) == hex_bytes("0b000000"));
  // Halves go away from zero: 10.125 -> 0.5 -> 1, 9.875 -> -0.5 -> -1.
  auto h = filter::pipeline<filter::float_scale<spec_example>>::encode<double>(std::vector<double>{10.125, 9.875});
  CHECK(std::vector<std::byte>(h.end() - 4, h.end()) == hex_bytes("0100 ffff"));
}

TEST_CASE("SCALE_FLOAT: decode converts to the input type first, then scale * x + offset in double") {
  // int32 16777217 becomes the float 16777216; + 0.5 = 16777216.5, which
  // rounds to the float 16777216 (16777218 if the int were used directly).
  using P = filter::pipeline<filter::float_scale<half>>;
  auto tile = one_chunk(4, hex_bytes("01000000 04000000"), hex_bytes("01000001"));
  CHECK(P::decode<float>(tile) == std::vector<float>{16777216.0f});
  CHECK(P::decode<double>(one_chunk(8, hex_bytes("01000000 04000000"), hex_bytes("01000001"))) ==
        std::vector<double>{16777217.5});
}

TEST_CASE("SCALE_FLOAT: NaN, infinities and out-of-range values store what x86-64 TileDB stores") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto stored = [](auto params, const std::vector<float>& v) {
    using P = filter::pipeline<filter::float_scale<decltype(params)>>;
    auto tile = P::template encode<float>(v);
    auto view = codec::decode<format::TileView>(tile);
    auto data = view.chunks[0].data.bytes();
    return std::vector<std::byte>(data.begin(), data.end());
  };
  // 1 byte: the low byte of the 32-bit conversion (200 -> 0xc8; beyond
  // int32 or NaN -> 0x80000000 -> 0x00).
  CHECK(stored(w1{}, {200.f, -129.f, 3e9f, nan, inf, -inf}) == hex_bytes("c8 7f 00 00 00 00"));
  CHECK(stored(w2{}, {70000.f, nan, -1e10f}) == hex_bytes("7011 0000 0000"));
  CHECK(stored(w4{}, {1e10f, nan, -inf, 2147483520.f}) == hex_bytes("00000080 00000080 00000080 80ffff7f"));
  CHECK(stored(w8{}, {1e19f, nan, inf, -9.2e18f}) ==
        hex_bytes("0000000000000080 0000000000000080 0000000000000080 0000000080085380"));
  // Round trip of special values through both pipelines (lossy, defined).
  check_both_ways<cents, float>({nan, inf, -inf, 0.f, -0.f}, false);
  check_both_ways<wide, double>({std::nan(""), -std::numeric_limits<double>::infinity(), 1e300, -1e300}, false);
}

TEST_CASE("SCALE_FLOAT: parts are stored last first; reading restores their order") {
  filter::float_scale<cents> stage;
  filter::tile_context ctx;
  std::vector<float> a{1.f, 2.f, 3.f}, b{4.f, 5.f, 6.f};
  filter::part_list md_in, data_in, md_out, data_out;
  data_in.push_back(std::as_bytes(std::span(a)));
  data_in.push_back(std::as_bytes(std::span(b)));
  filter::scratch buf;
  filter::forward_io fio{ctx, format::Datatype::FLOAT32, md_in, data_in, md_out, data_out, buf};
  stage.forward(fio);
  REQUIRE(data_out.size() == 2);
  CHECK(std::vector<std::byte>(data_out[0].begin(), data_out[0].end()) == hex_bytes("90010000 f4010000 58020000"));
  CHECK(std::vector<std::byte>(data_out[1].begin(), data_out[1].end()) == hex_bytes("64000000 c8000000 2c010000"));
  REQUIRE(md_out.size() == 1);
  CHECK(std::vector<std::byte>(md_out[0].begin(), md_out[0].end()) == hex_bytes("02000000 0c000000 0c000000"));
  std::vector<std::byte> stored;
  for (std::size_t i = 0; i < 2; ++i) stored.insert(stored.end(), data_out[i].begin(), data_out[i].end());
  filter::scratch rbuf;
  filter::reverse_io rio{ctx, format::Datatype::FLOAT32, md_out[0], stored, {}, {}, rbuf, {}};
  stage.reverse(rio);
  std::vector<float> back(6);
  std::memcpy(back.data(), rio.out_data.data(), 24);
  CHECK(back == std::vector<float>{1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
}

TEST_CASE("SCALE_FLOAT: options and datatypes") {
  // TileDB takes any 4- or 8-byte input as float / double bits.
  std::vector<std::int32_t> ints{0x3f800000, 0x40000000}; // 1.0f, 2.0f
  using P = filter::pipeline<filter::float_scale<cents>>;
  CHECK(P::decode<float>(P::encode<std::int32_t>(ints), {.datatype = format::Datatype::FLOAT32}) ==
        std::vector<float>{1.0f, 2.0f});
  // Byte width must be 1, 2, 4 or 8.
  auto f = P::descriptor().filters[0];
  CHECK(filter::float_scale<>::from_filter(f, 23).byte_width == 4);
  f.options.value[16] = std::byte{3};
  CHECK_THROWS_AS(filter::float_scale<>::from_filter(f, 23), format_error);
  f.options.value.pop_back();
  CHECK_THROWS_AS(filter::float_scale<>::from_filter(f, 23), format_error);
  // 1- and 2-byte inputs are refused.
  filter::runtime_pipeline rp(P::descriptor(), format::Datatype::INT16, 23);
  std::vector<std::byte> raw(4);
  CHECK_THROWS_AS(rp.encode(raw, rp.context(2)), std::invalid_argument);
}

TEST_CASE("SCALE_FLOAT: corrupt chunks fail with format_error") {
  using P = filter::pipeline<filter::float_scale<spec_example>>;
  const auto md = hex_bytes("01000000 08000000");
  const auto data = hex_bytes("0000 0100 0300 0400");
  auto decode = [](const std::vector<std::byte>& tile) {
    std::vector<double> out(4);
    P::decode_into<double>(tile, std::span(out));
    return out;
  };
  CHECK(decode(one_chunk(32, md, data)) == std::vector<double>{10.0, 10.25, 10.75, 11.0});
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(32, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(32, md, std::vector<std::byte>(data.begin(), data.begin() + n))), format_error);
  CHECK_THROWS_AS(decode(one_chunk(32, hex_bytes("01000000 07000000"), data)), format_error);
  CHECK_THROWS_AS(decode(one_chunk(32, hex_bytes("01000000 0a000000"), data)), format_error);
  CHECK_THROWS_AS(decode(one_chunk(32, hex_bytes("ffffff7f 08000000"), data)), format_error);
  // The data decodes to more than the chunk holds.
  CHECK_THROWS_AS(decode(one_chunk(32, hex_bytes("01000000 0a000000"), hex_bytes("0000 0100 0300 0400 0500"))), format_error);
  tilefmt::testing::rng r;
  for (int i = 0; i < 200; ++i) {
    auto bad = md;
    bad[r.below(bad.size())] ^= static_cast<std::byte>(1u << r.below(8));
    CHECK_THROWS_AS(decode(one_chunk(32, bad, data)), format_error);
  }
}

} // namespace test_float_scale
