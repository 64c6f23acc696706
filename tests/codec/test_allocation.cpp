// No allocation larger than the input can justify: the global allocator is
// replaced in this test program to record the largest single request.
#include <atomic>
#include <cstdlib>
#include <new>

#include "tilefmt/codec/codec.hpp"

#include "../support/testing.hpp"

// g++ 12 at -O2 inlines the replaced operator new (std::malloc) and operator
// delete (std::free) below into std::allocator and then warns that they do
// not match, which they do.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
std::atomic<std::size_t> largest{0};
bool tracking = false;
} // namespace

void* operator new(std::size_t n) {
  if (tracking) {
    std::size_t prev = largest.load();
    while (n > prev && !largest.compare_exchange_weak(prev, n)) {
    }
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace tilefmt;
using tilefmt::testing::bytes_of;

namespace {
struct Blob {
  codec::counted<std::uint64_t, std::vector<std::byte>> bytes;
};
struct Part {
  std::uint32_t a;
  codec::counted<std::uint16_t, std::string> name; // variable size, at least 6 bytes
};
struct Parts {
  codec::counted<std::uint64_t, std::vector<Part>> parts;
};
struct Words {
  codec::count_of<"words", std::uint64_t> n;
  std::vector<std::uint32_t> words;
};

template <class T>
std::size_t largest_allocation_decoding(const std::vector<std::byte>& b) {
  largest = 0;
  tracking = true;
  try {
    (void)codec::decode<T>(b);
  } catch (const format_error&) {
  }
  tracking = false;
  return largest.load();
}
} // namespace

TEST_CASE("corrupt counts of 2^60 elements allocate nothing large") {
  // count = 2^60, followed by 16 real bytes.
  auto b = bytes_of({0, 0, 0, 0, 0, 0, 0, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  CHECK_THROWS_AS(codec::decode<Blob>(b), format_error);
  CHECK_THROWS_AS(codec::decode<Parts>(b), format_error);
  CHECK_THROWS_AS(codec::decode<Words>(b), format_error);
  // Anything allocated is for the error message, never for elements.
  CHECK(largest_allocation_decoding<Blob>(b) < 256);
  CHECK(largest_allocation_decoding<Parts>(b) < 256);
  CHECK(largest_allocation_decoding<Words>(b) < 256);
}

TEST_CASE("a plausible count allocates what the input holds") {
  std::vector<std::byte> b(8 + 1000);
  codec::store_le<std::uint64_t>(b.data(), 1000);
  CHECK(largest_allocation_decoding<Blob>(b) >= 1000);
  CHECK(codec::decode<Blob>(b).bytes.value.size() == 1000);
}

namespace {
struct Name {
  codec::cstring name;
};
struct Bit {
  std::uint8_t last;
  codec::counted<std::uint64_t, std::vector<std::byte>> bytes;
};
struct UntilLast {
  std::uint8_t lead;
  codec::repeat_until<codec::element_equals<1>, std::vector<std::uint8_t>> flags;
};
struct IsLast {
  bool operator()(const Bit& b) const { return b.last == 1; }
};
struct Bits {
  codec::repeat_until<IsLast, std::vector<Bit>> bits;
};
} // namespace

TEST_CASE("terminated sequences allocate only for what is present") {
  // 1 MB without a NUL: the search fails before any string is allocated.
  std::vector<std::byte> no_nul(1 << 20, std::byte{'x'});
  CHECK(largest_allocation_decoding<Name>(no_nul) < 256);
  // No terminating flag among 4096 bytes: at most a vector of those bytes.
  std::vector<std::byte> flags(4096, std::byte{0});
  CHECK(largest_allocation_decoding<UntilLast>(flags) <= 2 * flags.size());
  // An element whose count claims 2^60 bytes stops the sequence there.
  auto b = bytes_of({0, 0, 0, 0, 0, 0, 0, 0, 0x10, 1, 2, 3});
  CHECK(largest_allocation_decoding<Bits>(b) < 256);
}
