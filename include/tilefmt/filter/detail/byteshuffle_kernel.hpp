// Byte shuffle (TileDB's BYTESHUFFLE filter, which calls c-blosc2's
// blosc2_shuffle / blosc2_unshuffle on each part as one block).
//
// With S = type_size and N = n / S elements, byte j of element i moves to
// out[j * N + i]: all first bytes, then all second bytes, and so on. The
// n % S trailing bytes are copied unchanged after them. S = 1 is a copy.
// Input and output must not overlap; neither needs any alignment.
//
// byteunshuffle_elements restores some of the elements only: byte j of
// element i is at in[j * N + i] whatever else is wanted, so a reader that
// needs part of a chunk writes that part where it goes, with no buffer for
// the rest.
#ifndef TILEFMT_FILTER_DETAIL_BYTESHUFFLE_KERNEL_HPP
#define TILEFMT_FILTER_DETAIL_BYTESHUFFLE_KERNEL_HPP

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "tilefmt/filter/detail/simd.hpp"

namespace tilefmt::filter::detail {

namespace byteshuffle_impl {

// Elements [first, count) of the shuffle, one byte at a time.
template <class Arch>
inline void shuffle_range(const std::byte* in, std::size_t count, std::size_t type_size,
                          std::byte* out, std::size_t first) noexcept {
  for (std::size_t j = 0; j < type_size; ++j) {
    std::byte* row = out + j * count;
    for (std::size_t i = first; i < count; ++i) {
      row[i] = in[i * type_size + j];
    }
  }
}

template <class Arch>
inline void unshuffle_range(const std::byte* in, std::size_t count, std::size_t type_size,
                            std::byte* out, std::size_t first, std::size_t last) noexcept {
  for (std::size_t i = first; i < last; ++i) {
    for (std::size_t j = 0; j < type_size; ++j) {
      out[i * type_size + j] = in[j * count + i];
    }
  }
}

// Steps the shuffle makes before it stores any, so that each row's cache
// line is written whole at once. A chunk's rows lie `count` bytes apart, a
// multiple of 4 KiB for 64 KiB chunks, so their lines all fall in one set of
// the L1 cache; with 8 or more rows and the input, the set holds fewer lines
// than are in use, and a line written a register at a time is evicted
// between its parts and fetched again (float64 with AVX2 in cache: 0.45x ->
// 0.73x memcpy, docs/performance.md). With fewer rows they fit; 16 rows
// would want it too, but that case is not measured.
template <std::size_t S, class Arch>
inline constexpr std::size_t whole_lines = S == 8 && simd::width<Arch> < 64 ? 64 / simd::width<Arch> : 1;

// Each lane takes 16 consecutive elements (16 * S bytes, one unit from each
// of S registers) and four interleave rounds turn them into 16 bytes of each
// row. The lanes of one register hold consecutive groups of 16 elements, so
// each row is stored with one full-width store; U steps are made before any
// is stored. From element i on, as far as whole groups of U steps go;
// returns where they stopped.
template <std::size_t S, std::size_t U, class Arch>
inline std::size_t shuffle_steps(const std::byte* in, std::size_t count, std::byte* out, std::size_t i) noexcept {
  constexpr std::size_t step = 16 * simd::lanes<Arch>;
  for (; i + U * step <= count; i += U * step) {
    std::array<std::array<simd::bytes<Arch>, S>, U> rows;
    for (std::size_t u = 0; u < U; ++u)
      rows[u] = simd::rotate_left<4, Arch>(simd::load_lane_groups<S, Arch>(in + (i + u * step) * S));
    for (std::size_t j = 0; j < S; ++j)
      for (std::size_t u = 0; u < U; ++u) simd::store(out + j * count + i + u * step, rows[u][j]);
  }
  return i;
}

// The shuffle a whole_lines group of steps at a time, then a step at a
// time. Returns the elements done.
template <std::size_t S, class Arch>
inline std::size_t shuffle_simd(const std::byte* in, std::size_t count, std::byte* out) noexcept {
  const std::size_t i = shuffle_steps<S, whole_lines<S, Arch>, Arch>(in, count, out, 0);
  return shuffle_steps<S, 1, Arch>(in, count, out, i);
}

template <std::size_t S, class Arch, std::size_t... J>
inline std::array<simd::bytes<Arch>, S> load_rows(const std::byte* in, std::size_t count,
                                                  std::size_t i, std::index_sequence<J...>) noexcept {
  return {{simd::load<Arch>(in + J * count + i)...}};
}

template <std::size_t S, class Arch, std::size_t... J>
inline std::array<simd::bytes<Arch>, S> load_dealt_rows(const std::byte* in, std::size_t count,
                                                        std::size_t i, std::index_sequence<J...>) noexcept {
  return {{simd::deal_units<16 / S, Arch>(simd::load<Arch>(in + J * count + i))...}};
}

// The inverse: one full register from each row, log2(S) rounds, and lane l of
// register k holds bytes [16 k, 16 k + 16) of the l-th group of 16 elements.
// With AVX-512 and S <= 8 each row is first dealt to the lanes in units of
// 16 / S bytes instead, so that lane l gathers elements whose bytes end in
// lane l of consecutive output registers: one permute per row replaces the
// two rounds of lane transposes before the stores (S = 8 in cache: 0.78x ->
// 0.9x memcpy on Zen 4, docs/performance.md, "Filters and kernels").
// (Reading whole_lines steps of each row back to back, as the shuffle
// writes them, gained nothing with AVX2 and lost 17% with SSE2, whose 16
// registers cannot hold them.)
// Elements from `first` on, as far as whole steps go; returns where they
// stopped. Rows lie `count` bytes apart; elements [first, last) are
// restored, last <= count. Stream: non-temporal stores, out + first * S
// aligned to simd::stream_alignment<Arch> (each step keeps it so).
template <std::size_t S, class Arch, bool Stream = false>
inline std::size_t unshuffle_simd(const std::byte* in, std::size_t count, std::byte* out, std::size_t first,
                                  std::size_t last) noexcept {
  constexpr std::size_t step = 16 * simd::lanes<Arch>;
  constexpr int rounds = std::countr_zero(S);
  std::size_t i = first;
  if constexpr (simd::has_deal_units<Arch> && S <= 8) {
    for (; i + step <= last; i += step) {
      const auto x = simd::rotate_left<rounds, Arch>(
          load_dealt_rows<S, Arch>(in, count, i, std::make_index_sequence<S>{}));
      for (std::size_t k = 0; k < S; ++k) {
        simd::put<Stream>(out + i * S + k * simd::width<Arch>, x[k]);
      }
    }
  } else {
    for (; i + step <= last; i += step) {
      simd::store_lane_groups<S, Arch, Stream>(
          out + i * S,
          simd::rotate_left<rounds, Arch>(load_rows<S, Arch>(in, count, i, std::make_index_sequence<S>{})));
    }
  }
  return i;
}

#if TILEFMT_WITH_AVX512VBMI_GFNI
// With VBMI, per 64 elements: log2(S) VPERMT2B rounds from memory order to
// one register per row (and back), each round one permute per register,
// where the in-lane interleaves above need four rounds plus the lane moves.
template <std::size_t S>
inline std::size_t shuffle_vbmi(const std::byte* in, std::size_t count, std::byte* out) noexcept {
  namespace v = simd::vbmi;
  std::size_t i = 0;
  for (; i + 64 <= count; i += 64) {
    v::regs<S> x;
    for (std::size_t m = 0; m < S; ++m) x[m] = v::load(in + i * S + 64 * m);
    const v::regs<S> rows = v::to_planes<S, false>(x);
    for (std::size_t j = 0; j < S; ++j) v::store(out + j * count + i, rows[j]);
  }
  return i;
}

template <std::size_t S, bool Stream = false>
inline std::size_t unshuffle_vbmi(const std::byte* in, std::size_t count, std::byte* out, std::size_t first,
                                  std::size_t last) noexcept {
  namespace v = simd::vbmi;
  std::size_t i = first;
  for (; i + 64 <= last; i += 64) {
    v::regs<S> x;
    for (std::size_t j = 0; j < S; ++j) x[j] = v::load(in + j * count + i);
    const v::regs<S> elements = v::from_planes<S>(x);
    for (std::size_t m = 0; m < S; ++m) {
      if constexpr (Stream) _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i * S + 64 * m), elements[m]);
      else v::store(out + i * S + 64 * m, elements[m]);
    }
  }
  return i;
}
#endif

}  // namespace byteshuffle_impl

// Scalar reference.
template <class Arch = void>
inline void byteshuffle_scalar(const std::byte* in, std::size_t n, std::size_t type_size,
                               std::byte* out) noexcept {
  if (type_size <= 1) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  byteshuffle_impl::shuffle_range<Arch>(in, count, type_size, out, 0);
  copy_bytes(out + count * type_size, in + count * type_size, n - count * type_size);
}

template <class Arch = void>
inline void byteunshuffle_scalar(const std::byte* in, std::size_t n, std::size_t type_size,
                                 std::byte* out) noexcept {
  if (type_size <= 1) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  byteshuffle_impl::unshuffle_range<Arch>(in, count, type_size, out, 0, count);
  copy_bytes(out + count * type_size, in + count * type_size, n - count * type_size);
}

// SIMD for type sizes 2, 4, 8 and 16; other sizes use the scalar loop.
template <class Arch = default_arch>
inline void byteshuffle(const std::byte* in, std::size_t n, std::size_t type_size,
                        std::byte* out) noexcept {
  if (type_size <= 1) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  std::size_t done = 0;
#if TILEFMT_WITH_AVX512VBMI_GFNI
  // 4-byte elements take the interleaves below: on Zen 4 they beat the
  // permutes by 10% (docs/performance.md, "Filters and kernels").
  if constexpr (simd::has_vbmi_gfni<Arch>) {
    switch (type_size) {
      case 2: done = byteshuffle_impl::shuffle_vbmi<2>(in, count, out); break;
      case 4: done = byteshuffle_impl::shuffle_simd<4, Arch>(in, count, out); break;
      case 8: done = byteshuffle_impl::shuffle_vbmi<8>(in, count, out); break;
      case 16: done = byteshuffle_impl::shuffle_vbmi<16>(in, count, out); break;
      default: break;
    }
  } else
#endif
  if constexpr (simd::accelerated<Arch>) {
    switch (type_size) {
      case 2: done = byteshuffle_impl::shuffle_simd<2, Arch>(in, count, out); break;
      case 4: done = byteshuffle_impl::shuffle_simd<4, Arch>(in, count, out); break;
      case 8: done = byteshuffle_impl::shuffle_simd<8, Arch>(in, count, out); break;
      case 16: done = byteshuffle_impl::shuffle_simd<16, Arch>(in, count, out); break;
      default: break;
    }
  }
  byteshuffle_impl::shuffle_range<Arch>(in, count, type_size, out, done);
  copy_bytes(out + count * type_size, in + count * type_size, n - count * type_size);
}

namespace byteshuffle_impl {

// The SIMD part of byteunshuffle over elements [first, last) of rows
// `count` bytes apart; returns where it stopped (`first` where there is no
// kernel for the type size).
template <class Arch, bool Stream>
inline std::size_t unshuffle_kernel(const std::byte* in, std::size_t count, std::size_t type_size,
                                    std::byte* out, std::size_t first, std::size_t last) noexcept {
#if TILEFMT_WITH_AVX512VBMI_GFNI
  // 4- and 8-byte elements take the interleaves below: on Zen 4 they beat
  // the permutes by 5% and 30% (docs/performance.md, "Filters and
  // kernels"), the permutes' two sources costing more there than the
  // interleaves' extra round.
  if constexpr (simd::has_vbmi_gfni<Arch>) {
    switch (type_size) {
      case 2: return unshuffle_vbmi<2, Stream>(in, count, out, first, last);
      case 4: return unshuffle_simd<4, Arch, Stream>(in, count, out, first, last);
      case 8: return unshuffle_simd<8, Arch, Stream>(in, count, out, first, last);
      case 16: return unshuffle_vbmi<16, Stream>(in, count, out, first, last);
      default: return first;
    }
  } else
#endif
  if constexpr (simd::accelerated<Arch>) {
    switch (type_size) {
      case 2: return unshuffle_simd<2, Arch, Stream>(in, count, out, first, last);
      case 4: return unshuffle_simd<4, Arch, Stream>(in, count, out, first, last);
      case 8: return unshuffle_simd<8, Arch, Stream>(in, count, out, first, last);
      case 16: return unshuffle_simd<16, Arch, Stream>(in, count, out, first, last);
      default: return first;
    }
  }
  return first;
}

}  // namespace byteshuffle_impl

template <class Arch = default_arch>
inline void byteunshuffle(const std::byte* in, std::size_t n, std::size_t type_size,
                          std::byte* out) noexcept {
  if (type_size <= 1) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  const std::size_t done = byteshuffle_impl::unshuffle_kernel<Arch, false>(in, count, type_size, out, 0, count);
  byteshuffle_impl::unshuffle_range<Arch>(in, count, type_size, out, done, count);
  copy_bytes(out + count * type_size, in + count * type_size, n - count * type_size);
}

// Elements [first, first + len) of the byteunshuffle of `n` shuffled bytes,
// written to out[0, len * type_size): the whole output's bytes
// [first * type_size, (first + len) * type_size). first + len must not
// exceed n / type_size (the trailing bytes are not elements).
template <class Arch = default_arch>
inline void byteunshuffle_elements(const std::byte* in, std::size_t n, std::size_t type_size, std::size_t first,
                                   std::size_t len, std::byte* out) noexcept {
  if (type_size <= 1) {
    copy_bytes(out, in + first, len);
    return;
  }
  // Element first + i of the rows is element i of the rows from in + first.
  const std::size_t count = n / type_size;
  const std::size_t done = byteshuffle_impl::unshuffle_kernel<Arch, false>(in + first, count, type_size, out, 0, len);
  byteshuffle_impl::unshuffle_range<Arch>(in + first, count, type_size, out, done, len);
}

template <class Arch = void>
inline void byteunshuffle_elements_scalar(const std::byte* in, std::size_t n, std::size_t type_size,
                                          std::size_t first, std::size_t len, std::byte* out) noexcept {
  if (type_size <= 1) {
    copy_bytes(out, in + first, len);
    return;
  }
  byteshuffle_impl::unshuffle_range<Arch>(in + first, n / type_size, type_size, out, 0, len);
}

// byteunshuffle with the output written around the caches (non-temporal
// stores, then a store fence), for output that goes straight into a result
// larger than the caches: the stores skip reading each line before writing
// it, which in a stream of 64 KiB chunks is a third of the memory traffic.
// In cache it is slower (the caller's next read of the output goes to
// memory). Where the output cannot be aligned for such stores (out not a
// multiple of the type size), or there is no kernel, it is byteunshuffle.
template <class Arch = default_arch>
inline void byteunshuffle_stream(const std::byte* in, std::size_t n, std::size_t type_size,
                                 std::byte* out) noexcept {
  if constexpr (simd::accelerated<Arch>) {
    const std::size_t s = type_size;
    const auto addr = reinterpret_cast<std::uintptr_t>(out);
    constexpr std::size_t align = simd::stream_alignment<Arch>;
    if ((s == 2 || s == 4 || s == 8 || s == 16) && addr % s == 0 && n >= 4 * align * s) {
      const std::size_t count = n / s;
      // The first elements, one at a time, up to where the output is aligned.
      const std::size_t head = ((align - addr % align) % align) / s;
      byteshuffle_impl::unshuffle_range<Arch>(in, count, s, out, 0, head);
      const std::size_t done = byteshuffle_impl::unshuffle_kernel<Arch, true>(in, count, s, out, head, count);
      simd::stream_fence<Arch>();
      byteshuffle_impl::unshuffle_range<Arch>(in, count, s, out, done, count);
      copy_bytes(out + count * s, in + count * s, n - count * s);
      return;
    }
  }
  byteunshuffle<Arch>(in, n, type_size, out);
}

}  // namespace tilefmt::filter::detail

#endif  // TILEFMT_FILTER_DETAIL_BYTESHUFFLE_KERNEL_HPP
