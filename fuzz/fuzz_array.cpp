// libFuzzer target: whole arrays: the input unpacked into a storage::memory,
// opened, and every tile of every field of every fragment read, metadata
// included.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::whole_array(tilefmt::fuzz::input(data, size));
  return 0;
}
