#include "tilefmt/filter/detail/bitshuffle_kernel.hpp"

#include <cstddef>

#include "kernel_test_support.hpp"

namespace tilefmt::test::test_bitshuffle_kernel {
namespace {

namespace d = filter::detail;

bytes run(byte_kernel kernel, const bytes& in, std::size_t type_size) {
  const unaligned_buffer src(in);
  unaligned_buffer dst(in.size());
  kernel(src.data(), src.size(), type_size, dst.data());
  CHECK(dst.guard_intact());
  return dst.contents();
}

TEST_CASE("bitshuffle: worked examples") {
  struct example {
    std::size_t type_size;
    bytes in;
    bytes out;
  };
  const example examples[] = {
      // One byte element 0xff among zeros: bit b of element 0 is bit 0 of
      // every row b.
      {1, from_hex("ff 00 00 00 00 00 00 00"), from_hex("01 01 01 01 01 01 01 01")},
      // Row 0 gathers bit 0 of elements 0 and 1, row 1 bit 1 of element 0;
      // a ninth element is copied unchanged.
      {1, from_hex("03 01 00 00 00 00 00 00 7e"), from_hex("03 01 00 00 00 00 00 00 7e")},
      // Nine 2-byte elements and a trailing byte: elements 0 = 0100 and
      // 7 = 8001 (little-endian bytes 00 01 and 01 80) set row 0 (low byte,
      // bit 0) bit 7, row 8 (high byte, bit 0) bit 0 and row 15 (high byte,
      // bit 7) bit 7; element 8 and the odd byte are copied.
      {2, from_hex("00 01 00 00 00 00 00 00 00 00 00 00 00 00 01 80 ab cd ef"),
       from_hex("80 00 00 00 00 00 00 00 01 00 00 00 00 00 00 80 ab cd ef")},
  };
  for (const auto& e : examples) {
    CHECK(hex(run(reference_kernels.bitshuffle_block, e.in, e.type_size)) == hex(e.out));
    CHECK(hex(run(reference_kernels.bitunshuffle_block, e.out, e.type_size)) == hex(e.in));
    for_each_table([&](const kernel_table& k) {
      CHECK(hex(run(k.bitshuffle_block, e.in, e.type_size)) == hex(e.out));
      CHECK(hex(run(k.bitunshuffle_block, e.out, e.type_size)) == hex(e.in));
    });
  }
}

TEST_CASE("bitshuffle: a counting sequence, long enough for every register width") {
  // 512 one-byte elements i & 0xff. For element 8m + k the low three bits
  // are k, so rows 0-2 hold the constant masks aa, cc, f0; bit b >= 3 is
  // bit b - 3 of m (mod 32) for all eight elements, so row b byte m is ff or
  // 00.
  bytes in(512);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::byte(static_cast<std::uint8_t>(i));
  const std::size_t row_bytes = 64;
  bytes expected(512);
  for (std::size_t m = 0; m < row_bytes; ++m) {
    expected[0 * row_bytes + m] = std::byte{0xaa};
    expected[1 * row_bytes + m] = std::byte{0xcc};
    expected[2 * row_bytes + m] = std::byte{0xf0};
    for (std::size_t b = 3; b < 8; ++b) {
      expected[b * row_bytes + m] = ((m % 32) >> (b - 3)) & 1 ? std::byte{0xff} : std::byte{0x00};
    }
  }
  CHECK(first_mismatch(run(reference_kernels.bitshuffle_block, in, 1), expected) == no_mismatch);
  for_each_table([&](const kernel_table& k) {
    CHECK(first_mismatch(run(k.bitshuffle_block, in, 1), expected) == no_mismatch);
    CHECK(first_mismatch(run(k.bitunshuffle_block, expected, 1), in) == no_mismatch);
  });
}

TEST_CASE("bitshuffle: split of a part as TileDB does it") {
  CHECK(d::bitshuffle_split(0).head == 0);
  CHECK(d::bitshuffle_split(0).tail == 0);
  CHECK(d::bitshuffle_split(5).head == 0);  // kept, though empty
  CHECK(d::bitshuffle_split(5).tail == 5);
  CHECK(d::bitshuffle_split(16).head == 16);
  CHECK(d::bitshuffle_split(16).tail == 0);
  CHECK(d::bitshuffle_split(8197).head == 8192);
  CHECK(d::bitshuffle_split(8197).tail == 5);
}

TEST_CASE("bitshuffle: blocks on every architecture match the reference and round-trip") {
  for (std::size_t type_size : {1u, 2u, 3u, 4u, 8u, 16u}) {
    auto lengths = all_test_lengths(type_size, 8);
    lengths.push_back(d::bitshuffle_block_bytes);
    lengths.push_back(d::bitshuffle_block_bytes - type_size);
    // The VBMI + GFNI kernels' steps of 256 elements, around which the
    // AVX-512BW and the scalar code take over.
    for (std::size_t k : {1u, 2u, 3u}) {
      for (std::size_t elements : {256 * k - 8, 256 * k - 1, 256 * k, 256 * k + 1, 256 * k + 8, 256 * k + 64}) {
        lengths.push_back(elements * type_size);
      }
    }
    for (std::size_t n : lengths) {
      INFO("type size ", type_size, ", ", n, " bytes");
      const bytes in = random_bytes(n, 2000 * n + type_size);
      const bytes expected = run(reference_kernels.bitshuffle_block, in, type_size);
      REQUIRE(first_mismatch(run(reference_kernels.bitunshuffle_block, expected, type_size), in) == no_mismatch);
      for_each_table([&](const kernel_table& k) {
        CHECK(first_mismatch(run(k.bitshuffle_block, in, type_size), expected) == no_mismatch);
        CHECK(first_mismatch(run(k.bitunshuffle_block, expected, type_size), in) == no_mismatch);
      });
    }
  }
}

TEST_CASE("bitshuffle: parts on every architecture match the reference and round-trip") {
  for (std::size_t type_size : {1u, 2u, 4u, 8u, 3u}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{8}, std::size_t{24},
                          d::bitshuffle_block_bytes, d::bitshuffle_block_bytes + 8 * type_size,
                          d::bitshuffle_block_bytes + 24, std::size_t{(64u << 10) + 3},
                          std::size_t{(64u << 10) + 8}, std::size_t{1u << 20}, std::size_t{(1u << 20) + 5},
                          std::size_t{(1u << 20) + 24 * type_size}}) {
      INFO("type size ", type_size, ", ", n, " bytes");
      const bytes in = random_bytes(n, 3000 * n + type_size);
      const bytes expected = run(reference_kernels.bitshuffle, in, type_size);
      if (n % 8 != 0 || n % type_size != 0) {
        CHECK(expected == in);  // TileDB copies such parts unchanged
      }
      for_each_table([&](const kernel_table& k) {
        CHECK(first_mismatch(run(k.bitshuffle, in, type_size), expected) == no_mismatch);
        CHECK(first_mismatch(run(k.bitunshuffle, expected, type_size), in) == no_mismatch);
      });
    }
  }
}

TEST_CASE("bitshuffle: edge data") {
  for (std::size_t type_size : {1u, 2u, 4u, 8u}) {
    for (std::uint8_t fill : {std::uint8_t{0x00}, std::uint8_t{0xff}, std::uint8_t{0x80}, std::uint8_t{0x01}}) {
      INFO("type size ", type_size, ", fill ", unsigned{fill});
      const bytes in(4096 + 8 * type_size, std::byte{fill});
      const bytes expected = run(reference_kernels.bitshuffle, in, type_size);
      for_each_table([&](const kernel_table& k) {
        CHECK(first_mismatch(run(k.bitshuffle, in, type_size), expected) == no_mismatch);
        CHECK(first_mismatch(run(k.bitunshuffle, expected, type_size), in) == no_mismatch);
      });
    }
  }
}

}  // namespace
}  // namespace tilefmt::test::test_bitshuffle_kernel
