// Shared helpers for the filter kernels: little-endian scalar access and the
// few data-movement operations xsimd 8 does not provide with one meaning on
// every instruction set (lane-local interleaves and packs, loads and stores
// that regroup 16-byte lanes, bit masks of bytes, whole-register element
// shifts). xsimd's zip_lo/zip_hi, for one, interleave within each 128-bit
// lane on AVX2 and AVX-512 up to xsimd 9 and across the whole register from
// xsimd 10 on; its 8-bit swizzle on AVX-512BW needs VBMI.
//
// Every kernel is a function template over an xsimd architecture `Arch`
// (default `default_arch`, the one the including file is compiled for). A
// kernel uses SIMD code when `simd::accelerated<Arch>` holds, and otherwise
// the scalar code written next to it.
//
// Instruction-set builds: a program may compile the same kernels for several
// architectures in separate translation units (each with its own -m flags) and
// choose one at run time. Inline functions that are not templates over `Arch`
// are emitted by every such unit and the linker keeps one copy, possibly one
// compiled for a wider instruction set than the CPU has. Everything a kernel
// calls that has loops or vector code is therefore a template over `Arch`
// (the scalar references too: their `Arch` parameter defaults to `void`);
// the shared helpers below that are not are straight-line integer code.
#ifndef TILEFMT_FILTER_DETAIL_SIMD_HPP
#define TILEFMT_FILTER_DETAIL_SIMD_HPP

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <xsimd/xsimd.hpp>

#include "tilefmt/codec/wire.hpp"
#include "tilefmt/filter/detail/simd_avx512vbmi_gfni.hpp"

namespace tilefmt::filter::detail {

#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
// xsimd knows no SIMD instruction set of this target (s390x, POWER, RISC-V,
// WebAssembly, ...) and then declares no batch types: the kernels run their
// scalar code, and the SIMD templates below are declared but never
// instantiated.
using default_arch = void;
#elif TILEFMT_WITH_AVX512VBMI_GFNI
// Compiled for a CPU with VBMI and GFNI, which xsimd does not know of.
using default_arch = simd::avx512vbmi_gfni;
#else
using default_arch = xsimd::default_arch;
#endif

// ---------------------------------------------------------------------------
// Scalar access. The on-disk format is little-endian whatever the host.

// The codec's loads and stores, which the kernels call unqualified.
using codec::load_le;
using codec::store_le;

// memcpy with a zero length may be given null pointers (empty spans).
inline void copy_bytes(std::byte* dst, const std::byte* src, std::size_t n) noexcept {
  if (n != 0) {
    std::memcpy(dst, src, n);
  }
}

// a + b and a - b in T with two's-complement wrap-around: the filters define
// their arithmetic modulo 2^bits, and signed overflow must not be undefined.
template <class T>
constexpr T wrapping_add(T a, T b) noexcept {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}

template <class T>
constexpr T wrapping_sub(T a, T b) noexcept {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}

// Transposes the 8x8 bit matrix held in a 64-bit word (byte r = row r, bit c
// = column c): bit c of byte r moves to bit r of byte c. Three rounds of
// delta swaps (Hacker's Delight, 7-3). `Word` is std::uint64_t or an xsimd
// batch of them, so the scalar and the vector kernels share one definition.
template <class Word>
inline Word transpose_bits_8x8(Word x) noexcept {
  Word t = (x ^ (x >> 7)) & Word(0x00AA00AA00AA00AAull);
  x = x ^ t ^ (t << 7);
  t = (x ^ (x >> 14)) & Word(0x0000CCCC0000CCCCull);
  x = x ^ t ^ (t << 14);
  t = (x ^ (x >> 28)) & Word(0x00000000F0F0F0F0ull);
  x = x ^ t ^ (t << 28);
  return x;
}

namespace simd {

#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
// Stand-ins that let the SIMD templates be parsed; they are never defined, so
// using one outside a discarded branch fails to compile.
template <class T, class Arch>
struct unavailable_batch;
template <class Arch>
using bytes = unavailable_batch<std::uint8_t, Arch>;
template <class T, class Arch>
using batch = unavailable_batch<T, Arch>;
template <class T, class Arch>
using batch_bool = unavailable_batch<bool, Arch>;
template <class... A>
void select(A&&...) = delete;
template <class... A>
bool any(A&&...) = delete;
#else
template <class Arch>
using bytes = xsimd::batch<std::uint8_t, Arch>;

template <class T, class Arch>
using batch = xsimd::batch<T, Arch>;

template <class T, class Arch>
using batch_bool = xsimd::batch_bool<T, Arch>;

using xsimd::any;
using xsimd::select;
#endif

// Families of instruction sets with one implementation of the operations
// below. Each requires registers of the width it was written for, so an
// xsimd release that reorders its architecture hierarchy cannot route a
// 256-bit architecture into 128-bit code. Arch = void selects no family: the
// kernels' scalar code.
enum class family { none, sse2, avx2, avx512bw };

template <class Arch, class Base, std::size_t Width>
constexpr bool in_family() noexcept {
  if constexpr (std::is_void_v<Arch>) {
    return false;
  } else if constexpr (!std::is_base_of_v<Base, Arch>) {
    return false;
  } else if constexpr (!Arch::supported()) {
    return false;
  } else {
    return bytes<Arch>::size == Width;
  }
}

template <class Arch>
constexpr family family_of() noexcept {
  if constexpr (std::endian::native != std::endian::little) {
    return family::none;
  }
#if XSIMD_WITH_AVX512BW
  else if constexpr (in_family<Arch, xsimd::avx512bw, 64>()) {
    return family::avx512bw;
  }
#endif
#if XSIMD_WITH_AVX2
  else if constexpr (in_family<Arch, xsimd::avx2, 32>()) {
    return family::avx2;
  }
#endif
#if XSIMD_WITH_SSE2
  else if constexpr (in_family<Arch, xsimd::sse2, 16>()) {
    return family::sse2;
  }
#endif
  else {
    return family::none;
  }
}

template <class Arch>
inline constexpr family family_v = family_of<Arch>();

// True when the SIMD kernels exist for Arch; otherwise kernels run their
// scalar code (Arch = void, other CPUs, big-endian hosts, AVX without AVX2,
// AVX-512 without BW).
template <class Arch>
inline constexpr bool accelerated = family_v<Arch> != family::none;

// Register width in bytes and number of 16-byte lanes. x86 shuffles act on
// each 16-byte lane separately; the kernels are written in terms of lanes.
template <class Arch>
inline constexpr std::size_t width = bytes<Arch>::size;

template <class Arch>
inline constexpr std::size_t lanes = width<Arch> / 16;

template <class Arch, family = family_v<Arch>>
struct ops;

#if XSIMD_WITH_SSE2
template <class Arch>
struct ops<Arch, family::sse2> {
  using reg = __m128i;

  static reg load(const std::byte* p) noexcept {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  static void store(std::byte* p, reg v) noexcept {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
  }
  // Stream: a non-temporal store, p 16-byte aligned.
  template <bool Stream>
  static void put(std::byte* p, __m128i v) noexcept {
    if constexpr (Stream) _mm_stream_si128(reinterpret_cast<__m128i*>(p), v);
    else _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
  }
  static constexpr std::size_t stream_alignment = 16;
  template <std::size_t K, class V>
  static void load_lane_groups(const std::byte* p, std::array<V, K>& x) noexcept {
    for (std::size_t k = 0; k < K; ++k) x[k] = load(p + 16 * k);
  }
  template <std::size_t K, bool Stream, class V>
  static void store_lane_groups(std::byte* p, const std::array<V, K>& x) noexcept {
    for (std::size_t k = 0; k < K; ++k) put<Stream>(p + 16 * k, x[k]);
  }

  template <std::size_t Unit>
  static reg interleave_lo(reg a, reg b) noexcept {
    if constexpr (Unit == 1) return _mm_unpacklo_epi8(a, b);
    else if constexpr (Unit == 2) return _mm_unpacklo_epi16(a, b);
    else if constexpr (Unit == 4) return _mm_unpacklo_epi32(a, b);
    else return _mm_unpacklo_epi64(a, b);
  }
  template <std::size_t Unit>
  static reg interleave_hi(reg a, reg b) noexcept {
    if constexpr (Unit == 1) return _mm_unpackhi_epi8(a, b);
    else if constexpr (Unit == 2) return _mm_unpackhi_epi16(a, b);
    else if constexpr (Unit == 4) return _mm_unpackhi_epi32(a, b);
    else return _mm_unpackhi_epi64(a, b);
  }
  // Saturating packs truncate exactly once each value is brought into the
  // narrow type's range (masked for the unsigned pack, sign-extended from the
  // low half for the signed one).
  template <std::size_t Unit>
  static reg pack_low_halves(reg a, reg b) noexcept {
    if constexpr (Unit == 2) {
      const reg m = _mm_set1_epi16(0xFF);
      return _mm_packus_epi16(_mm_and_si128(a, m), _mm_and_si128(b, m));
    } else if constexpr (Unit == 4) {
      return _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(a, 16), 16),
                             _mm_srai_epi32(_mm_slli_epi32(b, 16), 16));
    } else {
      return _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b),
                                             _MM_SHUFFLE(2, 0, 2, 0)));
    }
  }
  template <unsigned Bit>
  static std::uint64_t bit_mask(reg v) noexcept {
    if constexpr (Bit != 7) v = _mm_slli_epi16(v, 7 - Bit);  // bit to the top; carries only reach lower bits
    return static_cast<std::uint32_t>(_mm_movemask_epi8(v));
  }
  template <std::size_t Bytes>
  static reg slide_up(reg v) noexcept {
    return _mm_slli_si128(v, Bytes);
  }
  template <std::size_t Elem>
  static reg broadcast_last(reg v) noexcept {
    if constexpr (Elem == 8) return _mm_shuffle_epi32(v, 0xEE);
    else if constexpr (Elem == 4) return _mm_shuffle_epi32(v, 0xFF);
    else if constexpr (Elem == 2) return _mm_shuffle_epi32(_mm_shufflehi_epi16(v, 0xFF), 0xFF);
    else return _mm_shuffle_epi32(_mm_shufflehi_epi16(_mm_unpackhi_epi8(v, v), 0xFF), 0xFF);
  }
};
#endif

#if XSIMD_WITH_AVX2
template <class Arch>
struct ops<Arch, family::avx2> {
  using reg = __m256i;

  static reg load(const std::byte* p) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(std::byte* p, reg v) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  // Stream: a non-temporal store, p aligned to the register (32 bytes), or
  // to 16 for a 128-bit half.
  template <bool Stream>
  static void put(std::byte* p, reg v) noexcept {
    if constexpr (Stream) _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
    else store(p, v);
  }
  template <bool Stream>
  static void put(std::byte* p, __m128i v) noexcept {
    if constexpr (Stream) _mm_stream_si128(reinterpret_cast<__m128i*>(p), v);
    else _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
  }
  static constexpr std::size_t stream_alignment = 32;
  // Register k = the 16-byte units k and K + k.
  template <std::size_t K, class V>
  static void load_lane_groups(const std::byte* p, std::array<V, K>& x) noexcept {
    for (std::size_t k = 0; k < K; ++k) {
      const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * (K + k)));
      x[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    }
  }
  template <std::size_t K, bool Stream, class V>
  static void store_lane_groups(std::byte* p, const std::array<V, K>& x) noexcept {
    for (std::size_t k = 0; k < K; ++k) {
      const reg v = x[k];
      put<Stream>(p + 16 * k, _mm256_castsi256_si128(v));
      put<Stream>(p + 16 * (K + k), _mm256_extracti128_si256(v, 1));
    }
  }

  template <std::size_t Unit>
  static reg interleave_lo(reg a, reg b) noexcept {
    if constexpr (Unit == 1) return _mm256_unpacklo_epi8(a, b);
    else if constexpr (Unit == 2) return _mm256_unpacklo_epi16(a, b);
    else if constexpr (Unit == 4) return _mm256_unpacklo_epi32(a, b);
    else return _mm256_unpacklo_epi64(a, b);
  }
  template <std::size_t Unit>
  static reg interleave_hi(reg a, reg b) noexcept {
    if constexpr (Unit == 1) return _mm256_unpackhi_epi8(a, b);
    else if constexpr (Unit == 2) return _mm256_unpackhi_epi16(a, b);
    else if constexpr (Unit == 4) return _mm256_unpackhi_epi32(a, b);
    else return _mm256_unpackhi_epi64(a, b);
  }
  template <std::size_t Unit>
  static reg pack_low_halves(reg a, reg b) noexcept {
    if constexpr (Unit == 2) {
      const reg m = _mm256_set1_epi16(0xFF);
      return _mm256_packus_epi16(_mm256_and_si256(a, m), _mm256_and_si256(b, m));
    } else if constexpr (Unit == 4) {
      return _mm256_packs_epi32(_mm256_srai_epi32(_mm256_slli_epi32(a, 16), 16),
                                _mm256_srai_epi32(_mm256_slli_epi32(b, 16), 16));
    } else {
      return _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                                   _MM_SHUFFLE(2, 0, 2, 0)));
    }
  }
  template <unsigned Bit>
  static std::uint64_t bit_mask(reg v) noexcept {
    if constexpr (Bit != 7) v = _mm256_slli_epi16(v, 7 - Bit);
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(v));
  }
  template <std::size_t Bytes>
  static reg slide_up(reg v) noexcept {
    // `below` holds the low lane in the high lane's place, zeros under it;
    // alignr then joins each lane with the one below it.
    const reg below = _mm256_permute2x128_si256(v, v, 0x08);
    if constexpr (Bytes < 16) return _mm256_alignr_epi8(v, below, 16 - Bytes);
    else if constexpr (Bytes == 16) return below;
    else return _mm256_slli_si256(below, Bytes - 16);
  }
  template <std::size_t Elem>
  static reg broadcast_last(reg v) noexcept {
    if constexpr (Elem == 8) return _mm256_permute4x64_epi64(v, 0xFF);
    else if constexpr (Elem == 4) return _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7));
    else if constexpr (Elem == 2) return _mm256_broadcastw_epi16(_mm_srli_si128(_mm256_extracti128_si256(v, 1), 14));
    else return _mm256_broadcastb_epi8(_mm_srli_si128(_mm256_extracti128_si256(v, 1), 15));
  }
};
#endif

#if XSIMD_WITH_AVX512BW
template <class Arch>
struct ops<Arch, family::avx512bw> {
  using reg = __m512i;

  static reg load(const std::byte* p) noexcept { return _mm512_loadu_si512(p); }
  static void store(std::byte* p, reg v) noexcept { _mm512_storeu_si512(p, v); }
  // Stream: a non-temporal store, p 64-byte aligned.
  template <bool Stream>
  static void put(std::byte* p, reg v) noexcept {
    if constexpr (Stream) _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
    else store(p, v);
  }
  static constexpr std::size_t stream_alignment = 64;
  // The masked forms with every lane selected: GCC 12's unmasked
  // _mm512_shuffle_i64x2, _mm512_extracti32x4_epi32 and _mm512_alignr_epi32/64
  // pass an "undefined"
  // placeholder that -Wmaybe-uninitialized reports in the including program
  // (GCC bug 105593), which would break -Werror builds with -march=native.
  template <int Imm>
  static reg shuffle_i64x2(reg a, reg b) noexcept {
    return _mm512_mask_shuffle_i64x2(a, static_cast<__mmask8>(0xFF), a, b, Imm);
  }
  template <int Lane>
  static __m128i lane(reg v) noexcept {
    return _mm512_mask_extracti32x4_epi32(_mm_setzero_si128(), static_cast<__mmask8>(0xF), v, Lane);
  }
  // Transposes the 4x4 matrix of 16-byte lanes held in a, b, c, d.
  static void transpose_lanes(reg& a, reg& b, reg& c, reg& d) noexcept {
    const reg ab_lo = shuffle_i64x2<0x44>(a, b);
    const reg ab_hi = shuffle_i64x2<0xEE>(a, b);
    const reg cd_lo = shuffle_i64x2<0x44>(c, d);
    const reg cd_hi = shuffle_i64x2<0xEE>(c, d);
    a = shuffle_i64x2<0x88>(ab_lo, cd_lo);
    b = shuffle_i64x2<0xDD>(ab_lo, cd_lo);
    c = shuffle_i64x2<0x88>(ab_hi, cd_hi);
    d = shuffle_i64x2<0xDD>(ab_hi, cd_hi);
  }
  // Register k, lane l = 16-byte unit K l + k. Loaded whole and rearranged
  // in registers: four 128-bit inserts per register cost more.
  template <std::size_t K, class V>
  static void load_lane_groups(const std::byte* p, std::array<V, K>& x) noexcept {
    if constexpr (K == 1) {
      x[0] = load(p);
    } else if constexpr (K == 2) {
      const reg v0 = load(p);
      const reg v1 = load(p + 64);
      x[0] = shuffle_i64x2<0x88>(v0, v1);
      x[1] = shuffle_i64x2<0xDD>(v0, v1);
    } else {
      static_assert(K % 4 == 0);
      constexpr std::size_t Q = K / 4;
      for (std::size_t q = 0; q < Q; ++q) {
        reg a = load(p + 64 * q);
        reg b = load(p + 64 * (Q + q));
        reg c = load(p + 64 * (2 * Q + q));
        reg d = load(p + 64 * (3 * Q + q));
        transpose_lanes(a, b, c, d);
        x[4 * q] = a;
        x[4 * q + 1] = b;
        x[4 * q + 2] = c;
        x[4 * q + 3] = d;
      }
    }
  }
  template <std::size_t K, bool Stream, class V>
  static void store_lane_groups(std::byte* p, const std::array<V, K>& x) noexcept {
    if constexpr (K == 1) {
      put<Stream>(p, x[0]);
    } else if constexpr (K == 2) {
      const reg x0 = x[0];
      const reg x1 = x[1];
      put<Stream>(p, _mm512_permutex2var_epi64(x0, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), x1));
      put<Stream>(p + 64, _mm512_permutex2var_epi64(x0, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), x1));
    } else {
      static_assert(K % 4 == 0);
      constexpr std::size_t Q = K / 4;
      for (std::size_t q = 0; q < Q; ++q) {
        reg a = x[4 * q];
        reg b = x[4 * q + 1];
        reg c = x[4 * q + 2];
        reg d = x[4 * q + 3];
        transpose_lanes(a, b, c, d);
        put<Stream>(p + 64 * q, a);
        put<Stream>(p + 64 * (Q + q), b);
        put<Stream>(p + 64 * (2 * Q + q), c);
        put<Stream>(p + 64 * (3 * Q + q), d);
      }
    }
  }

  // Unit s (of Unit bytes) to lane s % 4, slot s / 4: one VPERMQ, VPERMD or
  // VPERMW (the masked forms, for GCC bug 105593 as above).
  template <std::size_t Unit>
  static reg deal_units(reg v) noexcept {
    if constexpr (Unit == 8) {
      return _mm512_mask_permutexvar_epi64(v, static_cast<__mmask8>(0xFF), _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0), v);
    } else if constexpr (Unit == 4) {
      return _mm512_mask_permutexvar_epi32(
          v, static_cast<__mmask16>(0xFFFF), _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), v);
    } else {
      static_assert(Unit == 2);
      return _mm512_mask_permutexvar_epi16(
          v, static_cast<__mmask32>(0xFFFFFFFFu),
          _mm512_set_epi16(31, 27, 23, 19, 15, 11, 7, 3, 30, 26, 22, 18, 14, 10, 6, 2, 29, 25, 21, 17, 13,
                           9, 5, 1, 28, 24, 20, 16, 12, 8, 4, 0),
          v);
    }
  }

  template <std::size_t Unit>
  static reg interleave_lo(reg a, reg b) noexcept {
    if constexpr (Unit == 1) return _mm512_unpacklo_epi8(a, b);
    else if constexpr (Unit == 2) return _mm512_unpacklo_epi16(a, b);
    else if constexpr (Unit == 4) return _mm512_unpacklo_epi32(a, b);
    else return _mm512_unpacklo_epi64(a, b);
  }
  template <std::size_t Unit>
  static reg interleave_hi(reg a, reg b) noexcept {
    if constexpr (Unit == 1) return _mm512_unpackhi_epi8(a, b);
    else if constexpr (Unit == 2) return _mm512_unpackhi_epi16(a, b);
    else if constexpr (Unit == 4) return _mm512_unpackhi_epi32(a, b);
    else return _mm512_unpackhi_epi64(a, b);
  }
  template <std::size_t Unit>
  static reg pack_low_halves(reg a, reg b) noexcept {
    if constexpr (Unit == 2) {
      const reg m = _mm512_set1_epi16(0xFF);
      return _mm512_packus_epi16(_mm512_and_si512(a, m), _mm512_and_si512(b, m));
    } else if constexpr (Unit == 4) {
      return _mm512_packs_epi32(_mm512_srai_epi32(_mm512_slli_epi32(a, 16), 16),
                                _mm512_srai_epi32(_mm512_slli_epi32(b, 16), 16));
    } else {
      return _mm512_castps_si512(_mm512_shuffle_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b),
                                                   _MM_SHUFFLE(2, 0, 2, 0)));
    }
  }
  template <unsigned Bit>
  static std::uint64_t bit_mask(reg v) noexcept {
    return static_cast<std::uint64_t>(_mm512_test_epi8_mask(v, _mm512_set1_epi8(static_cast<char>(1u << Bit))));
  }
  // The inverse of bit_mask, which only AVX-512 has in one instruction:
  // adds (sets) bit Bit in the bytes whose bit in `mask` is set.
  template <unsigned Bit>
  static reg set_bit_where(reg acc, std::uint64_t mask) noexcept {
    return _mm512_mask_add_epi8(acc, static_cast<__mmask64>(mask), acc, _mm512_set1_epi8(static_cast<char>(1u << Bit)));
  }
  template <std::size_t Bytes>
  static reg slide_up(reg v) noexcept {
    const reg zero = _mm512_setzero_si512();
    if constexpr (Bytes % 4 == 0) {
      return _mm512_mask_alignr_epi32(v, static_cast<__mmask16>(0xFFFF), v, zero, 16 - Bytes / 4);
    } else {
      static_assert(Bytes < 16);
      const reg below = _mm512_mask_alignr_epi64(v, static_cast<__mmask8>(0xFF), v, zero, 6);  // lanes moved up one
      return _mm512_alignr_epi8(v, below, 16 - Bytes);
    }
  }
  template <std::size_t Elem>
  static reg broadcast_last(reg v) noexcept {
    if constexpr (Elem == 8) return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), v);
    else if constexpr (Elem == 4) return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v);
    else if constexpr (Elem == 2) return _mm512_permutexvar_epi16(_mm512_set1_epi16(31), v);
    else return _mm512_broadcastb_epi8(_mm_srli_si128(lane<3>(v), 15));  // a byte permute needs VBMI
  }
};
#endif

// ---------------------------------------------------------------------------
// The operations kernels use. Only meaningful when accelerated<Arch>.

// Reinterprets the register of one integer batch as another. Every integer
// batch of an x86 architecture has the same register type, and going through
// it avoids xsimd::bitwise_cast, whose template parameter changed meaning
// after xsimd 8.
template <class To, class Arch, class From>
inline batch<To, Arch> cast(const batch<From, Arch>& v) noexcept {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  return batch<To, Arch>(static_cast<typename batch<From, Arch>::register_type>(v));
}

template <class Arch>
inline bytes<Arch> load(const std::byte* p) noexcept {
  return ops<Arch>::load(p);
}

template <class T, class Arch>
inline batch<T, Arch> load_as(const std::byte* p) noexcept {
  return cast<T>(load<Arch>(p));
}

template <class Arch, class T>
inline void store(std::byte* p, const batch<T, Arch>& v) noexcept {
  ops<Arch>::store(p, cast<std::uint8_t>(v));
}

// K registers whose lane l, register k holds the 16-byte unit K l + k of
// the K * width bytes at p: each lane sees K consecutive units, and the
// lanes of one register come from consecutive groups of K units.
template <std::size_t K, class Arch>
inline std::array<bytes<Arch>, K> load_lane_groups(const std::byte* p) noexcept {
  std::array<bytes<Arch>, K> x;
  ops<Arch>::template load_lane_groups<K>(p, x);
  return x;
}

// The inverse of load_lane_groups. Stream: non-temporal stores, p aligned to
// stream_alignment<Arch>.
template <std::size_t K, class Arch, bool Stream = false>
inline void store_lane_groups(std::byte* p, const std::array<bytes<Arch>, K>& x) noexcept {
  ops<Arch>::template store_lane_groups<K, Stream>(p, x);
}

// A store that goes around the caches (non-temporal) when Stream, for output
// the caller will not read again soon: it skips reading each line before
// writing it. p aligned to stream_alignment<Arch>; stream_fence() after the
// last one, before other threads may read the bytes.
template <bool Stream, class Arch, class T>
inline void put(std::byte* p, const batch<T, Arch>& v) noexcept {
  ops<Arch>::template put<Stream>(p, static_cast<typename ops<Arch>::reg>(cast<std::uint8_t>(v)));
}

template <class Arch>
inline constexpr std::size_t stream_alignment = ops<Arch>::stream_alignment;

// Orders the non-temporal stores before this thread's later stores (their
// release to other threads among them); a no-op without SIMD. Every
// accelerated family is x86's, and only there is SFENCE declared.
template <class Arch>
inline void stream_fence() noexcept {
#if XSIMD_WITH_SSE2
  if constexpr (accelerated<Arch>) _mm_sfence();
#endif
}

// Where has_deal_units<Arch> (AVX-512): the Unit-byte units of v dealt to the
// lanes in turn, unit s to lane s % lanes, slot s / lanes (Unit 2, 4 or 8).
template <class Arch>
inline constexpr bool has_deal_units = family_v<Arch> == family::avx512bw;

template <std::size_t Unit, class Arch>
inline bytes<Arch> deal_units(const bytes<Arch>& v) noexcept {
  return ops<Arch>::template deal_units<Unit>(v);
}

// Within each lane: the low halves of a and b interleaved in Unit-byte pieces
// (a0 b0 a1 b1 ...); interleave_hi does the same with the high halves.
template <std::size_t Unit, class Arch>
inline bytes<Arch> interleave_lo(const bytes<Arch>& a, const bytes<Arch>& b) noexcept {
  return ops<Arch>::template interleave_lo<Unit>(a, b);
}

template <std::size_t Unit, class Arch>
inline bytes<Arch> interleave_hi(const bytes<Arch>& a, const bytes<Arch>& b) noexcept {
  return ops<Arch>::template interleave_hi<Unit>(a, b);
}

// Within each lane: the low half of every Unit-byte element of a, then of b.
template <std::size_t Unit, class Arch>
inline bytes<Arch> pack_low_halves(const bytes<Arch>& a, const bytes<Arch>& b) noexcept {
  return ops<Arch>::template pack_low_halves<Unit>(a, b);
}

// Bit i is bit Bit of byte i.
template <unsigned Bit, class Arch>
inline std::uint64_t bit_mask(const bytes<Arch>& v) noexcept {
  return ops<Arch>::template bit_mask<Bit>(v);
}

// Bytes of acc with bit Bit set where `mask` has bit i set (only where
// has_set_bit_where<Arch>; the bit must be clear in acc).
template <class Arch>
inline constexpr bool has_set_bit_where = family_v<Arch> == family::avx512bw;

template <unsigned Bit, class Arch>
inline bytes<Arch> set_bit_where(const bytes<Arch>& acc, std::uint64_t mask) noexcept {
  return ops<Arch>::template set_bit_where<Bit>(acc, mask);
}

// Whole register moved up by Bytes (towards higher addresses), zeros below.
template <std::size_t Bytes, class Arch>
inline bytes<Arch> slide_up(const bytes<Arch>& v) noexcept {
  static_assert(Bytes > 0 && Bytes < width<Arch>);
  return ops<Arch>::template slide_up<Bytes>(v);
}

// The last Elem-byte element copied to every element.
template <std::size_t Elem, class Arch>
inline bytes<Arch> broadcast_last(const bytes<Arch>& v) noexcept {
  return ops<Arch>::template broadcast_last<Elem>(v);
}

// Byte transposes as address rotations. Give byte (vector v, lane l, offset
// o in the lane) of K = 2^k vectors the address bits [v | o] (k + 4 bits,
// lane l kept aside). Interleaving vector i with vector i + K/2 into
// new[2i] (low halves) and new[2i + 1] (high halves) rotates that address
// left by one bit. Transposing an R x C byte matrix (C = 16 / R * K bytes per
// row) is a rotation by log2(C) bits, so a byte shuffle of 16 elements of S
// bytes is four rounds and its inverse log2(S) rounds, in every lane at once.
template <class Arch, std::size_t K, std::size_t... I>
inline std::array<bytes<Arch>, K> interleave_round(const std::array<bytes<Arch>, K>& v,
                                                   std::index_sequence<I...>) noexcept {
  constexpr std::size_t half = K / 2;
  return {{(I % 2 == 0 ? interleave_lo<1, Arch>(v[I / 2], v[I / 2 + half])
                       : interleave_hi<1, Arch>(v[I / 2], v[I / 2 + half]))...}};
}

template <std::size_t Rounds, class Arch, std::size_t K>
inline std::array<bytes<Arch>, K> rotate_left(const std::array<bytes<Arch>, K>& v) noexcept {
  static_assert(K >= 2 && std::has_single_bit(K));
  if constexpr (Rounds == 0) {
    return v;
  } else {
    return rotate_left<Rounds - 1, Arch, K>(interleave_round<Arch, K>(v, std::make_index_sequence<K>{}));
  }
}

}  // namespace simd
}  // namespace tilefmt::filter::detail

#endif  // TILEFMT_FILTER_DETAIL_SIMD_HPP
