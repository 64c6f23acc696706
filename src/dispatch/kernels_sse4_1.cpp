// Compiled with the sse4_1 instruction-set flags (see meson.build).
#include "make_table.hpp"

namespace tilefmt::filter::dispatch::impl {

constinit const kernel_table kernels_sse4_1 = make_kernel_table<xsimd::sse4_1>("sse4_1");

}  // namespace tilefmt::filter::dispatch::impl
