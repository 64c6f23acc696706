// Helpers shared by the filter kernel tests.
#ifndef TILEFMT_TESTS_FILTER_KERNEL_TEST_SUPPORT_HPP
#define TILEFMT_TESTS_FILTER_KERNEL_TEST_SUPPORT_HPP

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kernel_table.hpp"
#include "tilefmt/filter/detail/simd.hpp"

namespace tilefmt::test {

using bytes = std::vector<std::byte>;

inline constexpr std::size_t no_mismatch = static_cast<std::size_t>(-1);

inline bytes random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  bytes b(n);
  for (auto& x : b) {
    x = std::byte(static_cast<std::uint8_t>(rng() >> 56));
  }
  return b;
}

// Little-endian bytes of values.
template <class T>
bytes to_bytes(const std::vector<T>& values) {
  bytes b(values.size() * sizeof(T));
  for (std::size_t i = 0; i < values.size(); ++i) {
    filter::detail::store_le<T>(b.data() + i * sizeof(T), values[i]);
  }
  return b;
}

// "01 a0 ff" -> bytes
inline bytes from_hex(std::string_view text) {
  bytes b;
  unsigned value = 0;
  int digits = 0;
  for (char c : text) {
    if (c == ' ') continue;
    value = value * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    if (++digits == 2) {
      b.push_back(std::byte(static_cast<std::uint8_t>(value)));
      value = 0;
      digits = 0;
    }
  }
  return b;
}

inline std::string hex(const std::byte* p, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0) s += ' ';
    const auto v = std::to_integer<unsigned>(p[i]);
    s += digits[v >> 4];
    s += digits[v & 15];
  }
  return s;
}

inline std::string hex(const bytes& b) { return hex(b.data(), b.size()); }

inline std::size_t first_mismatch(const bytes& a, const bytes& b) {
  if (a.size() != b.size()) return std::min(a.size(), b.size());
  const auto m = std::mismatch(a.begin(), a.end(), b.begin());
  return m.first == a.end() ? no_mismatch : static_cast<std::size_t>(m.first - a.begin());
}

// Bytes placed at an odd offset in a larger buffer, so that kernels see
// unaligned pointers; the bytes after them are a guard pattern that must
// survive every call.
class unaligned_buffer {
 public:
  static constexpr std::size_t offset = 3;
  static constexpr std::size_t guard = 64;

  explicit unaligned_buffer(std::size_t n) : n_(n), storage_(offset + n + guard, std::byte{0xA5}) {}
  explicit unaligned_buffer(const bytes& content) : unaligned_buffer(content.size()) {
    for (std::size_t i = 0; i < n_; ++i) storage_[offset + i] = content[i];
  }

  std::byte* data() { return storage_.data() + offset; }
  const std::byte* data() const { return storage_.data() + offset; }
  std::size_t size() const { return n_; }
  bytes contents() const {
    bytes b(n_);
    for (std::size_t i = 0; i < n_; ++i) b[i] = storage_[offset + i];
    return b;
  }
  bool guard_intact() const {
    return std::all_of(storage_.begin() + static_cast<std::ptrdiff_t>(offset + n_), storage_.end(),
                       [](std::byte b) { return b == std::byte{0xA5}; });
  }

 private:
  std::size_t n_;
  bytes storage_;
};

// Lengths in bytes around every boundary a kernel with `vector_bytes`
// registers and a step of `step_elements` elements of `type_size` bytes can
// have, plus the large sizes (64 KiB + 3, 1 MiB + 5).
inline std::vector<std::size_t> test_lengths(std::size_t vector_bytes, std::size_t type_size,
                                             std::size_t step_elements) {
  const std::size_t w = vector_bytes == 0 ? 16 : vector_bytes;
  const std::size_t s = type_size == 0 ? 1 : type_size;
  const std::size_t step = (step_elements == 0 ? w : step_elements) * s;
  std::set<std::size_t> n = {0, 1, 2, 7, 8, 9, w - 1, w, w + 1, 8 * s, 8 * s + 1};
  for (std::size_t k : {1u, 2u, 3u, 5u, 7u}) {  // 5, 7: unrolled loops and the single steps after them
    for (std::size_t delta : {s, std::size_t{1}}) {
      n.insert(k * step - delta);
      n.insert(k * step + delta);
    }
    n.insert(k * step);
  }
  n.insert(step + 8 * s);
  n.insert(step + 9 * s + 3);
  n.insert((64u << 10) + 3);
  n.insert((1u << 20) + 5);
  return {n.begin(), n.end()};
}

// test_lengths for the register width of every table under test, merged, so
// that one reference result serves all tables. The kernel under test handles
// `elements_per_vector_byte` * W elements per step for W-byte registers.
inline std::vector<std::size_t> all_test_lengths(std::size_t type_size, std::size_t elements_per_vector_byte) {
  std::set<std::size_t> n;
  for (const kernel_table* k : kernel_tables()) {
    const std::size_t w = k->vector_bytes == 0 ? 16 : k->vector_bytes;
    for (std::size_t len : test_lengths(w, type_size, elements_per_vector_byte * w)) n.insert(len);
  }
  return {n.begin(), n.end()};
}

// Element counts for the per-window numeric kernels: small ones, multiples
// of every register width's step (a register of 1-, 2-, 4- or 8-byte values,
// and two registers) plus or minus one, and the large sizes.
inline std::vector<std::size_t> numeric_test_counts(std::size_t type_size) {
  std::set<std::size_t> n = {0, 1, 2, 3, 4, 5};
  for (const kernel_table* k : kernel_tables()) {
    const std::size_t w = k->vector_bytes == 0 ? 16 : k->vector_bytes;
    for (std::size_t per_register : {w / 8, w / 4, w / 2, w, 2 * w}) {
      for (std::size_t mult : {1u, 2u, 3u}) {
        n.insert(mult * per_register - 1);
        n.insert(mult * per_register);
        n.insert(mult * per_register + 1);
      }
    }
  }
  n.insert(((64u << 10) + 3) / type_size);
  n.insert(((1u << 20) + 5) / type_size);
  return {n.begin(), n.end()};
}

inline bool is_large(std::size_t count) { return count > 10000; }

// Runs f on every table under test, with the table's name in failure
// messages.
template <class F>
void for_each_table(F&& f) {
  for (const kernel_table* k : kernel_tables()) {
    INFO("kernels: ", k->name);
    f(*k);
  }
}

}  // namespace tilefmt::test

#endif  // TILEFMT_TESTS_FILTER_KERNEL_TEST_SUPPORT_HPP
