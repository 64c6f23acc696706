// libFuzzer target: the codec as a general binary-format language, through
// the WAV, PNG, ZIP and ELF declarations of examples/formats (magic bytes,
// big-endian fields, padding, checksums, sequences ended by a chunk, tagged
// unions, bit fields, byte order from the data, offsets): every input that
// decodes must encode back to itself.
// Run it through scripts/fuzz.sh; the harness is in fuzz/harness_format.cpp.
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tilefmt::fuzz::codec_formats(tilefmt::fuzz::input(data, size));
  return 0;
}
