// Bit shuffle (TileDB's BITSHUFFLE filter: c-blosc2's blosc2_bitshuffle /
// blosc2_bitunshuffle, whose layout is kiyo-masui's bitshuffle).
//
// Block layout (bitshuffle_block): with S = type_size, N = n / S elements
// and N' = N - N % 8, the first N' elements are bit-transposed and the last
// n - N' * S bytes copied unchanged. The output holds 8 * S rows of N' / 8
// bytes; row r = 8 * j + b collects bit b of byte j of every element, and
// bit k (least significant = 0) of byte m of that row is bit b of byte j of
// element 8 * m + k.
//
// Part layout (bitshuffle): TileDB first splits every input part at a
// multiple of 8 bytes (bitshuffle_split), records the pieces in its
// metadata, and then runs each piece through bitshuffle(): a piece whose
// length is not a multiple of both 8 and S is copied unchanged, any other is
// processed in consecutive blocks of bitshuffle_block_bytes (the last block
// shorter). Input and output must not overlap; neither needs any alignment.
#ifndef TILEFMT_FILTER_DETAIL_BITSHUFFLE_KERNEL_HPP
#define TILEFMT_FILTER_DETAIL_BITSHUFFLE_KERNEL_HPP

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "tilefmt/filter/detail/simd.hpp"

namespace tilefmt::filter::detail {

// TileDB processes parts in blocks of this many bytes (its
// BSHUF_TARGET_BLOCK_SIZE_B), for compatibility with the bitshuffle library.
inline constexpr std::size_t bitshuffle_block_bytes = 8192;

// How TileDB splits one input part before shuffling: `head` bytes (a
// multiple of 8, kept even when 0) and, when `tail` is non-zero, a second
// part of `tail` bytes. The metadata lists the resulting parts.
struct bitshuffle_split_result {
  std::size_t head;
  std::size_t tail;
};

constexpr bitshuffle_split_result bitshuffle_split(std::size_t part_bytes) noexcept {
  return {part_bytes - part_bytes % 8, part_bytes % 8};
}

namespace bitshuffle_impl {

// Groups [first, last) of 8 elements, one 8x8 bit transpose per group and
// byte position. `row_bytes` = N' / 8.
template <class Arch>
inline void shuffle_groups(const std::byte* in, std::size_t type_size, std::size_t row_bytes,
                           std::byte* out, std::size_t first, std::size_t last) noexcept {
  for (std::size_t g = first; g < last; ++g) {
    for (std::size_t j = 0; j < type_size; ++j) {
      std::uint64_t x = 0;
      for (std::size_t k = 0; k < 8; ++k) {
        x |= std::uint64_t(std::to_integer<std::uint8_t>(in[(8 * g + k) * type_size + j])) << (8 * k);
      }
      x = transpose_bits_8x8(x);
      for (std::size_t b = 0; b < 8; ++b) {
        out[(8 * j + b) * row_bytes + g] = std::byte(static_cast<std::uint8_t>(x >> (8 * b)));
      }
    }
  }
}

template <class Arch>
inline void unshuffle_groups(const std::byte* in, std::size_t type_size, std::size_t row_bytes,
                             std::byte* out, std::size_t first, std::size_t last) noexcept {
  for (std::size_t g = first; g < last; ++g) {
    for (std::size_t j = 0; j < type_size; ++j) {
      std::uint64_t x = 0;
      for (std::size_t b = 0; b < 8; ++b) {
        x |= std::uint64_t(std::to_integer<std::uint8_t>(in[(8 * j + b) * row_bytes + g])) << (8 * b);
      }
      x = transpose_bits_8x8(x);
      for (std::size_t k = 0; k < 8; ++k) {
        out[(8 * g + k) * type_size + j] = std::byte(static_cast<std::uint8_t>(x >> (8 * k)));
      }
    }
  }
}

// Forward, W = register width: per step, W elements are byte-transposed in
// registers (as in byteshuffle) so that register j holds byte j of W
// consecutive elements; the mask of bit b of its bytes is W consecutive
// bits of row 8 j + b (W / 8 bytes, little-endian). Returns the 8-element
// groups done.
template <class Arch, std::size_t... B>
inline void store_bit_rows(const simd::bytes<Arch>& plane, std::byte* row, std::size_t row_bytes,
                           std::index_sequence<B...>) noexcept {
  constexpr std::size_t mask_bytes = simd::width<Arch> / 8;
  const std::uint64_t masks[] = {simd::bit_mask<B, Arch>(plane)...};
  for (std::size_t b = 0; b < 8; ++b) {
    std::memcpy(row + b * row_bytes, &masks[b], mask_bytes);
  }
}

template <std::size_t S, class Arch>
inline std::size_t shuffle_simd(const std::byte* in, std::size_t row_bytes, std::byte* out,
                                std::size_t first) noexcept {
  constexpr std::size_t step = simd::width<Arch>;  // elements per step
  const std::size_t count = row_bytes * 8;
  std::size_t i = 8 * first;
  for (; i + step <= count; i += step) {
    std::array<simd::bytes<Arch>, S> planes;
    if constexpr (S == 1) {
      planes[0] = simd::load<Arch>(in + i);
    } else {
      planes = simd::rotate_left<4, Arch>(simd::load_lane_groups<S, Arch>(in + i * S));
    }
    for (std::size_t j = 0; j < S; ++j) {
      store_bit_rows<Arch>(planes[j], out + 8 * j * row_bytes + i / 8, row_bytes, std::make_index_sequence<8>{});
    }
  }
  return i / 8;
}

// Inverse where a row mask can be spread back over bytes in one instruction
// (AVX-512): per step of W elements, plane j is built from the 8 masks of
// rows 8 j .. 8 j + 7, and the planes are byte-unshuffled into elements.
template <class Arch, std::size_t... B>
inline simd::bytes<Arch> gather_bit_rows(const std::byte* row, std::size_t row_bytes,
                                         std::index_sequence<B...>) noexcept {
  constexpr std::size_t mask_bytes = simd::width<Arch> / 8;
  std::uint64_t masks[] = {((void)B, std::uint64_t{0})...};
  for (std::size_t b = 0; b < 8; ++b) {
    std::memcpy(&masks[b], row + b * row_bytes, mask_bytes);
  }
  simd::bytes<Arch> acc(std::uint8_t{0});
  ((acc = simd::set_bit_where<B, Arch>(acc, masks[B])), ...);
  return acc;
}

template <std::size_t S, class Arch>
inline std::size_t unshuffle_masks_simd(const std::byte* in, std::size_t row_bytes, std::byte* out,
                                        std::size_t first) noexcept {
  constexpr std::size_t step = simd::width<Arch>;  // elements per step
  constexpr int rounds = std::countr_zero(S);
  const std::size_t count = row_bytes * 8;
  std::size_t i = 8 * first;
  for (; i + step <= count; i += step) {
    std::array<simd::bytes<Arch>, S> planes;
    for (std::size_t j = 0; j < S; ++j) {
      planes[j] = gather_bit_rows<Arch>(in + 8 * j * row_bytes + i / 8, row_bytes, std::make_index_sequence<8>{});
    }
    if constexpr (S == 1) {
      simd::store(out + i, planes[0]);
    } else {
      simd::store_lane_groups<S, Arch>(out + i * S, simd::rotate_left<rounds, Arch>(planes));
    }
  }
  return i / 8;
}

template <std::size_t K, class Arch, std::size_t... I>
inline std::array<simd::bytes<Arch>, K> load_strided(const std::byte* p, std::size_t stride,
                                                     std::index_sequence<I...>) noexcept {
  return {{simd::load<Arch>(p + I * stride)...}};
}

// Inverse elsewhere, per step of 8 W elements: for each byte position j, the 8 rows
// give 8 registers of W bytes; three interleave rounds gather each 8-element
// group's 8 row bytes into one 64-bit word, a bit transpose of that word
// yields byte j of the group's 8 elements, and the result lands in plane j of
// a small buffer. The planes are then byte-unshuffled into elements.
template <std::size_t S, class Arch>
inline std::size_t unshuffle_simd(const std::byte* in, std::size_t row_bytes, std::byte* out) noexcept {
  constexpr std::size_t W = simd::width<Arch>;
  constexpr std::size_t step = 8 * W;  // elements per step
  constexpr int rounds = std::countr_zero(S);
  const std::size_t count = row_bytes * 8;
  alignas(64) std::byte planes[S * step];
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    for (std::size_t j = 0; j < S; ++j) {
      const auto rows = simd::rotate_left<3, Arch>(
          load_strided<8, Arch>(in + 8 * j * row_bytes + i / 8, row_bytes, std::make_index_sequence<8>{}));
      // Register k, lane l now holds the words of groups 16 l + 2 k and
      // 16 l + 2 k + 1, i.e. plane bytes [128 l + 16 k, 128 l + 16 k + 16).
      std::array<simd::bytes<Arch>, 8> words;
      for (std::size_t k = 0; k < 8; ++k) {
        words[k] = simd::cast<std::uint8_t>(transpose_bits_8x8(simd::cast<std::uint64_t>(rows[k])));
      }
      simd::store_lane_groups<8, Arch>(S == 1 ? out + i : planes + j * step, words);
    }
    if constexpr (S > 1) {
      for (std::size_t t = 0; t < step; t += W) {
        simd::store_lane_groups<S, Arch>(
            out + (i + t) * S,
            simd::rotate_left<rounds, Arch>(load_strided<S, Arch>(planes + t, step, std::make_index_sequence<S>{})));
      }
    }
  }
  return i / 8;
}

#if TILEFMT_WITH_AVX512VBMI_GFNI
// AVX-512 VBMI + GFNI, forward, per step of 64 T elements in two passes
// over a small buffer. Pass 1, per 64 elements: log2(S) VPERMT2B rounds
// gather byte j of each element into register j, each 8-element group's
// bytes in one word (reversed), and one GF2P8AFFINEQB per register
// bit-transposes every word: word q then holds the 8 row bytes (b = 0..7)
// of group q. Pass 2, per byte position j: log2(T) rounds turn the T
// registers [group][b] into T registers of 8 / T rows, [b][group], each row
// 8 T bytes. T = 4 (two 32-byte rows per register) measured fastest on
// Zen 4: T = 8 costs a third round per register, T = 2 four 16-byte stores.
// Returns the groups done.
template <std::size_t S, unsigned T = 4>
inline std::size_t shuffle_gfni(const std::byte* in, std::size_t row_bytes, std::byte* out) noexcept {
  namespace v = simd::vbmi;
  constexpr std::size_t step = 64 * T;  // elements per step
  const std::size_t count = row_bytes * 8;
  alignas(64) std::byte words[S * T * 64];  // [j][t]: the words of 64 elements t of plane j
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    for (std::size_t t = 0; t < T; ++t) {
      v::regs<S> x;
      for (std::size_t m = 0; m < S; ++m) x[m] = v::load(in + (i + 64 * t) * S + 64 * m);
      const v::regs<S> planes = v::to_planes<S, true>(x);
      for (std::size_t j = 0; j < S; ++j) v::store(words + (T * j + t) * 64, v::transpose_bits_reversed(planes[j]));
    }
    for (std::size_t j = 0; j < S; ++j) {
      v::regs<T> w;
      for (std::size_t t = 0; t < T; ++t) w[t] = v::load(words + (T * j + t) * 64);
      const v::regs<T> rows = v::to_rows<T>(w);
      for (std::size_t r = 0; r < T; ++r) {
        v::store_rows<T>(out + (8 * j + r * 8 / T) * row_bytes + i / 8, row_bytes, rows[r]);
      }
    }
  }
  return i / 8;
}

// The inverse: per byte position j, 8 T bytes of each of its 8 rows,
// log2(T) rounds to [group][b] (b reversed in each word), the bit
// transpose, and the result, byte j of 64 T elements, in a buffer; then per
// 64 elements log2(S) rounds put the planes back into memory order.
template <std::size_t S, unsigned T = 4>
inline std::size_t unshuffle_gfni(const std::byte* in, std::size_t row_bytes, std::byte* out) noexcept {
  namespace v = simd::vbmi;
  constexpr std::size_t step = 64 * T;  // elements per step
  const std::size_t count = row_bytes * 8;
  alignas(64) std::byte planes[T * S * 64];  // [t][j]: byte j of 64 elements t
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    for (std::size_t j = 0; j < S; ++j) {
      v::regs<T> r;
      for (std::size_t k = 0; k < T; ++k) r[k] = v::load_rows<T>(in + (8 * j + k * 8 / T) * row_bytes + i / 8, row_bytes);
      const v::regs<T> words = v::from_rows<T, true>(r);
      for (std::size_t t = 0; t < T; ++t) v::store(planes + (S * t + j) * 64, v::transpose_bits_reversed(words[t]));
    }
    for (std::size_t t = 0; t < T; ++t) {
      v::regs<S> x;
      for (std::size_t j = 0; j < S; ++j) x[j] = v::load(planes + (S * t + j) * 64);
      const v::regs<S> elements = v::from_planes<S>(x);
      for (std::size_t m = 0; m < S; ++m) v::store(out + (i + 64 * t) * S + 64 * m, elements[m]);
    }
  }
  return i / 8;
}
#endif

}  // namespace bitshuffle_impl

// Scalar reference: the layout above, one bit at a time.
template <class Arch = void>
inline void bitshuffle_block_scalar(const std::byte* in, std::size_t n, std::size_t type_size,
                                    std::byte* out) noexcept {
  if (type_size == 0) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  const std::size_t shuffled = count - count % 8;
  const std::size_t row_bytes = shuffled / 8;
  for (std::size_t j = 0; j < type_size; ++j) {
    for (unsigned b = 0; b < 8; ++b) {
      for (std::size_t m = 0; m < row_bytes; ++m) {
        unsigned byte = 0;
        for (unsigned k = 0; k < 8; ++k) {
          const unsigned src = std::to_integer<unsigned>(in[(8 * m + k) * type_size + j]);
          byte |= ((src >> b) & 1u) << k;
        }
        out[(8 * j + b) * row_bytes + m] = std::byte(static_cast<std::uint8_t>(byte));
      }
    }
  }
  copy_bytes(out + shuffled * type_size, in + shuffled * type_size, n - shuffled * type_size);
}

template <class Arch = void>
inline void bitunshuffle_block_scalar(const std::byte* in, std::size_t n, std::size_t type_size,
                                      std::byte* out) noexcept {
  if (type_size == 0) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  const std::size_t shuffled = count - count % 8;
  const std::size_t row_bytes = shuffled / 8;
  for (std::size_t i = 0; i < shuffled; ++i) {
    for (std::size_t j = 0; j < type_size; ++j) {
      unsigned byte = 0;
      for (unsigned b = 0; b < 8; ++b) {
        const unsigned src = std::to_integer<unsigned>(in[(8 * j + b) * row_bytes + i / 8]);
        byte |= ((src >> (i % 8)) & 1u) << b;
      }
      out[i * type_size + j] = std::byte(static_cast<std::uint8_t>(byte));
    }
  }
  copy_bytes(out + shuffled * type_size, in + shuffled * type_size, n - shuffled * type_size);
}

// One block (blosc2_bitshuffle with blocksize n). SIMD for type sizes 1, 2, 4
// and 8 (all TileDB uses); 8x8 word transposes otherwise. With VBMI + GFNI,
// steps of 512 elements first, then the AVX-512BW code for what is left.
template <class Arch = default_arch>
inline void bitshuffle_block(const std::byte* in, std::size_t n, std::size_t type_size,
                             std::byte* out) noexcept {
  if (type_size == 0) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  const std::size_t shuffled = count - count % 8;
  const std::size_t row_bytes = shuffled / 8;
  std::size_t done = 0;
#if TILEFMT_WITH_AVX512VBMI_GFNI
  if constexpr (simd::has_vbmi_gfni<Arch>) {
    switch (type_size) {
      case 1: done = bitshuffle_impl::shuffle_gfni<1>(in, row_bytes, out); break;
      case 2: done = bitshuffle_impl::shuffle_gfni<2>(in, row_bytes, out); break;
      case 4: done = bitshuffle_impl::shuffle_gfni<4>(in, row_bytes, out); break;
      case 8: done = bitshuffle_impl::shuffle_gfni<8>(in, row_bytes, out); break;
      default: break;
    }
  }
#endif
  if constexpr (simd::accelerated<Arch>) {
    switch (type_size) {
      case 1: done = bitshuffle_impl::shuffle_simd<1, Arch>(in, row_bytes, out, done); break;
      case 2: done = bitshuffle_impl::shuffle_simd<2, Arch>(in, row_bytes, out, done); break;
      case 4: done = bitshuffle_impl::shuffle_simd<4, Arch>(in, row_bytes, out, done); break;
      case 8: done = bitshuffle_impl::shuffle_simd<8, Arch>(in, row_bytes, out, done); break;
      default: break;
    }
  }
  bitshuffle_impl::shuffle_groups<Arch>(in, type_size, row_bytes, out, done, row_bytes);
  copy_bytes(out + shuffled * type_size, in + shuffled * type_size, n - shuffled * type_size);
}

template <class Arch = default_arch>
inline void bitunshuffle_block(const std::byte* in, std::size_t n, std::size_t type_size,
                               std::byte* out) noexcept {
  if (type_size == 0) {
    copy_bytes(out, in, n);
    return;
  }
  const std::size_t count = n / type_size;
  const std::size_t shuffled = count - count % 8;
  const std::size_t row_bytes = shuffled / 8;
  std::size_t done = 0;
#if TILEFMT_WITH_AVX512VBMI_GFNI
  if constexpr (simd::has_vbmi_gfni<Arch>) {
    switch (type_size) {
      case 1: done = bitshuffle_impl::unshuffle_gfni<1>(in, row_bytes, out); break;
      case 2: done = bitshuffle_impl::unshuffle_gfni<2>(in, row_bytes, out); break;
      case 4: done = bitshuffle_impl::unshuffle_gfni<4>(in, row_bytes, out); break;
      case 8: done = bitshuffle_impl::unshuffle_gfni<8>(in, row_bytes, out); break;
      default: break;
    }
  }
#endif
  if constexpr (simd::has_set_bit_where<Arch>) {
    switch (type_size) {
      case 1: done = bitshuffle_impl::unshuffle_masks_simd<1, Arch>(in, row_bytes, out, done); break;
      case 2: done = bitshuffle_impl::unshuffle_masks_simd<2, Arch>(in, row_bytes, out, done); break;
      case 4: done = bitshuffle_impl::unshuffle_masks_simd<4, Arch>(in, row_bytes, out, done); break;
      case 8: done = bitshuffle_impl::unshuffle_masks_simd<8, Arch>(in, row_bytes, out, done); break;
      default: break;
    }
  } else if constexpr (simd::accelerated<Arch>) {
    switch (type_size) {
      case 1: done = bitshuffle_impl::unshuffle_simd<1, Arch>(in, row_bytes, out); break;
      case 2: done = bitshuffle_impl::unshuffle_simd<2, Arch>(in, row_bytes, out); break;
      case 4: done = bitshuffle_impl::unshuffle_simd<4, Arch>(in, row_bytes, out); break;
      case 8: done = bitshuffle_impl::unshuffle_simd<8, Arch>(in, row_bytes, out); break;
      default: break;
    }
  }
  bitshuffle_impl::unshuffle_groups<Arch>(in, type_size, row_bytes, out, done, row_bytes);
  copy_bytes(out + shuffled * type_size, in + shuffled * type_size, n - shuffled * type_size);
}

// One part after bitshuffle_split, as TileDB's BitshuffleFilter treats it.
template <class Arch = default_arch>
inline void bitshuffle(const std::byte* in, std::size_t n, std::size_t type_size, std::byte* out) noexcept {
  if (type_size == 0 || n % 8 != 0 || n % type_size != 0) {
    copy_bytes(out, in, n);
    return;
  }
  for (std::size_t off = 0; off < n; off += bitshuffle_block_bytes) {
    bitshuffle_block<Arch>(in + off, std::min(bitshuffle_block_bytes, n - off), type_size, out + off);
  }
}

template <class Arch = default_arch>
inline void bitunshuffle(const std::byte* in, std::size_t n, std::size_t type_size, std::byte* out) noexcept {
  if (type_size == 0 || n % 8 != 0 || n % type_size != 0) {
    copy_bytes(out, in, n);
    return;
  }
  for (std::size_t off = 0; off < n; off += bitshuffle_block_bytes) {
    bitunshuffle_block<Arch>(in + off, std::min(bitshuffle_block_bytes, n - off), type_size, out + off);
  }
}

}  // namespace tilefmt::filter::detail

#endif  // TILEFMT_FILTER_DETAIL_BITSHUFFLE_KERNEL_HPP
