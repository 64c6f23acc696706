// Positive delta (TileDB's POSITIVE_DELTA filter), one window at a time. T
// is any 8- to 64-bit integer (TileDB runs BLOB, BOOL and the GEOM types as
// uint8, and DATETIME/TIME as int64 from format version 20 on).
//
// What TileDB does per window (the caller's part; these kernels cover the
// arithmetic): the window header records the first element and the window's
// byte length; a window whose length is not a multiple of sizeof(T) is
// copied raw. Otherwise element 0 is stored as 0 and element i as
// x[i] - x[i - 1] in T, little-endian, same size as the input; the write
// fails as soon as an element is smaller than its predecessor (compared in
// T). Decoding is a running sum starting from the recorded first element.
// Input and output must not overlap; neither needs any alignment.
#ifndef TILEFMT_FILTER_DETAIL_POSITIVE_DELTA_KERNEL_HPP
#define TILEFMT_FILTER_DETAIL_POSITIVE_DELTA_KERNEL_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tilefmt/filter/detail/simd.hpp"

namespace tilefmt::filter::detail {

template <class T>
concept positive_delta_type =
    std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t> ||
    std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;

namespace positive_delta_impl {

// Index of the first element smaller than its predecessor, or count.
template <class T, class Arch>
inline std::size_t first_decrease(const std::byte* in, std::size_t count) noexcept {
  if (count == 0) return 0;
  T prev = load_le<T>(in);
  for (std::size_t i = 1; i < count; ++i) {
    const T cur = load_le<T>(in + i * sizeof(T));
    if (cur < prev) return i;
    prev = cur;
  }
  return count;
}

// Deltas of elements [first, count), first >= 1; returns the index of the
// first decrease or count.
template <class T, class Arch>
inline std::size_t encode_range(const std::byte* in, std::size_t first, std::size_t count,
                                std::byte* out) noexcept {
  if (first >= count) return count;
  T prev = load_le<T>(in + (first - 1) * sizeof(T));
  for (std::size_t i = first; i < count; ++i) {
    const T cur = load_le<T>(in + i * sizeof(T));
    if (cur < prev) return i;
    store_le<T>(out + i * sizeof(T), wrapping_sub(cur, prev));
    prev = cur;
  }
  return count;
}

template <class T, class Arch>
inline void decode_range(const std::byte* in, std::size_t first, std::size_t count, T prev,
                         std::byte* out) noexcept {
  for (std::size_t i = first; i < count; ++i) {
    prev = wrapping_add(prev, load_le<T>(in + i * sizeof(T)));
    store_le<T>(out + i * sizeof(T), prev);
  }
}

// Elements [1, done) with two overlapping loads per register: x[i..] and
// x[i - 1..]. Decreases are gathered and located afterwards, since a failed
// write is rare and its output is discarded.
template <class T, class Arch>
inline std::size_t encode_simd(const std::byte* in, std::size_t count, std::byte* out, bool& decreased) noexcept {
  using B = simd::batch<T, Arch>;
  constexpr std::size_t n = B::size;
  simd::batch_bool<T, Arch> bad(false);
  std::size_t i = 1;
  for (; i + n <= count; i += n) {
    const B cur = simd::load_as<T, Arch>(in + i * sizeof(T));
    const B prev = simd::load_as<T, Arch>(in + (i - 1) * sizeof(T));
    bad = bad | (cur < prev);
    simd::store(out + i * sizeof(T), cur - prev);
  }
  decreased = simd::any(bad);
  return i;
}

// Inclusive prefix sum within one register: log2(n) shifted adds.
template <class T, class Arch, std::size_t Shift = 1>
inline simd::batch<T, Arch> prefix_sum(const simd::batch<T, Arch>& d) noexcept {
  if constexpr (Shift >= simd::batch<T, Arch>::size) {
    return d;
  } else {
    const auto shifted = simd::cast<T>(simd::slide_up<Shift * sizeof(T), Arch>(simd::cast<std::uint8_t>(d)));
    return prefix_sum<T, Arch, 2 * Shift>(d + shifted);
  }
}

template <class T, class Arch>
inline simd::batch<T, Arch> broadcast_last(const simd::batch<T, Arch>& v) noexcept {
  return simd::cast<T>(simd::broadcast_last<sizeof(T), Arch>(simd::cast<std::uint8_t>(v)));
}

// Two registers per step: each register's total is broadcast from its own
// prefix sums, so the running sum carried from step to step waits on one
// add per two registers instead of an add and a broadcast per register.
template <class T, class Arch>
inline std::size_t decode_simd(const std::byte* in, std::size_t count, T first, std::byte* out) noexcept {
  using B = simd::batch<T, Arch>;
  constexpr std::size_t n = B::size;
  B running(first);
  std::size_t i = 0;
  for (; i + 2 * n <= count; i += 2 * n) {
    const B p0 = prefix_sum<T, Arch>(simd::load_as<T, Arch>(in + i * sizeof(T)));
    const B p1 = prefix_sum<T, Arch>(simd::load_as<T, Arch>(in + (i + n) * sizeof(T)));
    const B total0 = broadcast_last<T, Arch>(p0);
    const B total1 = broadcast_last<T, Arch>(p1);
    simd::store(out + i * sizeof(T), p0 + running);
    simd::store(out + (i + n) * sizeof(T), p1 + (running + total0));
    running = running + (total0 + total1);
  }
  for (; i + n <= count; i += n) {
    const B sums = prefix_sum<T, Arch>(simd::load_as<T, Arch>(in + i * sizeof(T))) + running;
    simd::store(out + i * sizeof(T), sums);
    running = broadcast_last<T, Arch>(sums);
  }
  return i;
}

}  // namespace positive_delta_impl

// Writes the count deltas and returns count, or returns the index of the
// first element smaller than its predecessor (where TileDB fails the write;
// the output is then unspecified).
template <positive_delta_type T, class Arch = void>
inline std::size_t positive_delta_encode_scalar(const std::byte* in, std::size_t count,
                                                std::byte* out) noexcept {
  if (count == 0) return 0;
  store_le<T>(out, T{0});
  return positive_delta_impl::encode_range<T, Arch>(in, 1, count, out);
}

template <positive_delta_type T, class Arch = default_arch>
inline std::size_t positive_delta_encode(const std::byte* in, std::size_t count, std::byte* out) noexcept {
  if (count == 0) return 0;
  store_le<T>(out, T{0});
  std::size_t done = 1;
  if constexpr (simd::accelerated<Arch>) {
    bool decreased = false;
    done = positive_delta_impl::encode_simd<T, Arch>(in, count, out, decreased);
    if (decreased) return positive_delta_impl::first_decrease<T, Arch>(in, count);
  }
  return positive_delta_impl::encode_range<T, Arch>(in, done, count, out);
}

// out[i] = first + in[0] + ... + in[i], in T with wrap-around.
template <positive_delta_type T, class Arch = void>
inline void positive_delta_decode_scalar(const std::byte* in, std::size_t count, T first,
                                         std::byte* out) noexcept {
  positive_delta_impl::decode_range<T, Arch>(in, 0, count, first, out);
}

template <positive_delta_type T, class Arch = default_arch>
inline void positive_delta_decode(const std::byte* in, std::size_t count, T first, std::byte* out) noexcept {
  std::size_t done = 0;
  if constexpr (simd::accelerated<Arch>) {
    done = positive_delta_impl::decode_simd<T, Arch>(in, count, first, out);
    if (done != 0) first = load_le<T>(out + (done - 1) * sizeof(T));
  }
  positive_delta_impl::decode_range<T, Arch>(in, done, count, first, out);
}

}  // namespace tilefmt::filter::detail

#endif  // TILEFMT_FILTER_DETAIL_POSITIVE_DELTA_KERNEL_HPP
