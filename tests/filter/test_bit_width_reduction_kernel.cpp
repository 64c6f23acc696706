#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"

namespace tilefmt::test::test_bit_width_reduction_kernel {
namespace {

namespace d = filter::detail;

template <class T>
d::bit_width_stats<T> stats(const bit_width_kernels<T>& k, const bytes& in) {
  const unaligned_buffer src(in);
  return k.stats(src.data(), in.size() / sizeof(T));
}

template <class T>
bytes encode(const bit_width_kernels<T>& k, const bytes& in, T offset, unsigned bits) {
  const std::size_t count = in.size() / sizeof(T);
  const unaligned_buffer src(in);
  unaligned_buffer dst(bits >= 8 * sizeof(T) ? count * sizeof(T) : count * bits / 8);
  CHECK(k.encode(src.data(), count, offset, bits, dst.data()));
  CHECK(dst.guard_intact());
  return dst.contents();
}

template <class T>
bytes decode(const bit_width_kernels<T>& k, const bytes& in, std::size_t count, T offset, unsigned bits) {
  const unaligned_buffer src(in);
  unaligned_buffer dst(count * sizeof(T));
  CHECK(k.decode(src.data(), count, offset, bits, dst.data()));
  CHECK(dst.guard_intact());
  return dst.contents();
}

template <class T>
void check_example(const std::vector<T>& values, T min, unsigned bits, bool overflow, const char* encoded_hex) {
  const bytes in = to_bytes(values);
  const bytes encoded = from_hex(encoded_hex);
  auto check = [&](const bit_width_kernels<T>& k) {
    const auto s = stats(k, in);
    CHECK(s.bits == bits);
    CHECK(s.overflow == overflow);
    if (!overflow) {
      CHECK(s.min == min);
      CHECK(s.value_offset() == min);
    } else {
      CHECK(s.value_offset() == T{0});
    }
    CHECK(hex(encode(k, in, s.value_offset(), s.bits)) == hex(encoded));
    CHECK(decode(k, encoded, values.size(), s.value_offset(), s.bits) == in);
  };
  check(bit_width<T>(reference_kernels));
  for_each_table([&](const kernel_table& k) { check(bit_width<T>(k)); });
}

TEST_CASE("bit width reduction: worked examples") {
  // range 255, + 1 = 256: 16 bits; values stored as 0, 3, 255 in int16
  check_example<std::int32_t>({1000, 1003, 1255}, 1000, 16, false, "00 00 03 00 ff 00");
  // range + 1 = 128 fits uint8 but not int8
  check_example<std::uint32_t>({0, 127}, 0, 8, false, "00 7f");
  check_example<std::int32_t>({0, 127}, 0, 16, false, "00 00 7f 00");
  // range + 1 = 256 needs 9 bits, rounded to 16 = the full width: raw copy
  check_example<std::uint16_t>({0, 255}, 0, 16, false, "00 00 ff 00");
  check_example<std::uint16_t>({7, 7, 7}, 7, 8, false, "00 00 00");
  check_example<std::int64_t>({-5, 100}, -5, 8, false, "00 69");
  check_example<std::int64_t>({INT64_MIN, INT64_MIN + 1}, INT64_MIN, 8, false, "00 01");
  check_example<std::uint64_t>({10, 65535 + 10}, 10, 32, false, "00 00 00 00 ff ff 00 00");
  check_example<std::int64_t>({0, 2147483646}, 0, 32, false, "00 00 00 00 fe ff ff 7f");
  check_example<std::int64_t>({0, 2147483647}, 0, 64, false,
                              "00 00 00 00 00 00 00 00 ff ff ff 7f 00 00 00 00");
  // max - min overflows int16; max - min + 1 overflows uint64
  check_example<std::int16_t>({-32768, 32767}, 0, 16, true, "00 80 ff 7f");
  check_example<std::uint64_t>({0, UINT64_MAX}, 0, 64, true,
                               "00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff");
}

TEST_CASE("bit width reduction: an empty window overflows, as in TileDB") {
  auto check = [](const kernel_table& k) {
    const auto s = bit_width<std::int32_t>(k).stats(nullptr, 0);
    CHECK(s.overflow);
    CHECK(s.bits == 32);
    CHECK(s.min == INT32_MAX);
    CHECK(s.max == INT32_MIN);
    const auto u = bit_width<std::uint16_t>(k).stats(nullptr, 0);
    CHECK(u.overflow);
    CHECK(u.bits == 16);
  };
  check(reference_kernels);
  for_each_table(check);
}

TEST_CASE("bit width reduction: decoding widens with T's signedness") {
  const bytes in = from_hex("ff 01");
  auto check = [&](const kernel_table& k) {
    // int8 -1 + 10 and 1 + 10, as TileDB's widening assignment reads them
    CHECK(hex(decode(bit_width<std::int32_t>(k), in, 2, std::int32_t{10}, 8)) == "09 00 00 00 0b 00 00 00");
    CHECK(hex(decode(bit_width<std::uint32_t>(k), in, 2, std::uint32_t{10}, 8)) == "09 01 00 00 0b 00 00 00");
    // widths TileDB never writes
    std::byte out[8];
    CHECK_FALSE(bit_width<std::int32_t>(k).decode(in.data(), 2, 0, 12, out));
    CHECK_FALSE(bit_width<std::int32_t>(k).decode(in.data(), 2, 0, 0, out));
    CHECK_FALSE(bit_width<std::int16_t>(k).decode(in.data(), 1, 0, 4, out));
    CHECK_FALSE(bit_width<std::int32_t>(k).encode(in.data(), 0, 0, 7, out));
    // any width >= 8 sizeof(T) means raw
    CHECK(hex(decode(bit_width<std::int16_t>(k), in, 1, std::int16_t{5}, 32)) == "ff 01");
  };
  check(reference_kernels);
  for_each_table(check);
}

// Values spanning exactly `spread` above a random base (wrapping in T), the
// extremes at random positions; spread < 0 or beyond T: uniformly random
// values.
template <class T>
std::vector<T> spread_values(std::size_t count, long double spread, std::mt19937_64& rng) {
  using U = std::make_unsigned_t<T>;
  std::vector<T> v(count);
  if (spread < 0 || spread > static_cast<long double>(std::numeric_limits<U>::max())) {
    for (auto& x : v) x = static_cast<T>(rng());
    return v;
  }
  const U width = static_cast<U>(spread);
  const U base = static_cast<U>(rng());
  for (auto& x : v) {
    const U r = width == std::numeric_limits<U>::max() ? static_cast<U>(rng()) : static_cast<U>(rng() % (std::uint64_t(width) + 1));
    x = static_cast<T>(static_cast<U>(base + r));
  }
  if (count >= 2) {
    v[rng() % count] = static_cast<T>(base);
    v[count - 1 - rng() % (count / 2)] = static_cast<T>(static_cast<U>(base + width));
  }
  return v;
}

template <class T>
void check_against_reference() {
  std::mt19937_64 rng(sizeof(T) * 2 + std::is_signed_v<T>);
  const auto& ref = bit_width<T>(reference_kernels);
  const long double spreads[] = {0, 1, 126, 127, 254, 255, 256, 32766, 32767, 65534, 65535, 65536,
                                 2147483646.0L, 2147483647.0L, 2147483648.0L, 4294967294.0L, 4294967295.0L,
                                 4294967296.0L, 18446744073709551615.0L, -1};
  for (std::size_t count : numeric_test_counts(sizeof(T))) {
    for (long double spread : spreads) {
      if (spread > static_cast<long double>(std::numeric_limits<std::make_unsigned_t<T>>::max())) continue;
      if (is_large(count) && spread != 255 && spread != 65535 && spread != -1) continue;
      INFO(count, " values, spread ", static_cast<double>(spread));
      const bytes in = to_bytes(spread_values<T>(count, spread, rng));
      const auto s = stats(ref, in);
      const bytes encoded = encode(ref, in, s.value_offset(), s.bits);
      REQUIRE(decode(ref, encoded, count, s.value_offset(), s.bits) == in);
      for_each_table([&](const kernel_table& k) {
        const auto& kt = bit_width<T>(k);
        const auto got = stats(kt, in);
        CHECK(got.min == s.min);
        CHECK(got.max == s.max);
        CHECK(got.bits == s.bits);
        CHECK(got.overflow == s.overflow);
        CHECK(first_mismatch(encode(kt, in, s.value_offset(), s.bits), encoded) == no_mismatch);
        CHECK(first_mismatch(decode(kt, encoded, count, s.value_offset(), s.bits), in) == no_mismatch);
      });
    }
    // Every width on arbitrary bytes: truncation on encode, sign or zero
    // extension and wrap-around on decode.
    if (is_large(count)) continue;
    for (unsigned bits : {8u, 16u, 32u}) {
      if (bits >= 8 * sizeof(T)) continue;
      INFO(count, " values, ", bits, " bits");
      const T offset = static_cast<T>(rng());
      const bytes in = random_bytes(count * sizeof(T), rng());
      const bytes encoded = encode(ref, in, offset, bits);
      const bytes decoded = decode(ref, encoded, count, offset, bits);
      for_each_table([&](const kernel_table& k) {
        const auto& kt = bit_width<T>(k);
        CHECK(first_mismatch(encode(kt, in, offset, bits), encoded) == no_mismatch);
        CHECK(first_mismatch(decode(kt, encoded, count, offset, bits), decoded) == no_mismatch);
      });
    }
  }
}

template <class T>
std::size_t reduce_window(const bit_width_kernels<T>& k, const bytes& in, bytes& out, d::bit_width_stats<T>& s) {
  const unaligned_buffer src(in);
  unaligned_buffer dst(in.size());
  const std::size_t written = k.reduce_window(src.data(), in.size(), dst.data(), s);
  CHECK(dst.guard_intact());
  out = dst.contents();
  out.resize(std::min(written, out.size()));
  return written;
}

template <class T>
bytes restore_window(const bit_width_kernels<T>& k, const bytes& stored, std::size_t window_bytes, T offset,
                     unsigned bits) {
  const unaligned_buffer src(stored);
  unaligned_buffer dst(window_bytes);
  CHECK(k.restore_window(src.data(), window_bytes, offset, bits, dst.data()));
  CHECK(dst.guard_intact());
  return dst.contents();
}

TEST_CASE("bit width reduction: whole windows as TileDB writes them") {
  auto check = [](const kernel_table& k) {
    d::bit_width_stats<std::int32_t> s{};
    bytes out;
    // {1000, 1003, 1255}: reduced to int16
    const bytes w1 = to_bytes<std::int32_t>({1000, 1003, 1255});
    CHECK(reduce_window(bit_width<std::int32_t>(k), w1, out, s) == 6);
    CHECK(hex(out) == "00 00 03 00 ff 00");
    CHECK(s.value_offset() == 1000);
    CHECK(s.bits == 16);
    CHECK(restore_window(bit_width<std::int32_t>(k), out, 12, 1000, 16) == w1);
    // 44 bytes of int64 (5 values and 4 bytes): the header gets the stats of
    // the 5 values, the bytes are stored raw
    bytes w2 = to_bytes<std::int64_t>({7, 8, 9, 10, 11});
    for (int i = 0; i < 4; ++i) w2.push_back(std::byte{0xee});
    d::bit_width_stats<std::int64_t> s64{};
    CHECK(reduce_window(bit_width<std::int64_t>(k), w2, out, s64) == 44);
    CHECK(out == w2);
    CHECK(s64.value_offset() == 7);
    CHECK(s64.bits == 8);
    CHECK(restore_window(bit_width<std::int64_t>(k), w2, 44, std::int64_t{7}, 8) == w2);
    // 2 bytes of int32: no whole value, an overflowed (empty) range, raw
    const bytes w3 = from_hex("12 34");
    CHECK(reduce_window(bit_width<std::int32_t>(k), w3, out, s) == 2);
    CHECK(out == w3);
    CHECK(s.overflow);
    CHECK(s.bits == 32);
  };
  check(reference_kernels);
  for_each_table(check);
  CHECK(d::bit_width_stored_bytes<std::int32_t>(12, 16) == 6);
  CHECK(d::bit_width_stored_bytes<std::int32_t>(12, 32) == 12);
  CHECK(d::bit_width_stored_bytes<std::int64_t>(44, 8) == 44);
}

template <class T>
void check_windows_against_reference() {
  std::mt19937_64 rng(7 * sizeof(T) + std::is_signed_v<T>);
  const auto& ref = bit_width<T>(reference_kernels);
  for (std::size_t window_bytes : {std::size_t{0}, std::size_t{1}, sizeof(T) - 1, sizeof(T), 2 * sizeof(T) + 1,
                                   std::size_t{255}, std::size_t{256}, std::size_t{258}, std::size_t{1024},
                                   std::size_t{1027}, std::size_t{65536}}) {
    for (long double spread : {0.0L, 100.0L, 300.0L, 70000.0L, -1.0L}) {
      INFO(window_bytes, " bytes, spread ", static_cast<double>(spread));
      bytes in = to_bytes(spread_values<T>(window_bytes / sizeof(T), spread, rng));
      for (std::size_t t = in.size(); t < window_bytes; ++t) in.push_back(std::byte{0x5a});
      d::bit_width_stats<T> s{};
      bytes stored;
      const std::size_t written = reduce_window(ref, in, stored, s);
      CHECK(written == d::bit_width_stored_bytes<T>(window_bytes, s.bits));
      REQUIRE(restore_window(ref, stored, window_bytes, s.value_offset(), s.bits) == in);
      for_each_table([&](const kernel_table& k) {
        d::bit_width_stats<T> got{};
        bytes out;
        CHECK(reduce_window(bit_width<T>(k), in, out, got) == written);
        CHECK(got.bits == s.bits);
        CHECK(got.overflow == s.overflow);
        CHECK(got.value_offset() == s.value_offset());
        CHECK(first_mismatch(out, stored) == no_mismatch);
        CHECK(first_mismatch(restore_window(bit_width<T>(k), stored, window_bytes, s.value_offset(), s.bits), in) ==
              no_mismatch);
      });
    }
  }
}

TEST_CASE_TEMPLATE("bit width reduction: whole windows on every architecture match the reference", T, std::int16_t,
                   std::uint16_t, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t) {
  check_windows_against_reference<T>();
}

TEST_CASE_TEMPLATE("bit width reduction: every architecture matches the reference", T, std::int16_t, std::uint16_t,
                   std::int32_t, std::uint32_t, std::int64_t, std::uint64_t) {
  check_against_reference<T>();
}

}  // namespace
}  // namespace tilefmt::test::test_bit_width_reduction_kernel
