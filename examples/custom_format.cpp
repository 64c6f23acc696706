// A format that is not TileDB's: a small sensor log. Its reader, writer,
// size function and dump all come from the declarations below.
//
//   magic "SLOG" | u16 version | u8 name length | name
//   | (version >= 2) f64 sample rate
//   | u32 reading count | readings (u64 time, f32 value, u8 flags)
//   | u8 has_note | (has_note == 1) u16 length, note
//   | the rest of the file: a trailer of raw bytes
#include <array>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <tilefmt/codec/codec.hpp>

namespace codec = tilefmt::codec;

struct Reading {
  std::uint64_t time_ms;
  float value;
  std::uint8_t flags;
  friend bool operator==(const Reading&, const Reading&) = default;
};

struct SensorLog {
  std::array<char, 4> magic{'S', 'L', 'O', 'G'};
  codec::version_field<std::uint16_t> version{};            // gates the fields below
  codec::counted<std::uint8_t, std::string> sensor_name{};
  codec::since<2, double> sample_rate_hz{};                  // added in version 2
  codec::counted<std::uint32_t, std::vector<Reading>> readings{};
  std::uint8_t has_note = 0;
  codec::when<codec::field_equals<"has_note", 1>, codec::counted<std::uint16_t, std::string>> note{};
  codec::rest<std::vector<std::byte>> trailer{};
  friend bool operator==(const SensorLog&, const SensorLog&) = default;
};
static_assert(codec::fixed_wire_size<Reading> == 13);

int main() {
  SensorLog v1{.version = {1}, .sensor_name = {"roof"}, .readings = {{{1000, 21.5f, 0}, {2000, 21.75f, 1}}}};
  SensorLog v2 = v1;
  v2.version = {2};
  v2.sample_rate_hz = {0.5};
  v2.has_note = 1;
  v2.note = {{"recalibrated"}};

  int status = 0;
  for (const SensorLog& log : {v1, v2}) {
    auto bytes = codec::encode(log);
    std::cout << "version " << log.version.value << ": " << bytes.size() << " bytes (encoded_size says "
              << codec::encoded_size(log) << ")\n";
    SensorLog back = codec::decode<SensorLog>(bytes);
    std::cout << codec::to_text(back) << "\n";
    if (!(back == log)) status = 1;
  }

  // A reading count far larger than the file is rejected before allocating.
  auto bytes = codec::encode(v1);
  bytes[11] = std::byte{0xff};
  bytes[12] = std::byte{0xff};
  try {
    codec::decode<SensorLog>(bytes);
    status = 1;
  } catch (const tilefmt::format_error& e) {
    std::cout << "corrupt count: " << e.what() << "\n";
  }
  return status;
}
