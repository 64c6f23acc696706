// libFuzzer target: what S3, GCS and web hosts answer, as the storage
// backends parse it. Run it through scripts/fuzz.sh; the harness is
// fuzz/harness_storage.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::storage_answers(tilefmt::fuzz::input(data, size));
  return 0;
}
