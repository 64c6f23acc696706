// Compiled with the avx512bw instruction-set flags (see meson.build).
#include "kernel_table_impl.hpp"

namespace tilefmt::test {

extern const kernel_table kernels_avx512bw;
constinit const kernel_table kernels_avx512bw = make_kernel_table<xsimd::avx512bw>("avx512bw");

}  // namespace tilefmt::test
