// The reference, scalar and default tables, and the run-time choice of the
// instruction-set tables. Compiled without extra instruction-set flags.
#include <vector>

#include "kernel_table.hpp"
#include "kernel_table_impl.hpp"

namespace tilefmt::test {

namespace {

template <class T>
constexpr bit_width_kernels<T> reference_bit_width() {
  namespace d = filter::detail;
  return {&d::bit_width_window_stats_scalar<T>, &d::bit_width_encode_scalar<T>, &d::bit_width_decode_scalar<T>,
          &d::bit_width_reduce_window_scalar<T>, &d::bit_width_restore_window_scalar<T>};
}

template <class T>
constexpr positive_delta_kernels<T> reference_positive_delta() {
  namespace d = filter::detail;
  return {&d::positive_delta_encode_scalar<T>, &d::positive_delta_decode_scalar<T>};
}

constinit const kernel_table scalar_kernels = make_kernel_table<void>("scalar");
constinit const kernel_table default_kernels = make_kernel_table<xsimd::default_arch>("default_arch");

}  // namespace

constinit const kernel_table reference_kernels = {
    "reference",
    0,
    &filter::detail::byteshuffle_scalar<>,
    &filter::detail::byteunshuffle_scalar<>,
    &filter::detail::bitshuffle_block_scalar<>,
    &filter::detail::bitunshuffle_block_scalar<>,
    // The part functions only add TileDB's splitting into blocks around the
    // block kernels; the reference runs that with the reference blocks.
    [](const std::byte* in, std::size_t n, std::size_t s, std::byte* out) noexcept {
      if (s == 0 || n % 8 != 0 || n % s != 0) {
        filter::detail::copy_bytes(out, in, n);
        return;
      }
      for (std::size_t off = 0; off < n; off += filter::detail::bitshuffle_block_bytes) {
        const std::size_t len = n - off < filter::detail::bitshuffle_block_bytes ? n - off : filter::detail::bitshuffle_block_bytes;
        filter::detail::bitshuffle_block_scalar(in + off, len, s, out + off);
      }
    },
    [](const std::byte* in, std::size_t n, std::size_t s, std::byte* out) noexcept {
      if (s == 0 || n % 8 != 0 || n % s != 0) {
        filter::detail::copy_bytes(out, in, n);
        return;
      }
      for (std::size_t off = 0; off < n; off += filter::detail::bitshuffle_block_bytes) {
        const std::size_t len = n - off < filter::detail::bitshuffle_block_bytes ? n - off : filter::detail::bitshuffle_block_bytes;
        filter::detail::bitunshuffle_block_scalar(in + off, len, s, out + off);
      }
    },
    {reference_bit_width<std::int16_t>(), reference_bit_width<std::uint16_t>(),
     reference_bit_width<std::int32_t>(), reference_bit_width<std::uint32_t>(),
     reference_bit_width<std::int64_t>(), reference_bit_width<std::uint64_t>()},
    {reference_positive_delta<std::int8_t>(), reference_positive_delta<std::uint8_t>(),
     reference_positive_delta<std::int16_t>(), reference_positive_delta<std::uint16_t>(),
     reference_positive_delta<std::int32_t>(), reference_positive_delta<std::uint32_t>(),
     reference_positive_delta<std::int64_t>(), reference_positive_delta<std::uint64_t>()}};

#ifdef TILEFMT_TEST_ARCH_SSE2
extern const kernel_table kernels_sse2;
#endif
#ifdef TILEFMT_TEST_ARCH_SSE4_1
extern const kernel_table kernels_sse4_1;
#endif
#ifdef TILEFMT_TEST_ARCH_AVX2
extern const kernel_table kernels_avx2;
#endif
#ifdef TILEFMT_TEST_ARCH_AVX512BW
extern const kernel_table kernels_avx512bw;
#endif

// xsimd 8 reads the CPUID feature bits only; the compiler's check also asks
// whether the operating system saves the wider registers (XCR0).
#if defined(TILEFMT_TEST_ARCH_SSE2) || defined(TILEFMT_TEST_ARCH_SSE4_1) || defined(TILEFMT_TEST_ARCH_AVX2) || \
    defined(TILEFMT_TEST_ARCH_AVX512BW)
#define TILEFMT_CPU_SUPPORTS(feature) __builtin_cpu_supports(feature)
#endif

std::span<const kernel_table* const> kernel_tables() {
  static const std::vector<const kernel_table*> tables = [] {
    std::vector<const kernel_table*> t{&scalar_kernels, &default_kernels};
    [[maybe_unused]] const auto cpu = xsimd::available_architectures();
#ifdef TILEFMT_TEST_ARCH_SSE2
    if (cpu.sse2 && TILEFMT_CPU_SUPPORTS("sse2")) t.push_back(&kernels_sse2);
#endif
#ifdef TILEFMT_TEST_ARCH_SSE4_1
    if (cpu.sse4_1 && TILEFMT_CPU_SUPPORTS("sse4.1")) t.push_back(&kernels_sse4_1);
#endif
#ifdef TILEFMT_TEST_ARCH_AVX2
    if (cpu.avx2 && TILEFMT_CPU_SUPPORTS("avx2")) t.push_back(&kernels_avx2);
#endif
#ifdef TILEFMT_TEST_ARCH_AVX512BW
    if (cpu.avx512f && cpu.avx512cd && cpu.avx512dq && cpu.avx512bw && TILEFMT_CPU_SUPPORTS("avx512f") &&
        TILEFMT_CPU_SUPPORTS("avx512cd") && TILEFMT_CPU_SUPPORTS("avx512dq") && TILEFMT_CPU_SUPPORTS("avx512bw")) {
      t.push_back(&kernels_avx512bw);
    }
#endif
    return t;
  }();
  return tables;
}

}  // namespace tilefmt::test
