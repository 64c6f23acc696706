// Compiled with the sse2 instruction-set flags (see meson.build).
#include "make_table.hpp"

namespace tilefmt::filter::dispatch::impl {

constinit const kernel_table kernels_sse2 = make_kernel_table<xsimd::sse2>("sse2");

}  // namespace tilefmt::filter::dispatch::impl
