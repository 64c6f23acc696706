// Builds a kernel_table for one architecture. Include only from the
// kernels_<arch>.cpp units: everything instantiated here is compiled with
// that unit's instruction-set flags.
#ifndef TILEFMT_TESTS_FILTER_KERNEL_TABLE_IMPL_HPP
#define TILEFMT_TESTS_FILTER_KERNEL_TABLE_IMPL_HPP

#include "kernel_table.hpp"
#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"
#include "tilefmt/filter/detail/bitshuffle_kernel.hpp"
#include "tilefmt/filter/detail/byteshuffle_kernel.hpp"
#include "tilefmt/filter/detail/positive_delta_kernel.hpp"

namespace tilefmt::test {

template <class Arch>
constexpr kernel_table make_kernel_table(const char* name) {
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

}  // namespace tilefmt::test

#endif  // TILEFMT_TESTS_FILTER_KERNEL_TABLE_IMPL_HPP
