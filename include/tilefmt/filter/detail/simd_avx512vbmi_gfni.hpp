// The AVX-512 VBMI + GFNI level (Ice Lake, Zen 4 and later): the
// architecture tag, and the two operations its kernels are built from.
//
// - Any byte rearrangement of a set of 64-byte registers, done as rounds of
//   VPERMT2B (each output register takes any 64 of the 128 bytes of two
//   input registers). The rounds are computed at compile time from two
//   layouts, "which byte sits in slot s of register r", before and after.
// - The 8x8 bit transpose of every 64-bit word of a register, which is one
//   GF2P8AFFINEQB: with the word as the matrix operand and byte m of the
//   vector operand = 1 << m, bit i of result byte m is bit m of word byte
//   7 - i. The kernels store the word's bytes reversed to get a transpose.
//
// xsimd 8 knows neither VBMI nor GFNI (later releases know VBMI, none GFNI),
// so `avx512vbmi_gfni` is declared here as an xsimd architecture derived
// from avx512bw: every xsimd operation and every avx512bw kernel of tilefmt
// works on it unchanged, and the kernels that gain from the two instruction
// sets test `has_vbmi_gfni<Arch>` and use the raw intrinsics below, for
// which xsimd has no equivalent.
//
// The architecture is `supported()` only in a translation unit compiled with
// AVX-512 F/CD/DQ/BW, VBMI and GFNI (the dispatch component's
// kernels_avx512vbmi_gfni.cpp, or a program built with -march=icelake-server,
// -march=znver4 or -march=native on such a CPU).
#ifndef TILEFMT_FILTER_DETAIL_SIMD_AVX512VBMI_GFNI_HPP
#define TILEFMT_FILTER_DETAIL_SIMD_AVX512VBMI_GFNI_HPP

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>

#if defined(XSIMD_WITH_AVX512BW) && XSIMD_WITH_AVX512BW && defined(__AVX512VBMI__) && defined(__GFNI__)
#define TILEFMT_WITH_AVX512VBMI_GFNI 1
#else
#define TILEFMT_WITH_AVX512VBMI_GFNI 0
#endif

namespace tilefmt::filter::detail::simd {

#if defined(XSIMD_WITH_AVX512BW)
struct avx512vbmi_gfni : xsimd::avx512bw {
  static constexpr bool supported() noexcept { return TILEFMT_WITH_AVX512VBMI_GFNI != 0; }
  static constexpr bool available() noexcept { return true; }
  static constexpr unsigned version() noexcept { return xsimd::avx512bw::version() + 1; }
  static constexpr char const* name() noexcept { return "avx512vbmi_gfni"; }
};
#endif

}  // namespace tilefmt::filter::detail::simd

#if defined(XSIMD_WITH_AVX512BW) && XSIMD_WITH_AVX512BW
// Its batches are avx512bw's, as for xsimd's own architectures.
namespace xsimd::types {
template <class T>
struct get_bool_simd_register<T, ::tilefmt::filter::detail::simd::avx512vbmi_gfni> {
  using type = simd_avx512_bool_register<T>;
};
XSIMD_DECLARE_SIMD_REGISTER_ALIAS(::tilefmt::filter::detail::simd::avx512vbmi_gfni, avx512bw);
}  // namespace xsimd::types
#endif

namespace tilefmt::filter::detail::simd {

// True when Arch may use VPERMT2B and GF2P8AFFINEQB.
template <class Arch>
constexpr bool vbmi_gfni_of() noexcept {
#if TILEFMT_WITH_AVX512VBMI_GFNI
  if constexpr (!std::is_void_v<Arch>) {
    return std::is_base_of_v<avx512vbmi_gfni, Arch> && Arch::supported();
  }
#endif
  return false;
}

template <class Arch>
inline constexpr bool has_vbmi_gfni = vbmi_gfni_of<Arch>();

// ---------------------------------------------------------------------------
// Permutation networks, computed at compile time. A layout maps (register,
// slot) to the identity of the byte held there, an integer below
// 64 * registers; two layouts give the round that turns one into the other,
// provided each output register draws from at most two input registers.

struct permute2 {
  unsigned a = 0;  // first source register (index bit 6 clear)
  unsigned b = 0;  // second source register (index bit 6 set)
  std::array<std::uint8_t, 64> index{};
};

template <std::size_t Regs>
using permute_round = std::array<permute2, Regs>;

template <std::size_t Regs, class From, class To>
constexpr permute_round<Regs> make_round(From from, To to) {
  std::array<unsigned, Regs * 64> where{};  // byte identity -> 64 * register + slot in `from`
  for (unsigned r = 0; r < Regs; ++r) {
    for (unsigned s = 0; s < 64; ++s) where[from(r, s)] = 64 * r + s;
  }
  permute_round<Regs> round{};
  for (unsigned o = 0; o < Regs; ++o) {
    permute2& p = round[o];
    p.a = where[to(o, 0)] / 64;
    p.b = p.a;
    for (unsigned s = 0; s < 64; ++s) {
      if (where[to(o, s)] / 64 != p.a) p.b = where[to(o, s)] / 64;
    }
    for (unsigned s = 0; s < 64; ++s) {
      const unsigned w = where[to(o, s)];
      // A third source cannot be expressed: make the table fail to compile.
      if (w / 64 != p.a && w / 64 != p.b) throw "a permute round needs more than two sources";
      p.index[s] = static_cast<std::uint8_t>((w / 64 == p.a ? 0 : 64) + w % 64);
    }
  }
  return round;
}

// The byte transpose of 64 elements of S bytes (S = 1, 2, 4, 8, 16) in
// log2(S) rounds. Byte identity e * S + j: byte j of element e. Level 0 is
// memory order (register m holds elements 64 m / S onwards); level L =
// log2(S) holds byte j of all 64 elements in register j. At level l each
// register holds S >> l byte positions of 64 / (S >> l) elements, so every
// round halves the byte positions and doubles the elements, taking two
// registers. With `reversed`, level L stores the 8 bytes of each 64-bit
// word in reverse order (the order GF2P8AFFINEQB transposes).
template <std::size_t S>
constexpr unsigned planes_layout(unsigned level, bool reversed, unsigned reg, unsigned slot) {
  const unsigned nj = static_cast<unsigned>(S) >> level;  // byte positions per register
  const unsigned ne = 64 / nj;                            // elements per register
  const unsigned eg = reg % nj, jg = reg / nj;            // element group, byte group
  unsigned e = slot / nj;
  if (reversed) e ^= 7;
  return static_cast<unsigned>((eg * ne + e) * S + jg * nj + slot % nj);
}

template <std::size_t S>
inline constexpr unsigned planes_levels = static_cast<unsigned>(std::countr_zero(S));

// Round R (1-based) from memory order towards planes, and back.
template <std::size_t S, unsigned R, bool Reversed>
inline constexpr permute_round<S> to_planes_round = make_round<S>(
    [](unsigned reg, unsigned slot) { return planes_layout<S>(R - 1, false, reg, slot); },
    [](unsigned reg, unsigned slot) { return planes_layout<S>(R, Reversed && R == planes_levels<S>, reg, slot); });

template <std::size_t S, unsigned R>
inline constexpr permute_round<S> from_planes_round = make_round<S>(
    [](unsigned reg, unsigned slot) { return planes_layout<S>(R, false, reg, slot); },
    [](unsigned reg, unsigned slot) { return planes_layout<S>(R - 1, false, reg, slot); });

// One-byte elements need no round, only the reversal of each word.
inline constexpr permute_round<1> reverse_words_round =
    make_round<1>([](unsigned reg, unsigned slot) { return planes_layout<1>(0, false, reg, slot); },
                  [](unsigned reg, unsigned slot) { return planes_layout<1>(0, true, reg, slot); });

// The transpose of T = 2, 4 or 8 registers (4 or 8 in the kernels) of 8 x 8 bytes: byte identity
// (8 t + q) * 8 + b for register t < T, word q, byte b. Level 0 holds [q][b]
// in register t (b reversed with `reversed`); level log2(T) holds in
// register r the rows b = r 8 / T onwards, 8 / T of them, each [t][q]; level
// l between holds 8 >> l values of b by 1 << l values of t per register.
template <unsigned T>
constexpr unsigned rows_layout(unsigned level, bool reversed, unsigned reg, unsigned slot) {
  unsigned t, q, b;
  if (level == 0) {
    t = reg;
    q = slot / 8;
    b = reversed ? 7 - slot % 8 : slot % 8;
  } else {
    const unsigned nb = 8u >> level, nt = 1u << level;
    const unsigned tg = reg % (T >> level), bg = reg / (T >> level);
    b = bg * nb + slot / (8 * nt);
    t = tg * nt + (slot / 8) % nt;
    q = slot % 8;
  }
  return (8 * t + q) * 8 + b;
}

template <unsigned T>
inline constexpr unsigned rows_levels = static_cast<unsigned>(std::countr_zero(T));

template <unsigned T, unsigned R>
inline constexpr permute_round<T> to_rows_round =
    make_round<T>([](unsigned reg, unsigned slot) { return rows_layout<T>(R - 1, false, reg, slot); },
                  [](unsigned reg, unsigned slot) { return rows_layout<T>(R, false, reg, slot); });

template <unsigned T, unsigned R, bool Reversed>
inline constexpr permute_round<T> from_rows_round =
    make_round<T>([](unsigned reg, unsigned slot) { return rows_layout<T>(R, false, reg, slot); },
                  [](unsigned reg, unsigned slot) { return rows_layout<T>(R - 1, Reversed && R == 1, reg, slot); });

#if TILEFMT_WITH_AVX512VBMI_GFNI
namespace vbmi {

using reg = __m512i;

// N registers (std::array<__m512i, N> would drop the type's alignment
// attribute, which GCC warns about).
template <std::size_t N>
struct regs {
  reg v[N];
  reg& operator[](std::size_t i) noexcept { return v[i]; }
  const reg& operator[](std::size_t i) const noexcept { return v[i]; }
};

inline reg load(const std::byte* p) noexcept { return _mm512_loadu_si512(p); }
inline void store(std::byte* p, reg v) noexcept { _mm512_storeu_si512(p, v); }

template <std::size_t N, const permute_round<N>& Round, std::size_t... O>
inline regs<N> apply(const regs<N>& in, std::index_sequence<O...>) noexcept {
  return {{_mm512_permutex2var_epi8(in[Round[O].a], _mm512_loadu_si512(Round[O].index.data()), in[Round[O].b])...}};
}

template <std::size_t N, const permute_round<N>& Round>
inline regs<N> apply(const regs<N>& in) noexcept {
  return apply<N, Round>(in, std::make_index_sequence<N>{});
}

// Memory order -> planes (register j = byte j of the 64 elements).
template <std::size_t S, bool Reversed, unsigned R = 1>
inline regs<S> to_planes(const regs<S>& v) noexcept {
  if constexpr (S == 1) {
    if constexpr (Reversed) {
      return {{_mm512_maskz_permutexvar_epi8(~__mmask64{0}, _mm512_loadu_si512(reverse_words_round[0].index.data()),
                                             v[0])}};
    } else {
      return v;
    }
  } else if constexpr (R > planes_levels<S>) {
    return v;
  } else {
    return to_planes<S, Reversed, R + 1>(apply<S, to_planes_round<S, R, Reversed>>(v));
  }
}

// Planes -> memory order.
template <std::size_t S, unsigned R = planes_levels<S>>
inline regs<S> from_planes(const regs<S>& v) noexcept {
  if constexpr (R == 0) {
    return v;
  } else {
    return from_planes<S, R - 1>(apply<S, from_planes_round<S, R>>(v));
  }
}

template <unsigned T, unsigned R = 1>
inline regs<T> to_rows(const regs<T>& v) noexcept {
  if constexpr (R > rows_levels<T>) {
    return v;
  } else {
    return to_rows<T, R + 1>(apply<T, to_rows_round<T, R>>(v));
  }
}

template <unsigned T, bool Reversed, unsigned R = rows_levels<T>>
inline regs<T> from_rows(const regs<T>& v) noexcept {
  if constexpr (R == 0) {
    return v;
  } else {
    return from_rows<T, Reversed, R - 1>(apply<T, from_rows_round<T, R, Reversed>>(v));
  }
}

// The 8 / T rows of 8 T bytes each that one register holds after to_rows,
// stored at row, row + row_bytes, ... (and loaded for from_rows), by whole
// 32-byte halves: a masked store costs far more on Zen 4. The intrinsics are
// the masked forms with every lane selected, which compile to the unmasked
// instructions: GCC 12's unmasked casts, inserts, extracts and one-source
// byte permute pass an "undefined" placeholder that -Wmaybe-uninitialized
// reports in a program built with -march=native (GCC bug 105593).
template <unsigned T>
inline void store_rows(std::byte* row, std::size_t row_bytes, reg v) noexcept {
  static_assert(T == 4 || T == 8);
  if constexpr (T == 8) {
    store(row, v);
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row),
                        _mm512_mask_extracti64x4_epi64(_mm256_setzero_si256(), 0xF, v, 0));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + row_bytes),
                        _mm512_mask_extracti64x4_epi64(_mm256_setzero_si256(), 0xF, v, 1));
  }
}

template <unsigned T>
inline reg load_rows(const std::byte* row, std::size_t row_bytes) noexcept {
  static_assert(T == 4 || T == 8);
  if constexpr (T == 8) {
    return load(row);
  } else {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + row_bytes));
    const reg both = _mm512_mask_broadcast_i64x4(_mm512_setzero_si512(), 0xFF, lo);
    return _mm512_mask_inserti64x4(both, 0xFF, both, hi, 1);
  }
}

// Bit i of byte m of each result word = bit m of byte 7 - i of v's word.
inline reg transpose_bits_reversed(reg v) noexcept {
  return _mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64(static_cast<long long>(0x8040201008040201ull)), v, 0);
}

}  // namespace vbmi
#endif

}  // namespace tilefmt::filter::detail::simd

#endif  // TILEFMT_FILTER_DETAIL_SIMD_AVX512VBMI_GFNI_HPP
