#include "tilefmt/codec/view.hpp"

#include <algorithm>
#include <numeric>

#include "../support/testing.hpp"

namespace test_view {

using namespace tilefmt;

TEST_CASE("le_span reads little-endian values at any alignment") {
  tilefmt::testing::rng r;
  auto v = r.values<std::int32_t>(257);
  std::vector<std::byte> buf(1 + v.size() * 4);
  codec::store_le_array(buf.data() + 1, v.data(), v.size());
  codec::le_span<std::int32_t> s(buf.data() + 1, v.size());
  REQUIRE(s.size() == v.size());
  for (std::size_t i = 0; i < v.size(); ++i) REQUIRE(s[i] == v[i]);
  CHECK(std::equal(s.begin(), s.end(), v.begin(), v.end()));
  CHECK(s.to_vector() == v);
  CHECK(s.end() - s.begin() == static_cast<std::ptrdiff_t>(v.size()));
  CHECK(std::accumulate(s.begin(), s.end(), std::int64_t{0}) == std::accumulate(v.begin(), v.end(), std::int64_t{0}));
  CHECK_FALSE(s.as_span().has_value()); // misaligned
  codec::le_span<std::int32_t> aligned(buf.data() + 4, 10);
  if (reinterpret_cast<std::uintptr_t>(buf.data() + 4) % 4 == 0 && std::endian::native == std::endian::little) {
    REQUIRE(aligned.as_span().has_value());
    CHECK(aligned.as_span()->size() == 10);
  }
}

TEST_CASE("le_span equality is byte equality") {
  auto a = tilefmt::testing::bytes_of({0, 0, 0xc0, 0x7f}); // NaN
  codec::le_span<float> x(a.data(), 1), y(a.data(), 1);
  CHECK(x == y);
  auto b = tilefmt::testing::bytes_of({1, 0, 0xc0, 0x7f});
  CHECK_FALSE(x == codec::le_span<float>(b.data(), 1));
}

} // namespace test_view
