#include "tilefmt/filter/byteshuffle.hpp"

#include "tilefmt/filter/pipeline.hpp"

#include "../support/testing.hpp"

namespace test_byteshuffle {

using namespace tilefmt;
using tilefmt::testing::hex_bytes;

TEST_CASE("byteshuffle stage: exact chunk bytes") {
  std::vector<std::uint16_t> v{0x0102, 0x0304, 0x0506};
  auto tile = filter::pipeline<filter::byteshuffle>::encode<std::uint16_t>(v);
  // one chunk: orig 6, filtered 6, md 8 = {1 part, 6 bytes}; low bytes first, then high bytes.
  CHECK(tile == hex_bytes("0100000000000000 06000000 06000000 08000000 01000000 06000000 020406 010305"));
  CHECK(filter::pipeline<filter::byteshuffle>::decode<std::uint16_t>(tile) == v);
}

TEST_CASE("byteshuffle stage: part lengths must add up") {
  std::vector<std::uint32_t> v(100, 7);
  auto tile = filter::pipeline<filter::byteshuffle>::encode<std::uint32_t>(v);
  auto bad = tile;
  bad[8 + 12 + 4] = std::byte{0x91}; // part length 401 instead of 400
  CHECK_THROWS_AS(filter::pipeline<filter::byteshuffle>::decode<std::uint32_t>(bad), format_error);
}

} // namespace test_byteshuffle
