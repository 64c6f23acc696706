// tilefmt — the compiled SIMD dispatch component (meson option `dispatch`,
// library tilefmt-dispatch, dependency `tilefmt_dispatch_dep`).
//
// Header-only users get the kernels of the architecture they compile for.
// A program built for a baseline CPU (a distribution package) can instead
// link this component: it holds every filter kernel instantiated once per
// instruction set (sse2, sse4_1, avx2, avx512bw, avx512vbmi_gfni), each in its own translation
// unit compiled with that set's flags, and picks at run time the widest one
// the CPU and the operating system support. No instruction of a set the CPU
// lacks runs, whatever the program's own flags.
//
// The byteshuffle, bitshuffle, bit-width reduction and positive delta stages
// call the kernels of active() instead of their compile-target ones when the
// including translation unit defines TILEFMT_DISPATCH (tilefmt_dispatch_dep
// and `pkg-config tilefmt-dispatch` add it). Every translation unit of one
// program must agree on that macro: the stages are inline functions.
//
//   for (const auto* k : filter::dispatch::available()) std::puts(k->name);
//   filter::dispatch::set_active(*filter::dispatch::find("sse2"));
#ifndef TILEFMT_FILTER_DISPATCH_HPP
#define TILEFMT_FILTER_DISPATCH_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>

#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"

namespace tilefmt::filter::dispatch {

/// byteshuffle, bitshuffle and their inverses: (in, bytes, type size, out).
using byte_kernel = void (*)(const std::byte* in, std::size_t n, std::size_t type_size, std::byte* out) noexcept;

/// Elements [first, first + len) of byteunshuffle's output:
/// (in, bytes, type size, first, len, out), out holding len elements.
using elements_kernel = void (*)(const std::byte* in, std::size_t n, std::size_t type_size, std::size_t first,
                                 std::size_t len, std::byte* out) noexcept;

/// The bit-width reduction kernels of detail/bit_width_reduction_kernel.hpp
/// for one element type.
template <class T>
struct bit_width_kernels {
  detail::bit_width_stats<T> (*stats)(const std::byte* in, std::size_t count) noexcept;
  bool (*encode)(const std::byte* in, std::size_t count, T offset, unsigned bits, std::byte* out) noexcept;
  bool (*decode)(const std::byte* in, std::size_t count, T offset, unsigned bits, std::byte* out) noexcept;
  std::size_t (*reduce_window)(const std::byte* in, std::size_t window_bytes, std::byte* out,
                               detail::bit_width_stats<T>& stats) noexcept;
  bool (*restore_window)(const std::byte* in, std::size_t window_bytes, T offset, unsigned bits,
                         std::byte* out) noexcept;
};

/// The positive delta kernels of detail/positive_delta_kernel.hpp for one
/// element type.
template <class T>
struct positive_delta_kernels {
  std::size_t (*encode)(const std::byte* in, std::size_t count, std::byte* out) noexcept;
  void (*decode)(const std::byte* in, std::size_t count, T first, std::byte* out) noexcept;
};

/// Every filter kernel of one instruction set, as plain function pointers.
struct kernel_table {
  const char* name;          // "reference", "scalar", "sse2", "sse4_1", "avx2", "avx512bw", "avx512vbmi_gfni"
  std::size_t vector_bytes;  // register width; 0 for the scalar tables
  byte_kernel byteshuffle;
  byte_kernel byteunshuffle;
  byte_kernel byteunshuffle_stream;  // output around the caches (detail::byteunshuffle_stream)
  elements_kernel byteunshuffle_elements;  // some elements only (detail::byteunshuffle_elements)
  byte_kernel bitshuffle_block;    // one block of at most 8 KiB
  byte_kernel bitunshuffle_block;
  byte_kernel bitshuffle;          // a whole part, in TileDB's blocks
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
const bit_width_kernels<T>& bit_width(const kernel_table& k) noexcept {
  return std::get<bit_width_kernels<T>>(k.bit_width);
}

template <class T>
const positive_delta_kernels<T>& positive_delta(const kernel_table& k) noexcept {
  return std::get<positive_delta_kernels<T>>(k.positive_delta);
}

/// The scalar reference kernels (the *_scalar functions), which every other
/// table must match byte for byte.
const kernel_table& reference() noexcept;

/// The tables this CPU can run, narrowest first: "scalar" (the kernels
/// compiled without SIMD) and then each instruction set built into the
/// component that the CPU and the operating system support.
std::span<const kernel_table* const> available() noexcept;

/// The widest of available().
const kernel_table& best() noexcept;

/// The table of that name among reference() and available(), or nullptr.
const kernel_table* find(std::string_view name) noexcept;

/// The table the stages use under TILEFMT_DISPATCH: best() unless
/// set_active() chose another. Thread-safe.
const kernel_table& active() noexcept;

/// Makes the stages use `k` from now on, e.g. reference() to rule the
/// kernels out when hunting a bug, or one of available() to compare them.
/// `k` must outlive its use; a table the CPU cannot run must not be given.
void set_active(const kernel_table& k) noexcept;

}  // namespace tilefmt::filter::dispatch

#endif  // TILEFMT_FILTER_DISPATCH_HPP
