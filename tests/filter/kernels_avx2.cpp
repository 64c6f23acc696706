// Compiled with the avx2 instruction-set flags (see meson.build).
#include "kernel_table_impl.hpp"

namespace tilefmt::test {

extern const kernel_table kernels_avx2;
constinit const kernel_table kernels_avx2 = make_kernel_table<xsimd::avx2>("avx2");

}  // namespace tilefmt::test
