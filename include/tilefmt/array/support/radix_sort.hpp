// tilefmt — a stable least-significant-digit radix sort of 64-bit numbers by
// a range of their bits, on several threads. The sparse writer sorts cells
// into global order with it: a comparison sort of 10^7 cells by several keys
// took most of a write.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilefmt/array/support/parallel.hpp"

namespace tilefmt::array::detail {

/// Sorts `v` by bits [from, to) of each number (bit 0 the least
/// significant), keeping numbers with equal bits there in their order. Each
/// pass sorts 11 bits: the array is cut into one part per thread, each
/// thread counts its part's digits, and then moves its part to where the
/// counts of the digits below and of the earlier parts put it.
inline void radix_sort(std::vector<std::uint64_t>& v, int from, int to, unsigned threads) {
  constexpr int digit_bits = 11;
  constexpr std::size_t buckets = std::size_t{1} << digit_bits;
  const std::size_t n = v.size();
  if (n < 2 || to <= from) return;
  // Parts of at least 64 Ki numbers: below that a thread costs more than it sorts.
  const std::size_t parts = std::max<std::size_t>(1, std::min<std::size_t>(thread_count(threads), n >> 16));
  const std::size_t per = (n + parts - 1) / parts;
  std::vector<std::uint64_t> tmp(n);
  std::vector<std::array<std::size_t, buckets>> count(parts);
  for (int shift = from; shift < to; shift += digit_bits) {
    const int width = std::min(digit_bits, to - shift);
    const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
    parallel_for(parts, static_cast<unsigned>(parts), [&](std::size_t p) {
      auto& c = count[p];
      c.fill(0);
      const std::size_t b = p * per, e = std::min(n, b + per);
      for (std::size_t i = b; i < e; ++i) ++c[(v[i] >> shift) & mask];
    });
    // Turn the counts into each part's first place for each digit.
    std::size_t at = 0;
    for (std::size_t d = 0; d <= mask; ++d)
      for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t k = count[p][d];
        count[p][d] = at;
        at += k;
      }
    parallel_for(parts, static_cast<unsigned>(parts), [&](std::size_t p) {
      auto& c = count[p];
      const std::size_t b = p * per, e = std::min(n, b + per);
      for (std::size_t i = b; i < e; ++i) tmp[c[(v[i] >> shift) & mask]++] = v[i];
    });
    v.swap(tmp);
  }
}

} // namespace tilefmt::array::detail
