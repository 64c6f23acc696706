// The XOR filter: every datatype width, exact bytes, compile-time and
// runtime pipelines agreeing, corrupt chunks rejected.
#include "tilefmt/filter/xor.hpp"

#include <cmath>
#include <limits>

#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "filter_testing.hpp"

namespace test_xor {

using namespace tilefmt;
using tilefmt::testing::bytes_of_values;
using tilefmt::testing::check_both_ways;
using tilefmt::testing::one_chunk;
using tilefmt::testing::hex_bytes;

namespace {

/// Encodes with pipeline<>, decodes it back, and checks the runtime pipeline
/// built from the descriptor decodes it and encodes the same bytes.
/// A serialized tile of one chunk with the given metadata and data.
template <class T>
std::vector<T> edge_values(std::size_t n, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 5) {
    case 0: v[i] = std::numeric_limits<T>::lowest(); break;
    case 1: v[i] = std::numeric_limits<T>::max(); break;
    case 2: v[i] = r.next<T>(); break;
    default: v[i] = i ? v[i - 1] : T{}; break;
    }
  }
  return v;
}

template <class T>
void round_trips(format::Datatype type) {
  CAPTURE(format::codec_enum_name(type));
  for (std::size_t n : {0u, 1u, 2u, 7u, 1000u, 40000u}) {
    CAPTURE(n);
    check_both_ways<filter::pipeline<filter::xor_filter>>(edge_values<T>(n, n), type);
    check_both_ways<filter::pipeline<filter::xor_filter, filter::zstd<>>>(edge_values<T>(n, n + 1), type);
    check_both_ways<filter::pipeline<filter::xor_filter>>(std::vector<T>(n, T(3)), type); // all equal
  }
}

} // namespace

TEST_CASE("XOR: round trips on every integer width and on floats as bits") {
  round_trips<std::int8_t>(format::Datatype::INT8);
  round_trips<std::uint8_t>(format::Datatype::UINT8);
  round_trips<std::int16_t>(format::Datatype::INT16);
  round_trips<std::uint16_t>(format::Datatype::UINT16);
  round_trips<std::int32_t>(format::Datatype::INT32);
  round_trips<std::uint32_t>(format::Datatype::UINT32);
  round_trips<std::int64_t>(format::Datatype::INT64);
  round_trips<std::uint64_t>(format::Datatype::UINT64);
  round_trips<float>(format::Datatype::FLOAT32);
  round_trips<double>(format::Datatype::FLOAT64);
  round_trips<char>(format::Datatype::CHAR);
  round_trips<std::int64_t>(format::Datatype::DATETIME_NS);
  // NaN and infinities keep their bits.
  std::vector<double> special{std::nan(""), -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::infinity(), -0.0, 0.0, std::nan("7")};
  check_both_ways<filter::pipeline<filter::xor_filter>>(special, format::Datatype::FLOAT64);
}

TEST_CASE("XOR: every datatype is accepted, with the signed integer of its width as output") {
  for (int d = 0; d <= 43; ++d) {
    auto type = static_cast<format::Datatype>(d);
    CAPTURE(format::codec_enum_name(type));
    std::size_t w = format::datatype_size(type);
    CHECK(filter::xor_filter{}.output_type(type) ==
          (w == 1 ? format::Datatype::INT8 : w == 2 ? format::Datatype::INT16 : w == 4 ? format::Datatype::INT32 : format::Datatype::INT64));
    std::vector<std::byte> raw(w * 37);
    for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<std::byte>(i * 7 / 3);
    filter::runtime_pipeline rp(filter::pipeline<filter::xor_filter>::descriptor(), type, 23);
    auto tile = rp.encode(raw, rp.context(w));
    CHECK(rp.decode(tile, rp.context(w)) == raw);
  }
}

TEST_CASE("XOR: exact bytes") {
  // int16 1, 3, 0x0100: stored 1, 1^3 = 2, 3^0x100 = 0x103.
  std::vector<std::int16_t> v{1, 3, 0x0100};
  auto tile = check_both_ways<filter::pipeline<filter::xor_filter>>(v, format::Datatype::INT16);
  CHECK(tile == hex_bytes("0100000000000000 06000000 06000000 08000000"
                          "01000000 06000000"
                          "0100 0200 0301"));
  CHECK(filter::pipeline<filter::xor_filter>::descriptor().filters[0] == format::Filter{format::FilterType::XOR, {}});
  // Metadata stacking: XOR's header first, then the earlier filter's.
  using P = filter::pipeline<filter::xor_filter, filter::xor_filter>;
  auto two = P::encode<std::int16_t>(v);
  auto view = codec::decode<format::TileView>(two);
  CHECK(view.chunks[0].metadata.bytes().size() == 16);
  CHECK(P::decode<std::int16_t>(two) == v);
}

TEST_CASE("XOR: corrupt chunks fail with format_error") {
  using P = filter::pipeline<filter::xor_filter>;
  const auto md = hex_bytes("01000000 06000000");
  const auto data = hex_bytes("0100 0200 0301");
  auto decode = [](const std::vector<std::byte>& tile) {
    std::vector<std::int16_t> out(3);
    P::decode_into<std::int16_t>(tile, std::span(out));
    return out;
  };
  CHECK(decode(one_chunk(6, md, data)) == std::vector<std::int16_t>{1, 3, 0x0100});
  // Truncated metadata, truncated data.
  for (std::size_t n = 0; n < md.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(6, std::vector<std::byte>(md.begin(), md.begin() + n), data)), format_error);
  for (std::size_t n = 0; n < data.size(); ++n)
    CHECK_THROWS_AS(decode(one_chunk(6, md, std::vector<std::byte>(data.begin(), data.begin() + n))), format_error);
  // Wrong part lengths: not whole values, not the data's size, a count too large.
  CHECK_THROWS_AS(decode(one_chunk(6, hex_bytes("01000000 05000000"), data)), format_error);
  CHECK_THROWS_AS(decode(one_chunk(6, hex_bytes("01000000 04000000"), data)), format_error);
  CHECK_THROWS_AS(decode(one_chunk(6, hex_bytes("02000000 06000000"), data)), format_error);
  CHECK_THROWS_AS(decode(one_chunk(6, hex_bytes("ffffffff 06000000"), data)), format_error);
  // Leftover metadata after the first filter.
  CHECK_THROWS_AS(decode(one_chunk(6, hex_bytes("01000000 06000000 00"), data)), format_error);
  // Random flips in the metadata either fail or decode to something.
  tilefmt::testing::rng r;
  for (int i = 0; i < 200; ++i) {
    auto bad = md;
    bad[r.below(bad.size())] ^= static_cast<std::byte>(1u << r.below(8));
    CHECK_THROWS_AS(decode(one_chunk(6, bad, data)), format_error);
  }
}

TEST_CASE("XOR: a part that is not whole values is refused on write") {
  std::vector<std::byte> raw(7);
  filter::runtime_pipeline rp(filter::pipeline<filter::xor_filter>::descriptor(), format::Datatype::INT16, 23);
  CHECK_THROWS_AS(rp.encode(raw, rp.context(1)), std::invalid_argument);
}

} // namespace test_xor
