#include "tilefmt/filter/bit_width_reduction.hpp"

#include "tilefmt/filter/pipeline.hpp"

#include "../support/testing.hpp"

namespace test_bit_width_reduction {

using namespace tilefmt;
using tilefmt::testing::hex_bytes;

TEST_CASE("bit width reduction: one window of int32 stored in 8 bits") {
  std::vector<std::int32_t> v{100, 101, 150, 300};
  auto tile = filter::pipeline<filter::bit_width_reduction<>>::encode<std::int32_t>(v);
  // md: input 16, 1 window {offset 100, 16 bits (range 200 + 1 needs 8 unsigned bits, but as a
  // signed 8-bit it does not fit), length 16}; data: 0, 1, 50, 200 as int16.
  CHECK(tile == hex_bytes("0100000000000000 10000000 08000000 11000000"
                          "10000000 01000000 64000000 10 10000000"
                          "0000 0100 3200 c800"));
  CHECK(filter::pipeline<filter::bit_width_reduction<>>::decode<std::int32_t>(tile) == v);
}

TEST_CASE("bit width reduction: unsigned range 255 needs 16 bits (range + 1 = 256)") {
  std::vector<std::uint32_t> v{0, 255};
  auto tile = filter::pipeline<filter::bit_width_reduction<>>::encode<std::uint32_t>(v);
  auto view = codec::decode<format::TileView>(tile);
  auto md = codec::decode<format::BitWidthReductionMD<std::uint32_t>>(view.chunks[0].metadata.bytes());
  CHECK(md.windows[0].bit_width == 16);
  std::vector<std::uint32_t> w{0, 254};
  auto t2 = filter::pipeline<filter::bit_width_reduction<>>::encode<std::uint32_t>(w);
  auto md2 = codec::decode<format::BitWidthReductionMD<std::uint32_t>>(codec::decode<format::TileView>(t2).chunks[0].metadata.bytes());
  CHECK(md2.windows[0].bit_width == 8);
}

TEST_CASE("bit width reduction: windows of 256 bytes, the last shorter; overflow stored raw") {
  std::vector<std::int64_t> v(70);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i) * 1000;
  v[69] = std::numeric_limits<std::int64_t>::min(); // last window's range overflows
  v[68] = std::numeric_limits<std::int64_t>::max();
  auto tile = filter::pipeline<filter::bit_width_reduction<>>::encode<std::int64_t>(v);
  auto view = codec::decode<format::TileView>(tile);
  auto md = codec::decode<format::BitWidthReductionMD<std::int64_t>>(codec::reader(view.chunks[0].metadata.bytes()));
  REQUIRE(md.windows.size() == 3); // 560 bytes = 256 + 256 + 48
  CHECK(md.windows[2].length == 48);
  CHECK(md.windows[2].bit_width == 64);
  CHECK(md.windows[2].value_offset == 0);
  CHECK(md.windows[0].bit_width == 16);
  CHECK(filter::pipeline<filter::bit_width_reduction<>>::decode<std::int64_t>(tile) == v);
}

TEST_CASE("bit width reduction: int8 passes through; dates only from version 20") {
  std::vector<std::int8_t> v{1, 2, 3};
  auto tile = filter::pipeline<filter::bit_width_reduction<>>::encode<std::int8_t>(v);
  CHECK(codec::decode<format::TileView>(tile).chunks[0].metadata.size() == 0);
  std::vector<std::int64_t> d{10, 11, 12};
  auto d19 = filter::pipeline<filter::bit_width_reduction<>>::encode<std::int64_t>(
      d, {.version = 19, .datatype = format::Datatype::DATETIME_DAY});
  CHECK(codec::decode<format::TileView>(d19).chunks[0].metadata.size() == 0);
  auto d20 = filter::pipeline<filter::bit_width_reduction<>>::encode<std::int64_t>(
      d, {.version = 20, .datatype = format::Datatype::DATETIME_DAY});
  CHECK(codec::decode<format::TileView>(d20).chunks[0].metadata.size() == 8 + 13);
  CHECK(filter::pipeline<filter::bit_width_reduction<>>::decode<std::int64_t>(
            d20, {.version = 20, .datatype = format::Datatype::DATETIME_DAY}) == d);
}

TEST_CASE("bit width reduction: window tables that do not match the output are corrupt") {
  using P = filter::pipeline<filter::bit_width_reduction<>>;
  // The tile of the first test case with one metadata field replaced:
  // input length, then the window's length.
  auto tile_with = [](const char* input_length, const char* window_length) {
    return hex_bytes(std::string("0100000000000000 10000000 08000000 11000000") + input_length +
                     " 01000000 64000000 10" + window_length + "0000 0100 3200 c800");
  };
  CHECK(P::decode<std::int32_t>(tile_with("10000000", "10000000")) == std::vector<std::int32_t>{100, 101, 150, 300});
  auto message = [&](const std::vector<std::byte>& tile) {
    try {
      (void)P::decode<std::int32_t>(tile);
    } catch (const format_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A window reaching past the output, windows short of it, an output
  // larger than the table covers.
  CHECK(message(tile_with("10000000", "14000000")).find("windows add up to 20 bytes, the metadata says 16") != std::string::npos);
  CHECK(message(tile_with("10000000", "0c000000")).find("windows add up to 12 bytes, the metadata says 16") != std::string::npos);
  CHECK(message(tile_with("20000000", "10000000")).find("windows add up to 16 bytes, the metadata says 32") != std::string::npos);
  // An output no 8-bit data could fill is refused before it is allocated.
  CHECK(message(tile_with("ffffff7f", "10000000")).find("the metadata says 2147483647 bytes, 8 bytes of data cannot hold them") != std::string::npos);
}

} // namespace test_bit_width_reduction
