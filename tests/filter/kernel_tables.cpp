// kernel_tables(): the dispatch component's tables with this build's
// default-architecture table inserted after the scalar one. Compiled with
// the tests' flags, so default_arch is what a header-only user of the same
// flags gets.
#include <vector>

#include "kernel_table.hpp"
#include "make_table.hpp"

namespace tilefmt::test {

namespace {

constinit const kernel_table default_kernels =
    filter::dispatch::impl::make_kernel_table<xsimd::default_arch>("default_arch");

}  // namespace

std::span<const kernel_table* const> kernel_tables() {
  static const std::vector<const kernel_table*> tables = [] {
    const auto available = filter::dispatch::available();
    std::vector<const kernel_table*> t{available.front(), &default_kernels};
    t.insert(t.end(), available.begin() + 1, available.end());
    return t;
  }();
  return tables;
}

}  // namespace tilefmt::test
