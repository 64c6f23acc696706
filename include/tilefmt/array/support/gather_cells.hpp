// tilefmt — cells copied in the order a permutation gives (a sort's), with
// one load and store per cell for the common fixed sizes and the cells
// asked for ahead of their copy.
#pragma once

#include <cstddef>
#include <cstring>

namespace tilefmt::array::detail {

/// Copies cells `order[0..n)` of `from` (cells of `cell_size` bytes) to `to`,
/// one after another.
template <class Index>
void gather_cells(std::byte* to, const std::byte* from, std::size_t cell_size, const Index* order, std::size_t n) {
  auto copy = [&]<std::size_t S>() {
    // The cells are scattered (a sort's permutation): asking for a cell some
    // iterations ahead hides most of the wait for memory.
    constexpr std::size_t ahead = 16;
    std::size_t k = 0;
#if defined(__GNUC__)
    for (; k + ahead < n; ++k) {
      __builtin_prefetch(from + static_cast<std::size_t>(order[k + ahead]) * S);
      std::memcpy(to + k * S, from + static_cast<std::size_t>(order[k]) * S, S);
    }
#endif
    for (; k < n; ++k) std::memcpy(to + k * S, from + static_cast<std::size_t>(order[k]) * S, S);
  };
  switch (cell_size) {  // fixed sizes: one load and store per cell
    case 1: return copy.template operator()<1>();
    case 2: return copy.template operator()<2>();
    case 4: return copy.template operator()<4>();
    case 8: return copy.template operator()<8>();
    case 16: return copy.template operator()<16>();
    default:
      for (std::size_t k = 0; k < n; ++k)
        std::memcpy(to + k * cell_size, from + static_cast<std::size_t>(order[k]) * cell_size, cell_size);
  }
}

} // namespace tilefmt::array::detail
