// Quickstart: declare a binary format as a plain struct, then encode it,
// decode it and print it with its field names. No byte-level code is written.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <tilefmt/codec/codec.hpp>
#include <tilefmt/format/filter_metadata.hpp>

namespace codec = tilefmt::codec;

// The compression filter's chunk metadata, as format_spec/tile.md tables it:
// two counts up front, then the two arrays they count.
using tilefmt::format::CompressionMD;

// A format of our own: fields in on-disk order, little-endian.
struct Point {
  std::int32_t x;
  std::int32_t y;
  friend bool operator==(const Point&, const Point&) = default;
};
struct Polyline {
  codec::counted<std::uint8_t, std::string> name; // u8 length, then the bytes
  codec::counted<std::uint32_t, std::vector<Point>> points;
  friend bool operator==(const Polyline&, const Polyline&) = default;
};
static_assert(codec::fixed_wire_size<Point> == 8);

int main() {
  Polyline line{{"coast"}, {{{0, 0}, {3, 4}, {-7, 12}}}};

  std::vector<std::byte> bytes = codec::encode(line);
  std::cout << "Polyline encodes to " << bytes.size() << " bytes:";
  for (std::byte b : bytes) std::cout << ' ' << std::hex << std::to_integer<int>(b) << std::dec;
  std::cout << "\n\n";

  Polyline back = codec::decode<Polyline>(bytes);
  std::cout << codec::to_text(back) << "\n\n";

  CompressionMD md{{}, {}, {}, {{137, 64}}};
  std::cout << codec::to_json(codec::decode<CompressionMD>(codec::encode(md))) << "\n\n";

  // Damaged input is reported with the field path and byte offset.
  bytes.resize(bytes.size() - 3);
  try {
    codec::decode<Polyline>(bytes);
  } catch (const tilefmt::format_error& e) {
    std::cout << "truncated input: " << e.what() << "\n";
  }
  return back == line ? 0 : 1;
}
