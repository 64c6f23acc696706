// Coordinate keys: order_key orders every coordinate type as an unsigned
// integer, and from_order_key gives the coordinate back bit for bit (the
// sparse reader keeps only the keys and rebuilds the result's coordinates).
#include "tilefmt/array/model/coordinates.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../../support/testing.hpp"

namespace test_coordinates {

using tilefmt::array::detail::from_order_key;
using tilefmt::array::detail::order_key;

template <class T>
void check_round_trip_and_order(std::vector<T> values) {
  for (const T v : values) {
    const T back = from_order_key<T>(order_key(v));
    if constexpr (std::is_floating_point_v<T>) {
      using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
      CHECK(std::bit_cast<bits>(back) == std::bit_cast<bits>(v));
    } else {
      CHECK(back == v);
    }
  }
  // Keys sort as the values do (NaN left out: it has no order).
  std::erase_if(values, [](T v) {
    if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
    return false;
  });
  std::sort(values.begin(), values.end());
  for (std::size_t i = 1; i < values.size(); ++i) {
    if (values[i - 1] < values[i]) CHECK(order_key(values[i - 1]) < order_key(values[i]));
  }
}

TEST_CASE("coordinates: keys of integers round-trip and keep the order") {
  check_round_trip_and_order<std::int8_t>({-128, -1, 0, 1, 127});
  check_round_trip_and_order<std::uint8_t>({0, 1, 200, 255});
  check_round_trip_and_order<std::int16_t>({-32768, -300, 0, 300, 32767});
  check_round_trip_and_order<std::int32_t>({std::numeric_limits<std::int32_t>::min(), -7, 0, 7,
                                            std::numeric_limits<std::int32_t>::max()});
  check_round_trip_and_order<std::uint32_t>({0, 7, std::numeric_limits<std::uint32_t>::max()});
  check_round_trip_and_order<std::int64_t>({std::numeric_limits<std::int64_t>::min(), -1, 0, 1,
                                            std::numeric_limits<std::int64_t>::max()});
  check_round_trip_and_order<std::uint64_t>({0, 1, std::uint64_t{1} << 63, std::numeric_limits<std::uint64_t>::max()});
}

TEST_CASE("coordinates: keys of floats round-trip bit for bit and keep the order") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  check_round_trip_and_order<double>({-inf, -1e300, -1.5, -std::numeric_limits<double>::denorm_min(), -0.0, 0.0,
                                      std::numeric_limits<double>::denorm_min(), 2.25, 1e300, inf,
                                      std::numeric_limits<double>::quiet_NaN()});
  constexpr float finf = std::numeric_limits<float>::infinity();
  check_round_trip_and_order<float>({-finf, -3.5f, -0.0f, 0.0f, 1e-40f, 3.5f, finf,
                                     std::numeric_limits<float>::quiet_NaN()});
  CHECK(order_key(-0.0) < order_key(0.0));  // distinct keys: the coordinate comes back as written
}

}  // namespace test_coordinates
