// libFuzzer target: array metadata payloads, merged as the array layer merges
// them and read back as every value type.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::array_metadata(tilefmt::fuzz::input(data, size));
  return 0;
}
