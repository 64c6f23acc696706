// copy_selected (read/sparse/runs.hpp) copies a tile's selected cells back
// to back: blocks of 64 cells none or all of which are selected go at once,
// blocks of a few selected visit only those, the rest go a cell at a time. Checked against a plain loop for selections of
// every shape (none, all, runs of matrix rows, scattered, a block boundary
// on either side), cell sizes with and without a fixed-size kernel, and in
// place (a tile compacted where it lies).
#include "tilefmt/array/read/sparse/runs.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "../../support/testing.hpp"

namespace test_copy_selected {

using tilefmt::array::detail::copy_selected;

std::vector<std::uint8_t> selection(std::mt19937& rng, std::size_t n, int shape) {
  std::vector<std::uint8_t> s(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    switch (shape) {
      case 0: break;                                                   // none
      case 1: s[i] = 1; break;                                         // all
      case 2: s[i] = (i / 100) % 20 == 3; break;                       // rows of a matrix: 5% in runs
      case 3: s[i] = rng() % 20 == 0; break;                           // scattered
      case 4: s[i] = i % 64 < 32 || (i / 64) % 3 == 0; break;          // blocks all, half, mixed
      case 5: s[i] = static_cast<std::uint8_t>(rng() % 2 ? 1 + rng() % 255 : 0); break;  // any non-zero byte selects
      default: s[i] = static_cast<std::uint8_t>(rng() % 16 == 0 ? 1 + rng() % 255 : 0);  // a few a block, any byte
    }
  }
  return s;
}

TEST_CASE("copy_selected: the selected cells back to back, for any shape of selection, in place too") {
  std::mt19937 rng(21);
  for (std::size_t size : {1u, 2u, 4u, 8u, 3u, 12u}) {
    for (std::size_t n : {0u, 1u, 63u, 64u, 65u, 200u, 1000u, 4096u}) {
      for (int shape = 0; shape < 7; ++shape) {
        const auto select = selection(rng, n, shape);
        std::vector<std::byte> src(n * size);
        for (auto& b : src) b = static_cast<std::byte>(rng());
        std::vector<std::byte> want;
        for (std::size_t i = 0; i < n; ++i)
          if (select[i]) want.insert(want.end(), src.begin() + static_cast<std::ptrdiff_t>(i * size),
                                     src.begin() + static_cast<std::ptrdiff_t>((i + 1) * size));
        std::vector<std::byte> dst(n * size + 1, std::byte{0x5a});
        copy_selected(dst.data(), src.data(), select.data(), n, size);
        REQUIRE(std::vector<std::byte>(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(want.size())) == want);
        // Nothing written past the selected cells' end.
        CHECK(std::all_of(dst.begin() + static_cast<std::ptrdiff_t>(want.size()), dst.end(),
                          [](std::byte b) { return b == std::byte{0x5a}; }));
        auto in_place = src;
        copy_selected(in_place.data(), in_place.data(), select.data(), n, size);
        REQUIRE(std::vector<std::byte>(in_place.begin(), in_place.begin() + static_cast<std::ptrdiff_t>(want.size())) ==
                want);
      }
    }
  }
}

} // namespace test_copy_selected
