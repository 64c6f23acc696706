// Compiled with the avx512bw flags plus VBMI and GFNI (see meson.build).
#include "make_table.hpp"

namespace tilefmt::filter::dispatch::impl {

constinit const kernel_table kernels_avx512vbmi_gfni =
    make_kernel_table<filter::detail::simd::avx512vbmi_gfni>("avx512vbmi_gfni");

}  // namespace tilefmt::filter::dispatch::impl
