// keep_inside (read/sparse/keep_inside.hpp) clears the cells of a tile that
// lie in none of a dimension's ranges, by whichever way the coordinates
// allow: a tile inside one range (least and greatest found four at a
// time), keys in order (binary searches a range), many ranges over a small
// span (a bitmap), or a test a cell. Checked against contains() for each
// way: integers of several widths, floats and strings, sorted and not,
// one range, a few and hundreds.
#include "tilefmt/array/read/sparse/keep_inside.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <type_traits>
#include <variant>
#include <string>
#include <string_view>
#include <vector>

#include "../../support/testing.hpp"

namespace test_keep_inside {

namespace format = tilefmt::format;
using tilefmt::array::detail::keep_inside;
using tilefmt::array::detail::order_key;
using tilefmt::array::detail::subarray;
using tilefmt::array::detail::user_range;

/// A tile's coordinates of one dimension, as keep_inside reads them.
struct column {
  const std::byte* values = nullptr;
  const std::vector<std::string>* text = nullptr;
  std::string_view at(std::size_t i) const { return (*text)[i]; }
};

template <class T>
void check_numbers(std::mt19937& rng, T lo, T hi) {
  const auto dim = format::make_dimension<T>("x", lo, hi, std::nullopt);
  const auto schema = format::make_array_schema({.type = format::ArrayType::SPARSE,
                                                 .dimensions = {dim},
                                                 .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
  const double width = static_cast<double>(hi) - static_cast<double>(lo);
  auto pick = [&](double from, double span) {
    return static_cast<T>(std::clamp(from + span * std::uniform_real_distribution<double>(0, 1)(rng), static_cast<double>(lo),
                                     static_cast<double>(hi)));
  };
  for (int round = 0; round < 48; ++round) {
    CAPTURE(round);
    // Ranges: one wide (tiles inside it), a few, or hundreds of points and
    // short runs (a gene list), within a part of the domain.
    const int kind = round % 4;
    const double from = static_cast<double>(lo) + width * 0.25, span = kind == 3 ? std::min(width / 2, 4000.0) : width / 2;
    std::vector<user_range> rs;
    const int n = kind == 0 ? 1 : kind == 1 ? 3 : 300;
    for (int r = 0; r < n; ++r) {
      const T a = kind == 0 ? pick(from + span * 0.1, 0) : pick(from, span);
      const T b = kind == 0 ? pick(from + span * 0.9, 0) : r % 2 ? a : pick(static_cast<double>(a), span / 50);
      const T l = std::min(a, b), h = std::max(a, b);
      if constexpr (std::is_floating_point_v<T>) rs.push_back({static_cast<double>(l), static_cast<double>(h)});
      else if constexpr (std::is_signed_v<T>) rs.push_back({static_cast<std::int64_t>(l), static_cast<std::int64_t>(h)});
      else rs.push_back({static_cast<std::uint64_t>(l), static_cast<std::uint64_t>(h)});
    }
    const subarray sub(schema, {rs});
    const auto& ranges = sub.dim(0);
    // Cells: sorted or not, inside the first range or across the domain.
    const std::size_t cells = round % 5 == 0 ? static_cast<std::size_t>(round % 3) : 1000 + static_cast<std::size_t>(rng() % 300);
    std::vector<T> keys(cells);
    for (auto& k : keys) k = round % 3 == 0 && kind == 0 ? pick(from + span * 0.2, span * 0.6) : pick(from - span * 0.1, span * 1.2);
    if (kind == 0 && cells > 8) {
      // One key just past the range, in each of the four lanes the least
      // and greatest are found in.
      const T top = static_cast<T>(std::get<std::conditional_t<std::is_floating_point_v<T>, double,
                                                                std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>>(rs[0].hi));
      if (top < hi) keys[4 + static_cast<std::size_t>(round / 12 % 4)] = static_cast<T>(std::is_floating_point_v<T> ? top + (hi - top) / 2 : top + 1);
    }
    if (round % 2) std::sort(keys.begin(), keys.end());
    std::vector<std::byte> bytes(cells * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), keys.data(), bytes.size());  // little-endian hosts: the stored bytes
    std::vector<std::uint8_t> in(cells), want(cells);
    for (std::size_t i = 0; i < cells; ++i) {
      in[i] = rng() % 8 != 0;  // another dimension's verdict, kept
      want[i] = in[i] && ranges.contains(order_key(keys[i]));
    }
    keep_inside(ranges, dim, column{bytes.data(), nullptr}, cells, in.data());
    REQUIRE(in == want);
  }
}

TEST_CASE("keep_inside: the cells in the ranges, integers and floats, any order, any number of ranges") {
  if constexpr (std::endian::native != std::endian::little) return;  // the bytes above are written as the host's
  std::mt19937 rng(31);
  check_numbers<std::int64_t>(rng, -(std::int64_t{1} << 40), std::int64_t{1} << 40);
  check_numbers<std::int64_t>(rng, 0, 100'000);
  check_numbers<std::int32_t>(rng, -5000, 5000);
  check_numbers<std::uint16_t>(rng, 0, 60000);
  check_numbers<std::uint8_t>(rng, 0, 250);
  check_numbers<double>(rng, -1e6, 1e6);
}

TEST_CASE("keep_inside: string keys, sorted and not, points and ranges") {
  const auto dim = format::make_string_dimension("k");
  const auto schema = format::make_array_schema({.type = format::ArrayType::SPARSE,
                                                 .dimensions = {dim},
                                                 .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}});
  std::mt19937 rng(32);
  auto key = [&](int i) { return "k" + std::to_string(i); };  // varying lengths: "k10" < "k9"
  for (int round = 0; round < 40; ++round) {
    CAPTURE(round);
    std::vector<user_range> rs;
    const int n = round % 4 == 0 ? 0 : round % 4 == 1 ? 1 : 1 + static_cast<int>(rng() % 200);
    for (int r = 0; r < n; ++r) {
      std::string a = key(static_cast<int>(rng() % 5000)), b = r % 2 ? a : key(static_cast<int>(rng() % 5000));
      if (b < a) std::swap(a, b);
      rs.push_back({std::int64_t{0}, std::int64_t{0}, true, a, b});
    }
    const subarray sub(schema, {rs});
    const auto& ranges = sub.dim(0);
    std::vector<std::string> keys(round % 5 == 0 ? static_cast<std::size_t>(round % 3) : 500);
    for (auto& k : keys) k = key(static_cast<int>(rng() % 5200));
    if (round % 2) std::sort(keys.begin(), keys.end());
    std::vector<std::uint8_t> in(keys.size()), want(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      in[i] = rng() % 8 != 0;
      want[i] = in[i] && ranges.contains_text(keys[i]);
    }
    keep_inside(ranges, dim, column{nullptr, &keys}, keys.size(), in.data());
    REQUIRE(in == want);
  }
}

} // namespace test_keep_inside
