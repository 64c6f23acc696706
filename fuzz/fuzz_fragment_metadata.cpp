// libFuzzer target: the fragment footer and each fragment metadata section
// (R-tree, tile offsets and sizes, mins and maxes, sums, null counts, fragment
// summary, processed conditions, global order offsets, legacy v1-2 and TileDB
// 1.3 metadata), decoded with a FragmentContext taken from the first bytes.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::fragment_metadata(tilefmt::fuzz::input(data, size));
  return 0;
}
