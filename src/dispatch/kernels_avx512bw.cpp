// Compiled with the avx512bw instruction-set flags (see meson.build).
#include "make_table.hpp"

namespace tilefmt::filter::dispatch::impl {

constinit const kernel_table kernels_avx512bw = make_kernel_table<xsimd::avx512bw>("avx512bw");

}  // namespace tilefmt::filter::dispatch::impl
