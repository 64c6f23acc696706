// libFuzzer target: group details payloads (format/group_details.hpp),
// added up as a group's files are and each member resolved.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::group_details(tilefmt::fuzz::input(data, size));
  return 0;
}
