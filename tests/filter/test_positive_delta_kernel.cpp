#include "tilefmt/filter/detail/positive_delta_kernel.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"

namespace tilefmt::test::test_positive_delta_kernel {
namespace {

template <class T>
std::size_t encode(const positive_delta_kernels<T>& k, const bytes& in, bytes& out) {
  const unaligned_buffer src(in);
  unaligned_buffer dst(in.size());
  const std::size_t result = k.encode(src.data(), in.size() / sizeof(T), dst.data());
  CHECK(dst.guard_intact());
  out = dst.contents();
  return result;
}

template <class T>
bytes decode(const positive_delta_kernels<T>& k, const bytes& in, T first) {
  const unaligned_buffer src(in);
  unaligned_buffer dst(in.size());
  k.decode(src.data(), in.size() / sizeof(T), first, dst.data());
  CHECK(dst.guard_intact());
  return dst.contents();
}

template <class T>
void check_example(const std::vector<T>& values, std::size_t result, const char* encoded_hex) {
  const bytes in = to_bytes(values);
  auto check = [&](const positive_delta_kernels<T>& k) {
    bytes out;
    CHECK(encode(k, in, out) == result);
    if (result == values.size()) {
      CHECK(hex(out) == hex(from_hex(encoded_hex)));
      CHECK(decode(k, out, values.empty() ? T{} : values[0]) == in);
    }
  };
  check(positive_delta<T>(reference_kernels));
  for_each_table([&](const kernel_table& k) { check(positive_delta<T>(k)); });
}

TEST_CASE("positive delta: worked examples") {
  check_example<std::uint16_t>({5, 7, 7, 300}, 4, "00 00 02 00 00 00 25 01");
  // -128 -> 127 is an increase of 255, stored wrapped as int8 -1
  check_example<std::int8_t>({-128, 127}, 2, "00 ff");
  check_example<std::int8_t>({-1, 1}, 2, "00 02");
  check_example<std::int64_t>({INT64_MIN, INT64_MAX}, 2, "00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff");
  check_example<std::int32_t>({}, 0, "");
  check_example<std::int32_t>({42}, 1, "00 00 00 00");
  // The index of the first element smaller than its predecessor, compared
  // in T: 255 -> 1 decreases as uint8 but -1 -> 1 increases as int8.
  check_example<std::int32_t>({1, 2, 1}, 2, "");
  check_example<std::uint8_t>({255, 1}, 1, "");
  check_example<std::uint64_t>({1, 2, 3, 0, 5, 4}, 3, "");
}

TEST_CASE("positive delta: decoding is a running sum from the recorded first value") {
  // TileDB adds every stored delta, the first one included.
  const bytes deltas = to_bytes<std::int32_t>({3, 1, 1});
  auto check = [&](const kernel_table& k) {
    CHECK(hex(decode(positive_delta<std::int32_t>(k), deltas, 10)) == hex(to_bytes<std::int32_t>({13, 14, 15})));
  };
  check(reference_kernels);
  for_each_table(check);
}

enum class pattern { slowly_increasing, all_equal, extremes, random_sorted, random };

template <class T>
std::vector<T> make_values(pattern p, std::size_t count, std::mt19937_64& rng) {
  std::vector<T> v(count);
  switch (p) {
    case pattern::slowly_increasing: {
      T x = static_cast<T>(std::numeric_limits<T>::lowest() / 2);
      for (auto& e : v) {
        e = x;
        if (x < std::numeric_limits<T>::max() - 3) x = static_cast<T>(x + static_cast<T>(rng() % 4));
      }
      break;
    }
    case pattern::all_equal:
      std::fill(v.begin(), v.end(), static_cast<T>(rng()));
      break;
    case pattern::extremes:
      for (std::size_t i = 0; i < count; ++i) {
        v[i] = i < count / 2 ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      }
      break;
    case pattern::random_sorted:
      for (auto& e : v) e = static_cast<T>(rng());
      std::sort(v.begin(), v.end());
      break;
    case pattern::random:
      for (auto& e : v) e = static_cast<T>(rng());
      break;
  }
  return v;
}

template <class T>
void check_against_reference() {
  std::mt19937_64 rng(sizeof(T) * 2 + std::is_signed_v<T>);
  const auto& ref = positive_delta<T>(reference_kernels);
  for (std::size_t count : numeric_test_counts(sizeof(T))) {
    for (pattern p : {pattern::slowly_increasing, pattern::all_equal, pattern::extremes, pattern::random_sorted,
                      pattern::random}) {
      if (is_large(count) && p != pattern::slowly_increasing && p != pattern::random) continue;
      INFO(count, " values, pattern ", static_cast<int>(p));
      std::vector<T> values = make_values<T>(p, count, rng);
      // Where a decrease is detected matters: try one at the start, in the
      // middle, in the last element, and none.
      std::vector<std::size_t> dips = {0};
      if (p != pattern::random && count >= 3) dips = {0, 1, count / 2, count - 1};
      for (std::size_t dip : dips) {
        INFO("decrease at ", dip);
        std::vector<T> v = values;
        if (dip != 0 && v[dip - 1] != std::numeric_limits<T>::lowest()) {
          v[dip] = static_cast<T>(v[dip - 1] - 1);
        }
        const bytes in = to_bytes(v);
        bytes expected;
        const std::size_t expected_result = encode(ref, in, expected);
        if (expected_result == count && count > 0) {
          REQUIRE(decode(ref, expected, v[0]) == in);
        }
        for_each_table([&](const kernel_table& k) {
          const auto& kt = positive_delta<T>(k);
          bytes got;
          CHECK(encode(kt, in, got) == expected_result);
          if (expected_result == count) {
            CHECK(first_mismatch(got, expected) == no_mismatch);
            if (count > 0) CHECK(first_mismatch(decode(kt, got, v[0]), in) == no_mismatch);
          }
        });
      }
    }
    // Decoding arbitrary deltas from an arbitrary start wraps around in T.
    const T first = static_cast<T>(rng());
    const bytes deltas = random_bytes(count * sizeof(T), rng());
    const bytes expected = decode(ref, deltas, first);
    for_each_table([&](const kernel_table& k) {
      CHECK(first_mismatch(decode(positive_delta<T>(k), deltas, first), expected) == no_mismatch);
    });
  }
}

TEST_CASE_TEMPLATE("positive delta: every architecture matches the reference", T, std::int8_t, std::uint8_t,
                   std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t) {
  check_against_reference<T>();
}

}  // namespace
}  // namespace tilefmt::test::test_positive_delta_kernel
