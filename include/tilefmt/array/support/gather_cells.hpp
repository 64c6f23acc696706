// tilefmt — cells copied by a permutation: gathered in the order it gives
// (a sort's), or scattered to the places it gives (a merge's), with one
// load and store per cell for the common fixed sizes.
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>

namespace tilefmt::array::detail {

/// Calls `copy.template operator()<S>()` with S the cell size for the
/// common fixed sizes (the compiler then copies a cell in one load and
/// store), S = 0 for any other (the copy takes the size at run time).
template <class Copy>
void with_cell_size(std::size_t cell_size, Copy&& copy) {
  switch (cell_size) {
    case 1: return copy.template operator()<1>();
    case 2: return copy.template operator()<2>();
    case 4: return copy.template operator()<4>();
    case 8: return copy.template operator()<8>();
    case 16: return copy.template operator()<16>();
    default: return copy.template operator()<0>();
  }
}

/// Copies cells `order[0..n)` of `from` (cells of `cell_size` bytes) to `to`,
/// one after another.
template <class Index>
void gather_cells(std::byte* to, const std::byte* from, std::size_t cell_size, const Index* order, std::size_t n) {
  with_cell_size(cell_size, [&]<std::size_t S>() {
    const std::size_t size = S ? S : cell_size;
    // The cells are scattered (a sort's permutation): asking for a cell some
    // iterations ahead hides most of the wait for memory.
    constexpr std::size_t ahead = 16;
    std::size_t k = 0;
#if defined(__GNUC__)
    for (; k + ahead < n; ++k) {
      __builtin_prefetch(from + static_cast<std::size_t>(order[k + ahead]) * size);
      std::memcpy(to + k * size, from + static_cast<std::size_t>(order[k]) * size, size);
    }
#endif
    for (; k < n; ++k) std::memcpy(to + k * size, from + static_cast<std::size_t>(order[k]) * size, size);
  });
}

/// Copies each of the `n` cells of `from` (`cell_size` bytes each) to `to`
/// at its place `place[i]`, except those placed at `skip`.
inline void scatter_cells(std::byte* to, const std::byte* from, std::size_t cell_size, const std::size_t* place,
                          std::size_t n, std::size_t skip = std::numeric_limits<std::size_t>::max()) {
  with_cell_size(cell_size, [&]<std::size_t S>() {
    const std::size_t size = S ? S : cell_size;
    for (std::size_t i = 0; i < n; ++i)
      if (place[i] != skip) std::memcpy(to + place[i] * size, from + i * size, size);
  });
}

} // namespace tilefmt::array::detail
