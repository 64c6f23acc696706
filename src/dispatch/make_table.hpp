// Builds the kernel_table of one architecture. Included only by
// kernels_<arch>.cpp (each compiled with its instruction-set flags, so every
// kernel instantiated here is compiled for that set), by dispatch.cpp for the
// scalar table, and by tests that want the table of their own compile
// target.
#ifndef TILEFMT_SRC_DISPATCH_MAKE_TABLE_HPP
#define TILEFMT_SRC_DISPATCH_MAKE_TABLE_HPP

#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"
#include "tilefmt/filter/detail/bitshuffle_kernel.hpp"
#include "tilefmt/filter/detail/byteshuffle_kernel.hpp"
#include "tilefmt/filter/detail/positive_delta_kernel.hpp"
#include "tilefmt/filter/dispatch.hpp"

namespace tilefmt::filter::dispatch::impl {

// Constant-evaluated: the table is static data, so nothing of an instruction
// set runs before available() has checked the CPU.
template <class Arch>
consteval kernel_table make_kernel_table(const char* name) {
  namespace d = filter::detail;
  std::size_t vector_bytes = 0;
  if constexpr (d::simd::accelerated<Arch>) {
    vector_bytes = d::simd::width<Arch>;
  }
  auto bw = []<class T>(T*) {
    return bit_width_kernels<T>{&d::bit_width_window_stats<T, Arch>, &d::bit_width_encode<T, Arch>,
                                &d::bit_width_decode<T, Arch>, &d::bit_width_reduce_window<T, Arch>,
                                &d::bit_width_restore_window<T, Arch>};
  };
  auto pd = []<class T>(T*) {
    return positive_delta_kernels<T>{&d::positive_delta_encode<T, Arch>, &d::positive_delta_decode<T, Arch>};
  };
  return {name,
          vector_bytes,
          &d::byteshuffle<Arch>,
          &d::byteunshuffle<Arch>,
          &d::byteunshuffle_stream<Arch>,
          &d::byteunshuffle_elements<Arch>,
          &d::bitshuffle_block<Arch>,
          &d::bitunshuffle_block<Arch>,
          &d::bitshuffle<Arch>,
          &d::bitunshuffle<Arch>,
          {bw(static_cast<std::int16_t*>(nullptr)), bw(static_cast<std::uint16_t*>(nullptr)),
           bw(static_cast<std::int32_t*>(nullptr)), bw(static_cast<std::uint32_t*>(nullptr)),
           bw(static_cast<std::int64_t*>(nullptr)), bw(static_cast<std::uint64_t*>(nullptr))},
          {pd(static_cast<std::int8_t*>(nullptr)), pd(static_cast<std::uint8_t*>(nullptr)),
           pd(static_cast<std::int16_t*>(nullptr)), pd(static_cast<std::uint16_t*>(nullptr)),
           pd(static_cast<std::int32_t*>(nullptr)), pd(static_cast<std::uint32_t*>(nullptr)),
           pd(static_cast<std::int64_t*>(nullptr)), pd(static_cast<std::uint64_t*>(nullptr))}};
}

// The per-instruction-set tables (defined only where meson built them).
extern const kernel_table kernels_sse2;
extern const kernel_table kernels_sse4_1;
extern const kernel_table kernels_avx2;
extern const kernel_table kernels_avx512bw;
extern const kernel_table kernels_avx512vbmi_gfni;

}  // namespace tilefmt::filter::dispatch::impl

#endif  // TILEFMT_SRC_DISPATCH_MAKE_TABLE_HPP
