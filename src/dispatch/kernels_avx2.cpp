// Compiled with the avx2 instruction-set flags (see meson.build).
#include "make_table.hpp"

namespace tilefmt::filter::dispatch::impl {

constinit const kernel_table kernels_avx2 = make_kernel_table<xsimd::avx2>("avx2");

}  // namespace tilefmt::filter::dispatch::impl
