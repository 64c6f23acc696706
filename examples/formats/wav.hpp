// WAV (RIFF WAVE) declared with the codec: the file is the RIFF chunk, whose
// size frames the rest; inside, "WAVE" and chunks to the end of that frame.
// Every chunk is an id, a little-endian size and its data, padded to an even
// length (the pad byte is not counted in the size). The "fmt " chunk holds
// a Format.
//
// Reference: Microsoft, "Multimedia Programming Interface and Data
// Specifications 1.0" (1991), RIFF and WAVE sections.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <tilefmt/codec/codec.hpp>

namespace wav {
namespace codec = tilefmt::codec;

struct Chunk {
  std::array<char, 4> id{};                                    // "fmt ", "data", "LIST", ...
  codec::counted<std::uint32_t, std::vector<std::byte>> data{};  // ckSize, then the data
  codec::align<2> pad{};                                       // to an even length from the chunk's start
  friend bool operator==(const Chunk&, const Chunk&) = default;
};

struct Body {
  codec::magic<"WAVE"> wave{};
  codec::rest<std::vector<Chunk>> chunks{};  // to the end of the RIFF chunk
  friend bool operator==(const Body&, const Body&) = default;
};

struct File {
  codec::magic<"RIFF"> riff{};
  codec::framed<std::uint32_t, Body> body{};  // the RIFF size: bytes after it
  friend bool operator==(const File&, const File&) = default;
};

/// The start of the "fmt " chunk's data (WAVE_FORMAT_PCM's 16 bytes; longer
/// format structures begin the same way).
struct Format {
  std::uint16_t format_tag{};  // 1: PCM
  std::uint16_t channels{};
  std::uint32_t sample_rate{};
  std::uint32_t byte_rate{};
  std::uint16_t block_align{};
  std::uint16_t bits_per_sample{};
  friend bool operator==(const Format&, const Format&) = default;
};
static_assert(codec::fixed_wire_size<Format> == 16);

/// The first chunk called `id`, if any.
inline const Chunk* find(const File& f, std::string_view id) {
  for (const Chunk& c : f.body->chunks)
    if (std::string_view(c.id.data(), c.id.size()) == id) return &c;
  return nullptr;
}

/// The "fmt " chunk's Format.
inline Format format(const File& f) {
  const Chunk* c = find(f, "fmt ");
  if (!c) throw tilefmt::format_error("no \"fmt \" chunk", 0);
  return codec::decode<Format>(codec::reader(c->data.value));
}

} // namespace wav
