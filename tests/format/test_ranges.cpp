// format/ranges.hpp: one range type and one codec for MBRs, non-empty
// domains and current domains.
#include "tilefmt/format/ranges.hpp"

#include "../support/testing.hpp"

namespace test_ranges {

using namespace tilefmt;
using format::Datatype;

TEST_CASE("fixed and var ranges: bounds, values, strings") {
  const auto r = format::fixed_range<std::int32_t>(-3, 9);
  CHECK(r.start_size == 4);
  CHECK(r.as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{-3, 9});
  CHECK_THROWS_AS((void)r.as<std::int64_t>(), std::invalid_argument);
  const auto s = format::var_range("ab", "xyz");
  CHECK(s.as_strings() == std::pair<std::string_view, std::string_view>{"ab", "xyz"});
  CHECK(s.lo().size() == 2);
  CHECK(s.hi().size() == 3);
}

TEST_CASE("an MBR (or NDRectangle) encodes each range by its dimension") {
  format::NDRectangleContext ctx{{{Datatype::UINT16, false}, {Datatype::STRING_ASCII, true}}};
  const format::NDRectangle m{{format::fixed_range<std::uint16_t>(3, 9), format::var_range("a", "bz")}};
  const auto bytes = codec::encode(m, ctx);
  // u16 lo, hi | u64 size, u64 start_size, "abz"
  CHECK(bytes == testing::hex_bytes("0300 0900 0300000000000000 0100000000000000 61627a"));
  CHECK(codec::decode<format::NDRectangle>(bytes, ctx) == m);
  // A start_size past the range's bytes names the field and its offset.
  auto bad = bytes;
  bad[12] = std::byte{9};
  try {
    (void)codec::decode<format::MBR>(bad, ctx);
    FAIL("decoded");
  } catch (const format_error& e) {
    CHECK(e.field().ends_with(".ranges[1].start_size"));
  }
  // Encoding checks the value against the dimensions.
  const format::MBR one{{format::fixed_range<std::uint16_t>(1, 2)}};
  CHECK_THROWS_AS((void)codec::encode(one, ctx), std::invalid_argument);
  CHECK_THROWS_AS((void)codec::decode<format::MBR>(bytes, format::NDRectangleContext{}), format_error);
}

} // namespace test_ranges
