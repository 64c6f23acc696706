// libFuzzer target: generic tiles (filter::read_generic_tile, with or without
// checksum verification and a key) and TileDB 1.3's generic tiles.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::generic_tile(tilefmt::fuzz::input(data, size));
  return 0;
}
