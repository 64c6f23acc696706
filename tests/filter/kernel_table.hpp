// The kernel tables the filter kernel tests check: those of the dispatch
// component (include/tilefmt/filter/dispatch.hpp, src/dispatch/), which
// hold every kernel instantiated per instruction set, plus the table of this
// test build's own compile target, which is what header-only users get.
#ifndef TILEFMT_TESTS_FILTER_KERNEL_TABLE_HPP
#define TILEFMT_TESTS_FILTER_KERNEL_TABLE_HPP

#include <span>

#include "tilefmt/filter/dispatch.hpp"

namespace tilefmt::test {

using filter::dispatch::bit_width;
using filter::dispatch::bit_width_kernels;
using filter::dispatch::byte_kernel;
using filter::dispatch::kernel_table;
using filter::dispatch::positive_delta;
using filter::dispatch::positive_delta_kernels;

// The scalar references (the *_scalar functions).
inline const kernel_table& reference_kernels = filter::dispatch::reference();

// Tables to check against the references: the kernels' scalar code
// (Arch = void), the default architecture of this build, then every
// instruction set of the dispatch component that the CPU supports.
std::span<const kernel_table* const> kernel_tables();

}  // namespace tilefmt::test

#endif  // TILEFMT_TESTS_FILTER_KERNEL_TABLE_HPP
