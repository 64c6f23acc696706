// tilefmt — the kernels the byteshuffle, bitshuffle, bit-width reduction and
// positive delta stages call: by default those of the architecture the
// including file is compiled for; with TILEFMT_DISPATCH, those the dispatch
// component chose for the CPU at run time (tilefmt/filter/dispatch.hpp).
//
// A stage takes one of these objects per chunk and calls it per part or per
// window, so the dispatched path reads the active table once per chunk and
// then pays one indirect call per window; the default path is direct calls
// the compiler can inline.
#pragma once

#include <cstddef>

#include "tilefmt/filter/detail/bit_width_reduction_kernel.hpp"
#include "tilefmt/filter/detail/bitshuffle_kernel.hpp"
#include "tilefmt/filter/detail/byteshuffle_kernel.hpp"
#include "tilefmt/filter/detail/positive_delta_kernel.hpp"
#ifdef TILEFMT_DISPATCH
#include "tilefmt/filter/dispatch.hpp"
#endif

namespace tilefmt::filter::detail {

#ifdef TILEFMT_DISPATCH

struct shuffle_kernels {
  const dispatch::kernel_table& k = dispatch::active();
  void byteshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    k.byteshuffle(in, n, s, out);
  }
  void byteunshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    k.byteunshuffle(in, n, s, out);
  }
  void byteunshuffle_stream(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    k.byteunshuffle_stream(in, n, s, out);
  }
  void byteunshuffle_elements(const std::byte* in, std::size_t n, std::size_t s, std::size_t first, std::size_t len,
                              std::byte* out) const noexcept {
    k.byteunshuffle_elements(in, n, s, first, len, out);
  }
  void bitshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    k.bitshuffle(in, n, s, out);
  }
  void bitunshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    k.bitunshuffle(in, n, s, out);
  }
};

template <class T>
struct bit_width_window_kernels {
  const dispatch::bit_width_kernels<T>& k = dispatch::bit_width<T>(dispatch::active());
  std::size_t reduce(const std::byte* in, std::size_t window_bytes, std::byte* out,
                     bit_width_stats<T>& stats) const noexcept {
    return k.reduce_window(in, window_bytes, out, stats);
  }
  bool restore(const std::byte* in, std::size_t window_bytes, T offset, unsigned bits, std::byte* out) const noexcept {
    return k.restore_window(in, window_bytes, offset, bits, out);
  }
};

template <class T>
struct positive_delta_window_kernels {
  const dispatch::positive_delta_kernels<T>& k = dispatch::positive_delta<T>(dispatch::active());
  std::size_t encode(const std::byte* in, std::size_t count, std::byte* out) const noexcept {
    return k.encode(in, count, out);
  }
  void decode(const std::byte* in, std::size_t count, T first, std::byte* out) const noexcept {
    k.decode(in, count, first, out);
  }
};

#else

struct shuffle_kernels {
  void byteshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    detail::byteshuffle(in, n, s, out);
  }
  void byteunshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    detail::byteunshuffle(in, n, s, out);
  }
  void byteunshuffle_stream(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    detail::byteunshuffle_stream(in, n, s, out);
  }
  void byteunshuffle_elements(const std::byte* in, std::size_t n, std::size_t s, std::size_t first, std::size_t len,
                              std::byte* out) const noexcept {
    detail::byteunshuffle_elements(in, n, s, first, len, out);
  }
  void bitshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    detail::bitshuffle(in, n, s, out);
  }
  void bitunshuffle(const std::byte* in, std::size_t n, std::size_t s, std::byte* out) const noexcept {
    detail::bitunshuffle(in, n, s, out);
  }
};

template <class T>
struct bit_width_window_kernels {
  std::size_t reduce(const std::byte* in, std::size_t window_bytes, std::byte* out,
                     bit_width_stats<T>& stats) const noexcept {
    return bit_width_reduce_window<T>(in, window_bytes, out, stats);
  }
  bool restore(const std::byte* in, std::size_t window_bytes, T offset, unsigned bits, std::byte* out) const noexcept {
    return bit_width_restore_window<T>(in, window_bytes, offset, bits, out);
  }
};

template <class T>
struct positive_delta_window_kernels {
  std::size_t encode(const std::byte* in, std::size_t count, std::byte* out) const noexcept {
    return positive_delta_encode<T>(in, count, out);
  }
  void decode(const std::byte* in, std::size_t count, T first, std::byte* out) const noexcept {
    positive_delta_decode<T>(in, count, first, out);
  }
};

#endif

}  // namespace tilefmt::filter::detail
