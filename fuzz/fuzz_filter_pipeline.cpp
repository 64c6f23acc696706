// libFuzzer target: every filter's reverse: a FilterPipeline decoded from the
// input, then the rest run through filter::runtime_pipeline as a tile.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::filter_pipeline(tilefmt::fuzz::input(data, size));
  return 0;
}
