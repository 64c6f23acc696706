// PNG declared with the codec: an eight-byte signature, then chunks up to
// and including IEND. Every chunk is a big-endian length, a four-letter type,
// the data and a big-endian CRC-32 of the type and data, verified on decode
// and computed on encode. The IHDR chunk's data is a Header.
//
// Reference: PNG (Portable Network Graphics) Specification, Third Edition
// (W3C), sections 5.2 to 5.4 (signature, chunk layout, CRC) and 11.2.1
// (IHDR).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include <tilefmt/codec/codec.hpp>
#include <tilefmt/codec/crc32.hpp>

namespace png {
namespace codec = tilefmt::codec;

struct Chunk {
  codec::count_of<"data", codec::big<std::uint32_t>> length{};
  std::array<char, 4> type{};
  std::vector<std::byte> data{};
  codec::crc32_of<"type", "data", std::endian::big> crc{};
  friend bool operator==(const Chunk&, const Chunk&) = default;
};

struct IsEnd {
  bool operator()(const Chunk& c) const { return std::string_view(c.type.data(), 4) == "IEND"; }
};

struct File {
  codec::magic<"\x89PNG\r\n\x1a\n"> signature{};
  codec::repeat_until<IsEnd, std::vector<Chunk>> chunks{};  // IEND ends the file
  friend bool operator==(const File&, const File&) = default;
};

// What IHDR allows (11.2.1, Table 11).
struct NonZero {
  static constexpr std::string_view description = "a width or height (1 to 2^31-1)";
  bool operator()(std::uint32_t v) const { return v != 0 && v <= 0x7fffffffu; }
};
struct BitDepth {
  static constexpr std::string_view description = "a PNG bit depth (1, 2, 4, 8 or 16)";
  bool operator()(std::uint8_t d) const { return d == 1 || d == 2 || d == 4 || d == 8 || d == 16; }
};
struct ColourType {
  static constexpr std::string_view description = "a PNG colour type (0, 2, 3, 4 or 6)";
  bool operator()(std::uint8_t c) const { return c == 0 || c == 2 || c == 3 || c == 4 || c == 6; }
};
struct Zero {
  static constexpr std::string_view description = "0 (the only method defined)";
  bool operator()(std::uint8_t m) const { return m == 0; }
};
struct Interlace {
  static constexpr std::string_view description = "an interlace method (0 or 1)";
  bool operator()(std::uint8_t m) const { return m <= 1; }
};

/// IHDR's data.
struct Header {
  codec::valid<codec::big<std::uint32_t>, NonZero> width{};
  codec::valid<codec::big<std::uint32_t>, NonZero> height{};
  codec::valid<std::uint8_t, BitDepth> bit_depth{};
  codec::valid<std::uint8_t, ColourType> colour_type{};
  codec::valid<std::uint8_t, Zero> compression_method{};
  codec::valid<std::uint8_t, Zero> filter_method{};
  codec::valid<std::uint8_t, Interlace> interlace_method{};
  friend bool operator==(const Header&, const Header&) = default;
};
static_assert(codec::fixed_wire_size<Header> == 13);

/// The IHDR chunk's Header; IHDR must be the first chunk. Errors name the
/// field inside the chunk and its offset in the file.
inline Header header(const File& f) {
  if (f.chunks.empty() || std::string_view(f.chunks[0].type.data(), 4) != "IHDR")
    throw tilefmt::format_error("the first chunk is not IHDR", 8);
  try {
    return codec::decode<Header>(f.chunks[0].data);
  } catch (tilefmt::format_error& e) {
    e.prepend_field("File.chunks[0].data");
    e.add_offset(8 + 8);  // signature, then the chunk's length and type
    throw;
  }
}

} // namespace png
