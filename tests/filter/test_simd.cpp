#include "tilefmt/filter/detail/simd.hpp"

#include <cstddef>
#include <cstdint>

#include "kernel_test_support.hpp"

namespace tilefmt::test::test_simd {
namespace {

namespace d = filter::detail;

static_assert(!d::simd::accelerated<void>, "Arch = void selects the scalar code");
#if XSIMD_WITH_SSE2
static_assert(d::simd::family_v<xsimd::sse2> == d::simd::family::sse2);
#endif
#if XSIMD_WITH_AVX2
static_assert(d::simd::family_v<xsimd::avx2> == d::simd::family::avx2);
static_assert(d::simd::family_v<xsimd::fma3<xsimd::avx2>> == d::simd::family::avx2);
#endif
#if XSIMD_WITH_AVX && !XSIMD_WITH_AVX2
static_assert(!d::simd::accelerated<xsimd::avx>, "AVX without AVX2 has no 256-bit integer shuffles");
#endif

TEST_CASE("simd helpers: little-endian scalar access") {
  std::byte b[8] = {};
  d::store_le<std::uint32_t>(b + 1, 0x11223344u);
  CHECK(hex(b, 8) == "00 44 33 22 11 00 00 00");
  CHECK(d::load_le<std::uint32_t>(b + 1) == 0x11223344u);
  CHECK(d::load_le<std::int16_t>(b + 3) == 0x1122);
  d::store_le<std::int16_t>(b, -32767);
  CHECK(hex(b, 2) == "01 80");
}

TEST_CASE("simd helpers: wrap-around arithmetic") {
  CHECK(d::wrapping_add<std::int8_t>(127, 1) == -128);
  CHECK(d::wrapping_sub<std::int8_t>(-128, 1) == 127);
  CHECK(d::wrapping_sub<std::int64_t>(INT64_MIN, 1) == INT64_MAX);
  CHECK(d::wrapping_add<std::uint16_t>(65535, 2) == 1);
}

TEST_CASE("simd helpers: 8x8 bit transpose") {
  // Byte r = row r. Row 0 = 0xff: bit 0 of every byte. Row 1 = 0x01: bit 1
  // of byte 0.
  CHECK(d::transpose_bits_8x8<std::uint64_t>(0x01ffull) == 0x0101010101010103ull);
  CHECK(d::transpose_bits_8x8<std::uint64_t>(0x8040201008040201ull) == 0x8040201008040201ull);
  for (std::uint64_t x : {0x0123456789abcdefull, 0xfedcba9876543210ull, 0x8000000000000001ull}) {
    CHECK(d::transpose_bits_8x8(d::transpose_bits_8x8(x)) == x);
    const std::uint64_t t = d::transpose_bits_8x8(x);
    for (unsigned r = 0; r < 8; ++r) {
      for (unsigned c = 0; c < 8; ++c) {
        CHECK(((x >> (8 * r + c)) & 1) == ((t >> (8 * c + r)) & 1));
      }
    }
  }
}

TEST_CASE("simd helpers: the instruction sets built into this test") {
  std::string names;
  for (const kernel_table* k : kernel_tables()) {
    names += k->name;
    names += ' ';
  }
  MESSAGE("kernel tables: ", names);
  CHECK(kernel_tables().size() >= 2);
}

}  // namespace
}  // namespace tilefmt::test::test_simd
