// Compiled with the sse2 instruction-set flags (see meson.build).
#include "kernel_table_impl.hpp"

namespace tilefmt::test {

extern const kernel_table kernels_sse2;
constinit const kernel_table kernels_sse2 = make_kernel_table<xsimd::sse2>("sse2");

}  // namespace tilefmt::test
