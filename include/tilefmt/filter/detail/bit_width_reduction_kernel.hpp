// Bit-width reduction (TileDB's BIT_WIDTH_REDUCTION filter), one window at a
// time. T is the filter's element type: int16, uint16, int32, uint32, int64
// or uint64 (TileDB passes every other type through untouched).
//
// What TileDB does per window of `window_bytes` input bytes (the window
// sizes and the metadata are the caller's part):
//   - stats over the floor(window_bytes / sizeof(T)) whole elements
//     (bit_width_window_stats), written to the metadata as the value offset
//     and bit width;
//   - if the width is 8 * sizeof(T) or more, or window_bytes is not a
//     multiple of sizeof(T), the window's bytes are copied raw;
//   - otherwise each element is stored as (value - offset) in an integer of
//     `bits` bits with T's signedness, little-endian (bit_width_encode), and
//     read back by widening and adding the offset (bit_width_decode).
// bit_width_reduce_window and bit_width_restore_window do all of it for one
// window. Input and output must not overlap; neither needs any alignment.
#ifndef TILEFMT_FILTER_DETAIL_BIT_WIDTH_REDUCTION_KERNEL_HPP
#define TILEFMT_FILTER_DETAIL_BIT_WIDTH_REDUCTION_KERNEL_HPP

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tilefmt/filter/detail/simd.hpp"

namespace tilefmt::filter::detail {

template <class T>
concept bit_width_reducible =
    std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;

// The integer a value of T is reduced to: `Bits` wide, T's signedness.
template <class T, unsigned Bits>
using bit_width_value_t = std::conditional_t<
    std::is_signed_v<T>,
    std::conditional_t<Bits == 8, std::int8_t,
                       std::conditional_t<Bits == 16, std::int16_t,
                                          std::conditional_t<Bits == 32, std::int32_t, std::int64_t>>>,
    std::conditional_t<Bits == 8, std::uint8_t,
                       std::conditional_t<Bits == 16, std::uint16_t,
                                          std::conditional_t<Bits == 32, std::uint32_t, std::uint64_t>>>>;

template <class T>
struct bit_width_stats {
  T min;  // std::numeric_limits<T>::max() for an empty window
  T max;  // std::numeric_limits<T>::lowest() for an empty window
  std::uint8_t bits;  // 8, 16, 32 or 64
  // max - min or max - min + 1 does not fit in T (always so for an empty
  // window). TileDB then records bits = 8 * sizeof(T) and never writes its
  // offset variable, so the metadata holds whatever was in memory.
  bool overflow;

  // The offset to record: min, or 0 where TileDB's is uninitialised.
  constexpr T value_offset() const noexcept { return overflow ? T{0} : min; }
};

namespace bit_width_impl {

// TileDB's checked_arithmetic: 32-bit and narrower types are computed in
// 64 bits of the same signedness (so an unsigned a - b with a < b wraps to a
// huge value and fails), 64-bit types are checked directly.
template <class T>
constexpr bool checked_sub(T a, T b, T& result) noexcept {
  constexpr T lowest = std::numeric_limits<T>::lowest();
  constexpr T highest = std::numeric_limits<T>::max();
  if constexpr (sizeof(T) < 8) {
    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    const W c = static_cast<W>(static_cast<W>(a) - static_cast<W>(b));
    if (c < static_cast<W>(lowest) || c > static_cast<W>(highest)) return false;
    result = static_cast<T>(c);
  } else if constexpr (std::is_signed_v<T>) {
    if (b >= 0 ? a < lowest + b : a > highest + b) return false;
    result = a - b;
  } else {
    if (a < b) return false;
    result = a - b;
  }
  return true;
}

template <class T>
constexpr bool checked_add(T a, T b, T& result) noexcept {
  constexpr T lowest = std::numeric_limits<T>::lowest();
  constexpr T highest = std::numeric_limits<T>::max();
  if constexpr (sizeof(T) < 8) {
    using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    const W c = static_cast<W>(static_cast<W>(a) + static_cast<W>(b));
    if (c < static_cast<W>(lowest) || c > static_cast<W>(highest)) return false;
    result = static_cast<T>(c);
  } else if constexpr (std::is_signed_v<T>) {
    if (b >= 0 ? a > highest - b : a < lowest - b) return false;
    result = a + b;
  } else {
    if (a > highest - b) return false;
    result = a + b;
  }
  return true;
}

// Signed: the narrowest of int8/16/32/64 holding v. Unsigned: the position
// of the highest set bit.
template <class T>
constexpr unsigned bits_required(T v) noexcept {
  if constexpr (std::is_signed_v<T>) {
    if (v >= INT8_MIN && v <= INT8_MAX) return 8;
    if (v >= INT16_MIN && v <= INT16_MAX) return 16;
    if (v >= INT32_MIN && v <= INT32_MAX) return 32;
    return 64;
  } else {
    return static_cast<unsigned>(std::bit_width(v));
  }
}

template <class T, class U, class Arch>
inline bool encode_scalar(const std::byte* in, std::size_t first, std::size_t count, T offset,
                          std::byte* out) noexcept {
  for (std::size_t i = first; i < count; ++i) {
    const T delta = wrapping_sub(load_le<T>(in + i * sizeof(T)), offset);
    store_le<U>(out + i * sizeof(U), static_cast<U>(delta));
  }
  return true;
}

template <class T, class U, class Arch>
inline bool decode_scalar(const std::byte* in, std::size_t first, std::size_t count, T offset,
                          std::byte* out) noexcept {
  for (std::size_t i = first; i < count; ++i) {
    const T widened = static_cast<T>(load_le<U>(in + i * sizeof(U)));
    store_le<T>(out + i * sizeof(T), wrapping_add(widened, offset));
  }
  return true;
}

template <class T, class Arch>
inline bit_width_stats<T> stats_from_range(T min, T max) noexcept {
  T range{};
  T range_plus_one{};
  if (!checked_sub(max, min, range) || !checked_add(range, T{1}, range_plus_one)) {
    return {min, max, static_cast<std::uint8_t>(8 * sizeof(T)), true};
  }
  const unsigned needed = bits_required(range_plus_one);
  const unsigned bits = needed <= 8 ? 8 : needed <= 16 ? 16 : needed <= 32 ? 32 : 64;
  return {min, max, static_cast<std::uint8_t>(bits), false};
}

// Whether the instruction set has a min/max instruction for T. Without one,
// xsimd builds min from <=, i.e. two compares; one compare and a select is
// cheaper.
template <class T, class Arch>
constexpr bool has_native_min_max() noexcept {
  using simd::family;
  if constexpr (simd::family_v<Arch> == family::avx512bw) return true;
  if constexpr (sizeof(T) == 8) return false;
  if constexpr (simd::family_v<Arch> == family::avx2 || std::is_base_of_v<xsimd::sse4_1, Arch>) return true;
  return std::is_same_v<T, std::int16_t>;
}

template <class T, class Arch>
inline std::size_t min_max_simd(const std::byte* in, std::size_t count, T& min, T& max) noexcept {
  using B = simd::batch<T, Arch>;
  constexpr std::size_t n = B::size;
  std::size_t i = 0;
  if (count < n) return 0;
  B lo(std::numeric_limits<T>::max());
  B hi(std::numeric_limits<T>::lowest());
  for (; i + n <= count; i += n) {
    const B v = simd::load_as<T, Arch>(in + i * sizeof(T));
    if constexpr (has_native_min_max<T, Arch>()) {
      lo = xsimd::min(lo, v);
      hi = xsimd::max(hi, v);
    } else {
      lo = simd::select(v < lo, v, lo);
      hi = simd::select(hi < v, v, hi);
    }
  }
  alignas(64) T lo_values[n];
  alignas(64) T hi_values[n];
  lo.store_aligned(lo_values);
  hi.store_aligned(hi_values);
  for (std::size_t k = 0; k < n; ++k) {
    min = lo_values[k] < min ? lo_values[k] : min;
    max = hi_values[k] > max ? hi_values[k] : max;
  }
  return i;
}

// Lane-local narrowing of N registers of Unit-byte values, in place, to
// v[0] of Unit / N-byte values, each a truncation (the low bytes).
template <std::size_t Unit, std::size_t N, class Arch, std::size_t K>
inline void narrow(std::array<simd::bytes<Arch>, K>& v) noexcept {
  if constexpr (N > 1) {
    for (std::size_t k = 0; k < N / 2; ++k) {
      v[k] = simd::pack_low_halves<Unit, Arch>(v[2 * k], v[2 * k + 1]);
    }
    narrow<Unit / 2, N / 2, Arch, K>(v);
  }
}

// Lane-local widening of one register of Unit-byte values (sign- or
// zero-extended) into out[0, K); register k, lane l holds the k-th K-th of
// lane l's values. A value interleaved with itself and shifted right
// arithmetically by its width is its sign extension; there is no 64-bit
// arithmetic shift before AVX-512, so 32-bit values take their sign word from
// a 32-bit shift instead.
template <std::size_t Unit, bool Signed, std::size_t K, class Arch>
inline void widen(const simd::bytes<Arch>& x, simd::bytes<Arch>* out) noexcept {
  if constexpr (K == 1) {
    out[0] = x;
  } else {
    simd::bytes<Arch> lo;
    simd::bytes<Arch> hi;
    if constexpr (!Signed) {
      const simd::bytes<Arch> zero(std::uint8_t{0});
      lo = simd::interleave_lo<Unit, Arch>(x, zero);
      hi = simd::interleave_hi<Unit, Arch>(x, zero);
    } else if constexpr (Unit < 4) {
      using S = std::conditional_t<Unit == 1, std::int16_t, std::int32_t>;
      lo = simd::cast<std::uint8_t>(simd::cast<S>(simd::interleave_lo<Unit, Arch>(x, x)) >> (8 * Unit));
      hi = simd::cast<std::uint8_t>(simd::cast<S>(simd::interleave_hi<Unit, Arch>(x, x)) >> (8 * Unit));
    } else {
      const simd::bytes<Arch> sign = simd::cast<std::uint8_t>(simd::cast<std::int32_t>(x) >> 31);
      lo = simd::interleave_lo<Unit, Arch>(x, sign);
      hi = simd::interleave_hi<Unit, Arch>(x, sign);
    }
    widen<2 * Unit, Signed, K / 2, Arch>(lo, out);
    widen<2 * Unit, Signed, K / 2, Arch>(hi, out + K / 2);
  }
}

// R = sizeof(T) / sizeof(U) registers in, one out. Register k's lane l
// holds input unit R l + k (load_lane_groups), so that each lane narrows a
// contiguous run and the lanes of the result come out in order; decoding
// mirrors it.
template <class T, class U, class Arch>
inline std::size_t encode_simd(const std::byte* in, std::size_t count, T offset, std::byte* out) noexcept {
  constexpr std::size_t R = sizeof(T) / sizeof(U);
  constexpr std::size_t step = simd::width<Arch> / sizeof(U);
  using B = simd::batch<T, Arch>;
  const B off(offset);
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    auto v = simd::load_lane_groups<R, Arch>(in + i * sizeof(T));
    for (auto& x : v) {
      x = simd::cast<std::uint8_t>(simd::cast<T>(x) - off);
    }
    narrow<sizeof(T), R, Arch, R>(v);
    simd::store(out + i * sizeof(U), v[0]);
  }
  return i;
}

template <class T, class U, class Arch>
inline std::size_t decode_simd(const std::byte* in, std::size_t count, T offset, std::byte* out) noexcept {
  constexpr std::size_t R = sizeof(T) / sizeof(U);
  constexpr std::size_t step = simd::width<Arch> / sizeof(U);
  using B = simd::batch<T, Arch>;
  const B off(offset);
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    std::array<simd::bytes<Arch>, R> v;
    widen<sizeof(U), std::is_signed_v<U>, R, Arch>(simd::load<Arch>(in + i * sizeof(U)), v.data());
    for (auto& x : v) {
      x = simd::cast<std::uint8_t>(simd::cast<T>(x) + off);
    }
    simd::store_lane_groups<R, Arch>(out + i * sizeof(T), v);
  }
  return i;
}

template <class T, class U, class Arch>
inline bool encode_as(const std::byte* in, std::size_t count, T offset, std::byte* out) noexcept {
  std::size_t done = 0;
  if constexpr (simd::accelerated<Arch>) {
    done = encode_simd<T, U, Arch>(in, count, offset, out);
  }
  return encode_scalar<T, U, Arch>(in, done, count, offset, out);
}

template <class T, class U, class Arch>
inline bool decode_as(const std::byte* in, std::size_t count, T offset, std::byte* out) noexcept {
  std::size_t done = 0;
  if constexpr (simd::accelerated<Arch>) {
    done = decode_simd<T, U, Arch>(in, count, offset, out);
  }
  return decode_scalar<T, U, Arch>(in, done, count, offset, out);
}

// Calls f.template operator()<U>() for the reduced type of `bits`, or
// returns false for a width TileDB cannot have written.
template <class T, class F>
inline bool with_reduced_type(unsigned bits, F&& f) noexcept {
  switch (bits) {
    case 8: return f.template operator()<bit_width_value_t<T, 8>>();
    case 16:
      if constexpr (sizeof(T) > 2) return f.template operator()<bit_width_value_t<T, 16>>();
      return false;
    case 32:
      if constexpr (sizeof(T) > 4) return f.template operator()<bit_width_value_t<T, 32>>();
      return false;
    default: return false;
  }
}

}  // namespace bit_width_impl

// Min, max and width of `count` little-endian elements of T.
template <bit_width_reducible T, class Arch = void>
inline bit_width_stats<T> bit_width_window_stats_scalar(const std::byte* in, std::size_t count) noexcept {
  T min = std::numeric_limits<T>::max();
  T max = std::numeric_limits<T>::lowest();
  for (std::size_t i = 0; i < count; ++i) {
    const T v = load_le<T>(in + i * sizeof(T));
    min = v < min ? v : min;
    max = v > max ? v : max;
  }
  return bit_width_impl::stats_from_range<T, Arch>(min, max);
}

template <bit_width_reducible T, class Arch = default_arch>
inline bit_width_stats<T> bit_width_window_stats(const std::byte* in, std::size_t count) noexcept {
  T min = std::numeric_limits<T>::max();
  T max = std::numeric_limits<T>::lowest();
  std::size_t i = 0;
  if constexpr (simd::accelerated<Arch>) {
    i = bit_width_impl::min_max_simd<T, Arch>(in, count, min, max);
  }
  for (; i < count; ++i) {
    const T v = load_le<T>(in + i * sizeof(T));
    min = v < min ? v : min;
    max = v > max ? v : max;
  }
  return bit_width_impl::stats_from_range<T, Arch>(min, max);
}

// Writes `count` values reduced to `bits` (count * bits / 8 bytes), or, as
// TileDB does, the count * sizeof(T) input bytes unchanged when
// bits >= 8 * sizeof(T). Returns false, writing nothing, for any other width
// than 8, 16 or 32.
template <bit_width_reducible T, class Arch = void>
inline bool bit_width_encode_scalar(const std::byte* in, std::size_t count, T offset, unsigned bits,
                                    std::byte* out) noexcept {
  if (bits >= 8 * sizeof(T)) {
    copy_bytes(out, in, count * sizeof(T));
    return true;
  }
  return bit_width_impl::with_reduced_type<T>(bits, [&]<class U>() {
    return bit_width_impl::encode_scalar<T, U, Arch>(in, 0, count, offset, out);
  });
}

template <bit_width_reducible T, class Arch = default_arch>
inline bool bit_width_encode(const std::byte* in, std::size_t count, T offset, unsigned bits,
                             std::byte* out) noexcept {
  if (bits >= 8 * sizeof(T)) {
    copy_bytes(out, in, count * sizeof(T));
    return true;
  }
  return bit_width_impl::with_reduced_type<T>(bits, [&]<class U>() {
    return bit_width_impl::encode_as<T, U, Arch>(in, count, offset, out);
  });
}

// Reads `count` values of `bits` bits and writes count elements of T. As in
// TileDB, any bits >= 8 * sizeof(T) means the window was stored raw (the
// count * sizeof(T) bytes are copied). Returns false, writing nothing, for
// any other width than 8, 16 or 32 (TileDB never writes one).
template <bit_width_reducible T, class Arch = void>
inline bool bit_width_decode_scalar(const std::byte* in, std::size_t count, T offset, unsigned bits,
                                    std::byte* out) noexcept {
  if (bits >= 8 * sizeof(T)) {
    copy_bytes(out, in, count * sizeof(T));
    return true;
  }
  return bit_width_impl::with_reduced_type<T>(bits, [&]<class U>() {
    return bit_width_impl::decode_scalar<T, U, Arch>(in, 0, count, offset, out);
  });
}

template <bit_width_reducible T, class Arch = default_arch>
inline bool bit_width_decode(const std::byte* in, std::size_t count, T offset, unsigned bits,
                             std::byte* out) noexcept {
  if (bits >= 8 * sizeof(T)) {
    copy_bytes(out, in, count * sizeof(T));
    return true;
  }
  return bit_width_impl::with_reduced_type<T>(bits, [&]<class U>() {
    return bit_width_impl::decode_as<T, U, Arch>(in, count, offset, out);
  });
}

// Bytes a window of `window_bytes` input bytes occupies once reduced to
// `bits` (its raw size when TileDB stores it raw).
template <bit_width_reducible T>
constexpr std::size_t bit_width_stored_bytes(std::size_t window_bytes, unsigned bits) noexcept {
  if (bits >= 8 * sizeof(T) || window_bytes % sizeof(T) != 0) return window_bytes;
  return window_bytes / sizeof(T) * (bits / 8);
}

// One whole window as TileDB's filter writes it: `stats` receives what the
// window header records (value_offset(), bits); returns the bytes written to
// out (bit_width_stored_bytes). The stats come back through a reference:
// returned by value, GCC assembles the struct through the stack with stores
// narrower than the reloads, which stalls store forwarding once per window.
template <bit_width_reducible T, class Arch = void>
inline std::size_t bit_width_reduce_window_scalar(const std::byte* in, std::size_t window_bytes, std::byte* out,
                                                  bit_width_stats<T>& stats) noexcept {
  const std::size_t count = window_bytes / sizeof(T);
  stats = bit_width_window_stats_scalar<T, Arch>(in, count);
  if (stats.bits >= 8 * sizeof(T) || window_bytes % sizeof(T) != 0) {
    copy_bytes(out, in, window_bytes);
    return window_bytes;
  }
  bit_width_encode_scalar<T, Arch>(in, count, stats.value_offset(), stats.bits, out);
  return count * (stats.bits / 8u);
}

template <bit_width_reducible T, class Arch = default_arch>
inline std::size_t bit_width_reduce_window(const std::byte* in, std::size_t window_bytes, std::byte* out,
                                           bit_width_stats<T>& stats) noexcept {
  const std::size_t count = window_bytes / sizeof(T);
  stats = bit_width_window_stats<T, Arch>(in, count);
  if (stats.bits >= 8 * sizeof(T) || window_bytes % sizeof(T) != 0) {
    copy_bytes(out, in, window_bytes);
    return window_bytes;
  }
  bit_width_encode<T, Arch>(in, count, stats.value_offset(), stats.bits, out);
  return count * (stats.bits / 8u);
}

// One whole window as TileDB's filter reads it, from its header (offset,
// bits, window_bytes): reads bit_width_stored_bytes(window_bytes, bits) bytes
// and writes window_bytes. Returns false, writing nothing, for a width TileDB
// cannot have written.
template <bit_width_reducible T, class Arch = void>
inline bool bit_width_restore_window_scalar(const std::byte* in, std::size_t window_bytes, T offset, unsigned bits,
                                            std::byte* out) noexcept {
  if (bits >= 8 * sizeof(T) || window_bytes % sizeof(T) != 0) {
    copy_bytes(out, in, window_bytes);
    return true;
  }
  return bit_width_decode_scalar<T, Arch>(in, window_bytes / sizeof(T), offset, bits, out);
}

template <bit_width_reducible T, class Arch = default_arch>
inline bool bit_width_restore_window(const std::byte* in, std::size_t window_bytes, T offset, unsigned bits,
                                     std::byte* out) noexcept {
  if (bits >= 8 * sizeof(T) || window_bytes % sizeof(T) != 0) {
    copy_bytes(out, in, window_bytes);
    return true;
  }
  return bit_width_decode<T, Arch>(in, window_bytes / sizeof(T), offset, bits, out);
}

}  // namespace tilefmt::filter::detail

#endif  // TILEFMT_FILTER_DETAIL_BIT_WIDTH_REDUCTION_KERNEL_HPP
