// libFuzzer target: consolidated fragment metadata payloads and the footers
// they hold, with a FragmentContext taken from the first bytes.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::consolidated_fragment_metadata(tilefmt::fuzz::input(data, size));
  return 0;
}
