// The reference and scalar tables, and the run-time choice among the
// instruction-set tables. Compiled without instruction-set flags: nothing
// here may execute an instruction the baseline CPU lacks.
#include <array>
#include <atomic>
#include <cstring>

#include "make_table.hpp"

namespace tilefmt::filter::dispatch {

namespace {

namespace d = filter::detail;

template <class T>
constexpr bit_width_kernels<T> reference_bit_width() {
  return {&d::bit_width_window_stats_scalar<T>, &d::bit_width_encode_scalar<T>, &d::bit_width_decode_scalar<T>,
          &d::bit_width_reduce_window_scalar<T>, &d::bit_width_restore_window_scalar<T>};
}

template <class T>
constexpr positive_delta_kernels<T> reference_positive_delta() {
  return {&d::positive_delta_encode_scalar<T>, &d::positive_delta_decode_scalar<T>};
}

// The part functions only add TileDB's splitting of a part into blocks
// around the block kernels; the reference runs that splitting over the
// reference blocks, so that the part kernels are checked against code that
// shares nothing with them.
template <bool Invert>
void reference_bitshuffle_part(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) noexcept {
  if (s == 0 || n % 8 != 0 || n % s != 0) {
    d::copy_bytes(out, in, n);
    return;
  }
  for (std::size_t off = 0; off < n; off += d::bitshuffle_block_bytes) {
    const std::size_t len = n - off < d::bitshuffle_block_bytes ? n - off : d::bitshuffle_block_bytes;
    if constexpr (Invert) {
      d::bitunshuffle_block_scalar(in + off, len, s, out + off);
    } else {
      d::bitshuffle_block_scalar(in + off, len, s, out + off);
    }
  }
}

constinit const kernel_table reference_kernels = {
    "reference",
    0,
    &d::byteshuffle_scalar<>,
    &d::byteunshuffle_scalar<>,
    &d::byteunshuffle_scalar<>,
    &d::byteunshuffle_elements_scalar<>,
    &d::bitshuffle_block_scalar<>,
    &d::bitunshuffle_block_scalar<>,
    &reference_bitshuffle_part<false>,
    &reference_bitshuffle_part<true>,
    {reference_bit_width<std::int16_t>(), reference_bit_width<std::uint16_t>(),
     reference_bit_width<std::int32_t>(), reference_bit_width<std::uint32_t>(),
     reference_bit_width<std::int64_t>(), reference_bit_width<std::uint64_t>()},
    {reference_positive_delta<std::int8_t>(), reference_positive_delta<std::uint8_t>(),
     reference_positive_delta<std::int16_t>(), reference_positive_delta<std::uint16_t>(),
     reference_positive_delta<std::int32_t>(), reference_positive_delta<std::uint32_t>(),
     reference_positive_delta<std::int64_t>(), reference_positive_delta<std::uint64_t>()}};

// The kernels' own scalar code (Arch = void): what runs on a CPU with none
// of the instruction sets.
constinit const kernel_table scalar_kernels = impl::make_kernel_table<void>("scalar");

// CPU detection with the compiler's __builtin_cpu_supports rather than
// xsimd::available_architectures(): xsimd 8 reads the CPUID feature bits
// only, while the compiler's runtime also checks (XGETBV) that the operating
// system saves the YMM and ZMM registers, without which an AVX2 or AVX-512
// instruction faults even on a CPU that has it.
#if defined(TILEFMT_DISPATCH_SSE2) || defined(TILEFMT_DISPATCH_SSE4_1) || defined(TILEFMT_DISPATCH_AVX2) || \
    defined(TILEFMT_DISPATCH_AVX512BW) || defined(TILEFMT_DISPATCH_AVX512VBMI_GFNI)
#define TILEFMT_DISPATCH_X86 1
#endif

struct table_list {
  std::array<const kernel_table*, 6> tables{};
  std::size_t size = 0;
  void add(const kernel_table* t) noexcept { tables[size++] = t; }
};

table_list detect() noexcept {
  table_list l;
  l.add(&scalar_kernels);
#ifdef TILEFMT_DISPATCH_X86
  // Needed when this runs before the compiler runtime's own constructor
  // (from another static initializer); harmless otherwise.
  __builtin_cpu_init();
#endif
#ifdef TILEFMT_DISPATCH_SSE2
  if (__builtin_cpu_supports("sse2")) l.add(&impl::kernels_sse2);
#endif
#ifdef TILEFMT_DISPATCH_SSE4_1
  if (__builtin_cpu_supports("sse4.1")) l.add(&impl::kernels_sse4_1);
#endif
#ifdef TILEFMT_DISPATCH_AVX2
  if (__builtin_cpu_supports("avx2")) l.add(&impl::kernels_avx2);
#endif
#ifdef TILEFMT_DISPATCH_AVX512BW
  // xsimd's avx512bw architecture also uses AVX-512 F, CD and DQ.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw")) {
    l.add(&impl::kernels_avx512bw);
  }
#endif
#ifdef TILEFMT_DISPATCH_AVX512VBMI_GFNI
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni")) {
    l.add(&impl::kernels_avx512vbmi_gfni);
  }
#endif
  return l;
}

const table_list& detected() noexcept {
  static const table_list l = detect();
  return l;
}

constinit std::atomic<const kernel_table*> chosen{nullptr};

}  // namespace

const kernel_table& reference() noexcept { return reference_kernels; }

std::span<const kernel_table* const> available() noexcept {
  const table_list& l = detected();
  return {l.tables.data(), l.size};
}

const kernel_table& best() noexcept { return *available().back(); }

const kernel_table* find(std::string_view name) noexcept {
  if (name == reference_kernels.name) return &reference_kernels;
  for (const kernel_table* t : available()) {
    if (name == t->name) return t;
  }
  return nullptr;
}

const kernel_table& active() noexcept {
  const kernel_table* t = chosen.load(std::memory_order_acquire);
  return t != nullptr ? *t : best();
}

void set_active(const kernel_table& k) noexcept { chosen.store(&k, std::memory_order_release); }

}  // namespace tilefmt::filter::dispatch
