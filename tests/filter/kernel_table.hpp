// Every filter kernel instantiated for one instruction set, as plain function
// pointers, so that tests and benchmarks can run each instantiation the CPU
// supports. The tables are built in separate translation units, each compiled
// for its instruction set (kernels_<arch>.cpp) and constant-initialized, so
// no code of an unsupported instruction set runs before kernel_tables()
// has checked the CPU.
#ifndef TILEFMT_TESTS_FILTER_KERNEL_TABLE_HPP
#define TILEFMT_TESTS_FILTER_KERNEL_TABLE_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>

#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"

namespace tilefmt::test {

using byte_kernel = void (*)(const std::byte* in, std::size_t n, std::size_t type_size,
                             std::byte* out) noexcept;

template <class T>
struct bit_width_kernels {
  filter::detail::bit_width_stats<T> (*stats)(const std::byte* in, std::size_t count) noexcept;
  bool (*encode)(const std::byte* in, std::size_t count, T offset, unsigned bits, std::byte* out) noexcept;
  bool (*decode)(const std::byte* in, std::size_t count, T offset, unsigned bits, std::byte* out) noexcept;
  std::size_t (*reduce_window)(const std::byte* in, std::size_t window_bytes, std::byte* out,
                               filter::detail::bit_width_stats<T>& stats) noexcept;
  bool (*restore_window)(const std::byte* in, std::size_t window_bytes, T offset, unsigned bits,
                         std::byte* out) noexcept;
};

template <class T>
struct positive_delta_kernels {
  std::size_t (*encode)(const std::byte* in, std::size_t count, std::byte* out) noexcept;
  void (*decode)(const std::byte* in, std::size_t count, T first, std::byte* out) noexcept;
};

struct kernel_table {
  const char* name;
  std::size_t vector_bytes;  // 0 for the scalar tables
  byte_kernel byteshuffle;
  byte_kernel byteunshuffle;
  byte_kernel bitshuffle_block;
  byte_kernel bitunshuffle_block;
  byte_kernel bitshuffle;
  byte_kernel bitunshuffle;
  std::tuple<bit_width_kernels<std::int16_t>, bit_width_kernels<std::uint16_t>,
             bit_width_kernels<std::int32_t>, bit_width_kernels<std::uint32_t>,
             bit_width_kernels<std::int64_t>, bit_width_kernels<std::uint64_t>>
      bit_width;
  std::tuple<positive_delta_kernels<std::int8_t>, positive_delta_kernels<std::uint8_t>,
             positive_delta_kernels<std::int16_t>, positive_delta_kernels<std::uint16_t>,
             positive_delta_kernels<std::int32_t>, positive_delta_kernels<std::uint32_t>,
             positive_delta_kernels<std::int64_t>, positive_delta_kernels<std::uint64_t>>
      positive_delta;
};

template <class T>
const bit_width_kernels<T>& bit_width(const kernel_table& k) {
  return std::get<bit_width_kernels<T>>(k.bit_width);
}

template <class T>
const positive_delta_kernels<T>& positive_delta(const kernel_table& k) {
  return std::get<positive_delta_kernels<T>>(k.positive_delta);
}

// The scalar references (the *_scalar functions).
extern const kernel_table reference_kernels;

// Tables to check against the references: the kernels' scalar code
// (Arch = void), the default architecture of this build, then every
// instruction set built into this program that the CPU supports.
std::span<const kernel_table* const> kernel_tables();

}  // namespace tilefmt::test

#endif  // TILEFMT_TESTS_FILTER_KERNEL_TABLE_HPP
