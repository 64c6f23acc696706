// libFuzzer target: timestamped names, file name checks, vacuum, ignore and
// consolidated-commit files, and the array layer's reading of them.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::commit_files(tilefmt::fuzz::input(data, size));
  return 0;
}
