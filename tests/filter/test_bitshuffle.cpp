#include "tilefmt/filter/bitshuffle.hpp"

#include "tilefmt/filter/pipeline.hpp"

#include "../support/testing.hpp"

namespace test_bitshuffle {

using namespace tilefmt;
using tilefmt::testing::hex_bytes;

TEST_CASE("bitshuffle stage: 8 bytes of uint8 transpose to bit rows") {
  std::vector<std::uint8_t> v{1, 0, 0, 0, 0, 0, 0, 0x80};
  auto tile = filter::pipeline<filter::bitshuffle>::encode<std::uint8_t>(v);
  // Row b holds bit b of each element: row 0 = 0b00000001, row 7 = 0b10000000.
  CHECK(tile == hex_bytes("0100000000000000 08000000 08000000 08000000 01000000 08000000 0100000000000080"));
  CHECK(filter::pipeline<filter::bitshuffle>::decode<std::uint8_t>(tile) == v);
}

TEST_CASE("bitshuffle stage: a part is split at a multiple of 8 bytes; the tail is stored as is") {
  std::vector<std::uint8_t> v{1, 0, 0, 0, 0, 0, 0, 0x80, 0xaa, 0xbb, 0xcc};
  auto tile = filter::pipeline<filter::bitshuffle>::encode<std::uint8_t>(v);
  CHECK(tile == hex_bytes("0100000000000000 0b000000 0b000000 0c000000 02000000 08000000 03000000"
                          "0100000000000080 aabbcc"));
  CHECK(filter::pipeline<filter::bitshuffle>::decode<std::uint8_t>(tile) == v);
  // A 5-byte part keeps an empty head.
  std::vector<std::uint8_t> five{1, 2, 3, 4, 5};
  auto t5 = filter::pipeline<filter::bitshuffle>::encode<std::uint8_t>(five);
  CHECK(t5 == hex_bytes("0100000000000000 05000000 05000000 0c000000 02000000 00000000 05000000 0102030405"));
}

} // namespace test_bitshuffle
