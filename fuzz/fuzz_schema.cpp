// libFuzzer target: array schema payloads of every format version (the first
// bytes pick the version when asked), enumerations, TileDB 1.3 library-
// versioned schemas, NDRectangles, and whole schema files as the array layer
// reads them (generic tile, or TileDB 1.3's __array_schema.tdb).
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_*.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::schema(tilefmt::fuzz::input(data, size));
  return 0;
}
