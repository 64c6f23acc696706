#include "tilefmt/filter/detail/byteshuffle_kernel.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "kernel_test_support.hpp"

namespace tilefmt::test::test_byteshuffle_kernel {
namespace {

bytes run(byte_kernel kernel, const bytes& in, std::size_t type_size) {
  const unaligned_buffer src(in);
  unaligned_buffer dst(in.size());
  kernel(src.data(), src.size(), type_size, dst.data());
  CHECK(dst.guard_intact());
  return dst.contents();
}

TEST_CASE("byteshuffle: worked examples") {
  // Two 4-byte elements 00010203 and 10111213, then 2 trailing bytes.
  const bytes four = from_hex("00 01 02 03 10 11 12 13 a0 a1");
  const bytes four_shuffled = from_hex("00 10 01 11 02 12 03 13 a0 a1");
  // Two 3-byte elements and one trailing byte.
  const bytes three = from_hex("a0 a1 a2 b0 b1 b2 ff");
  const bytes three_shuffled = from_hex("a0 b0 a1 b1 a2 b2 ff");
  // 17 elements of 2 bytes: one full SSE step of 16 plus a scalar one.
  bytes two;
  bytes two_shuffled(34);
  for (std::size_t i = 0; i < 17; ++i) {
    two.push_back(std::byte(static_cast<std::uint8_t>(i)));
    two.push_back(std::byte(static_cast<std::uint8_t>(0x80 + i)));
    two_shuffled[i] = std::byte(static_cast<std::uint8_t>(i));
    two_shuffled[17 + i] = std::byte(static_cast<std::uint8_t>(0x80 + i));
  }

  CHECK(hex(run(reference_kernels.byteshuffle, four, 4)) == hex(four_shuffled));
  CHECK(hex(run(reference_kernels.byteshuffle, three, 3)) == hex(three_shuffled));
  CHECK(hex(run(reference_kernels.byteshuffle, two, 2)) == hex(two_shuffled));
  for_each_table([&](const kernel_table& k) {
    CHECK(hex(run(k.byteshuffle, four, 4)) == hex(four_shuffled));
    CHECK(hex(run(k.byteunshuffle, four_shuffled, 4)) == hex(four));
    CHECK(hex(run(k.byteshuffle, three, 3)) == hex(three_shuffled));
    CHECK(hex(run(k.byteunshuffle, three_shuffled, 3)) == hex(three));
    CHECK(hex(run(k.byteshuffle, two, 2)) == hex(two_shuffled));
    CHECK(hex(run(k.byteunshuffle, two_shuffled, 2)) == hex(two));
  });
}

TEST_CASE("byteshuffle: type size 1 copies") {
  const bytes in = random_bytes(100, 1);
  for_each_table([&](const kernel_table& k) {
    CHECK(run(k.byteshuffle, in, 1) == in);
    CHECK(run(k.byteunshuffle, in, 1) == in);
  });
}

TEST_CASE("byteshuffle: every architecture matches the reference and round-trips") {
  for (std::size_t type_size : {1u, 2u, 3u, 4u, 8u, 12u, 16u}) {
    for (std::size_t n : all_test_lengths(type_size, 1)) {
      INFO("type size ", type_size, ", ", n, " bytes");
      const bytes in = random_bytes(n, 1000 * n + type_size);
      const bytes expected = run(reference_kernels.byteshuffle, in, type_size);
      REQUIRE(first_mismatch(run(reference_kernels.byteunshuffle, expected, type_size), in) == no_mismatch);
      for_each_table([&](const kernel_table& k) {
        const bytes shuffled = run(k.byteshuffle, in, type_size);
        CHECK(first_mismatch(shuffled, expected) == no_mismatch);
        CHECK(first_mismatch(run(k.byteunshuffle, expected, type_size), in) == no_mismatch);
      });
    }
  }
}

TEST_CASE("byte unshuffle around the caches: the reference's bytes at every output alignment") {
  // byteunshuffle_stream aligns its output for non-temporal stores: the
  // first elements one at a time, the rest in whole steps, then the tail.
  // Outputs at every offset from a 64-byte boundary that a type size allows
  // (and some it does not, which take the ordinary kernel), bytes around the
  // output untouched.
  for (std::size_t type_size : {1u, 2u, 3u, 4u, 8u, 12u, 16u}) {
    for (std::size_t n : all_test_lengths(type_size, 1)) {
      const bytes in = random_bytes(n, 77 * n + type_size);
      const bytes shuffled = run(reference_kernels.byteshuffle, in, type_size);
      for_each_table([&](const kernel_table& k) {
        for (std::size_t offset : {0u, 1u, 2u, 4u, 8u, 16u, 24u, 32u, 48u, 56u}) {
          INFO("type size ", type_size, ", ", n, " bytes, output at 64 k + ", offset);
          std::vector<std::byte> out(n + 192, std::byte{0xA5});
          const auto base = reinterpret_cast<std::uintptr_t>(out.data());
          const std::size_t at = (64 - base % 64) % 64 + offset;
          k.byteunshuffle_stream(shuffled.data(), n, type_size, out.data() + at);
          CHECK(first_mismatch(bytes(out.begin() + static_cast<std::ptrdiff_t>(at),
                                     out.begin() + static_cast<std::ptrdiff_t>(at + n)),
                               in) == no_mismatch);
          CHECK(std::all_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(at),
                            [](std::byte b) { return b == std::byte{0xA5}; }));
          CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(at + n), out.end(),
                            [](std::byte b) { return b == std::byte{0xA5}; }));
        }
      });
    }
  }
}

TEST_CASE("byte unshuffle of some elements: the whole unshuffle's bytes, nothing written around them") {
  // A reader restores only the cells of a chunk it needs: element ranges at
  // every start within a register's step of either end and in the middle,
  // of every length class the kernels treat apart (none, less than a step,
  // whole steps, steps and a tail).
  for (std::size_t type_size : {1u, 2u, 3u, 4u, 8u, 12u, 16u}) {
    for (std::size_t n : all_test_lengths(type_size, 1)) {
      const std::size_t count = n / type_size;
      const bytes in = random_bytes(n, 31 * n + type_size);
      const bytes shuffled = run(reference_kernels.byteshuffle, in, type_size);
      std::set<std::size_t> firsts = {0, 1, count / 2};
      for (std::size_t back : {1u, 7u, 33u, 129u})
        if (count >= back) firsts.insert(count - back);
      for (const std::size_t first : firsts) {
        if (first > count) continue;
        std::set<std::size_t> lens = {0, 1, 15, 16, 17, 63, 64, 65, 200, count - first};
        const auto check = [&](const kernel_table& k) {
          for (const std::size_t len : lens) {
            if (len > count - first) continue;
            INFO("type size ", type_size, ", ", n, " bytes, elements [", first, ", ", first + len, ")");
            unaligned_buffer out(len * type_size);
            k.byteunshuffle_elements(shuffled.data(), n, type_size, first, len, out.data());
            CHECK(out.guard_intact());
            CHECK(first_mismatch(out.contents(), bytes(in.begin() + static_cast<std::ptrdiff_t>(first * type_size),
                                                       in.begin() + static_cast<std::ptrdiff_t>((first + len) * type_size))) ==
                  no_mismatch);
          }
        };
        check(reference_kernels);
        for_each_table(check);
      }
    }
  }
}

TEST_CASE("byteshuffle: the reference follows the layout formula") {
  // out[j * N + i] = in[i * S + j], then the n % S trailing bytes.
  for (std::size_t type_size : {2u, 5u, 8u}) {
    const std::size_t n = 8 * type_size + 3;
    const std::size_t count = n / type_size;
    const bytes in = random_bytes(n, type_size);
    const bytes out = run(reference_kernels.byteshuffle, in, type_size);
    bytes expected(n);
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = 0; j < type_size; ++j) {
        expected[j * count + i] = in[i * type_size + j];
      }
    }
    for (std::size_t t = count * type_size; t < n; ++t) expected[t] = in[t];
    CHECK(out == expected);
  }
}

}  // namespace
}  // namespace tilefmt::test::test_byteshuffle_kernel
