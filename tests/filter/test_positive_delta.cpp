#include "tilefmt/filter/positive_delta.hpp"

#include "tilefmt/filter/pipeline.hpp"

#include "../support/testing.hpp"

namespace test_positive_delta {

using namespace tilefmt;
using tilefmt::testing::hex_bytes;

TEST_CASE("positive delta: exact bytes") {
  std::vector<std::uint16_t> v{5, 7, 7, 10};
  auto tile = filter::pipeline<filter::positive_delta<>>::encode<std::uint16_t>(v);
  CHECK(tile == hex_bytes("0100000000000000 08000000 08000000 0a000000 01000000 0500 08000000 0000 0200 0000 0300"));
  CHECK(filter::pipeline<filter::positive_delta<>>::decode<std::uint16_t>(tile) == v);
}

TEST_CASE("positive delta: a decrease fails the write, as in TileDB") {
  std::vector<std::int32_t> v{1, 2, 3, 2};
  CHECK_THROWS_AS(filter::pipeline<filter::positive_delta<>>::encode<std::int32_t>(v), std::invalid_argument);
  // Across windows a decrease is allowed: each window starts afresh.
  std::vector<std::int32_t> w(300);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int32_t>(i % 256);
  auto tile = filter::pipeline<filter::positive_delta<>>::encode<std::int32_t>(w);
  CHECK(filter::pipeline<filter::positive_delta<>>::decode<std::int32_t>(tile) == w);
}

TEST_CASE("positive delta: floats and strings pass through") {
  std::vector<float> v{3.f, 1.f};
  auto tile = filter::pipeline<filter::positive_delta<>>::encode<float>(v);
  CHECK(codec::decode<format::TileView>(tile).chunks[0].metadata.size() == 0);
  CHECK(filter::pipeline<filter::positive_delta<>>::decode<float>(tile) == v);
}

} // namespace test_positive_delta
