// Compiled with the sse4_1 instruction-set flags (see meson.build).
#include "kernel_table_impl.hpp"

namespace tilefmt::test {

extern const kernel_table kernels_sse4_1;
constinit const kernel_table kernels_sse4_1 = make_kernel_table<xsimd::sse4_1>("sse4_1");

}  // namespace tilefmt::test
