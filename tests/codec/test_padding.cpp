// pad<N>, align<N> and file_align<N>: exact bytes, alignment relative to the
// enclosing struct wherever that struct starts or to the buffer's start, zero
// checks and their opt-out, truncation, sizes at a position and dumps.
#include "tilefmt/codec/padding.hpp"

#include <string>
#include <vector>

#include "../support/testing.hpp"

namespace test_padding {

using namespace tilefmt;
using tilefmt::testing::bytes_of;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::check_round_trip;

namespace {
struct Padded {
  std::uint8_t a;
  codec::pad<3> reserved{};
  std::uint32_t b;
  friend bool operator==(const Padded&, const Padded&) = default;
};
static_assert(codec::fixed_wire_size<Padded> == 8);

struct Lenient {
  std::uint8_t a;
  codec::pad<2, codec::pad_bytes::any> reserved{};
};

// A RIFF-style chunk: data padded to an even length.
struct Chunk {
  std::array<char, 4> id;
  codec::counted<std::uint32_t, std::vector<std::byte>> data;
  codec::align<2> pad{};
  friend bool operator==(const Chunk&, const Chunk&) = default;
};

struct Aligned4 {
  codec::counted<std::uint8_t, std::string> name;
  codec::align<4> to4{};
  std::uint32_t value;
  codec::align<8, codec::pad_bytes::any> to8{};
  friend bool operator==(const Aligned4&, const Aligned4&) = default;
};

// The inner structs start at odd offsets: their alignment counts from their
// own start, not from the buffer's.
struct Outer {
  std::uint8_t lead;
  Aligned4 first;
  codec::counted<std::uint16_t, std::vector<Chunk>> chunks;
  friend bool operator==(const Outer&, const Outer&) = default;
};
// Entries aligned to the file, as formats with absolute alignment have them:
// the same entry pads differently at different offsets.
struct FileEntry {
  codec::counted<std::uint8_t, std::string> name;
  codec::file_align<4> pad{};
  std::uint32_t value;
  friend bool operator==(const FileEntry&, const FileEntry&) = default;
};
struct FileTable {
  std::uint8_t lead;
  codec::counted<std::uint16_t, std::vector<FileEntry>> entries;
  friend bool operator==(const FileTable&, const FileTable&) = default;
};
struct Framed {
  std::uint8_t lead;
  codec::framed<std::uint8_t, FileEntry> entry;
  friend bool operator==(const Framed&, const Framed&) = default;
};
} // namespace

TEST_CASE("pad<N> writes zeros, checks them by default and skips them when asked") {
  Padded p{1, {}, 0x05060708};
  auto b = check_round_trip(p);
  CHECK(b == bytes_of({1, 0, 0, 0, 8, 7, 6, 5}));
  check_every_prefix_throws<Padded>(b);
  auto bad = b;
  bad[2] = std::byte{0x5a};
  CHECK_THROWS_WITH_AS(codec::decode<Padded>(bad), "Padded.reserved: padding byte is 0x5a, not zero at offset 2",
                       format_error);

  auto lb = bytes_of({9, 0xff, 0x01});
  Lenient l = codec::decode<Lenient>(lb);
  CHECK(l.a == 9);
  CHECK(codec::encode(l) == bytes_of({9, 0, 0})); // documented: any bytes are replaced by zeros
  CHECK_THROWS_AS(codec::decode<Lenient>(bytes_of({9, 0})), format_error);
}

TEST_CASE("align<N> pads to a multiple of N from the start of the enclosing struct") {
  for (std::size_t len = 0; len < 12; ++len) {
    CAPTURE(len);
    Chunk c{{'d', 'a', 't', 'a'}, {std::vector<std::byte>(len, std::byte{0xab})}, {}};
    auto b = check_round_trip(c);
    CHECK(b.size() == 8 + len + len % 2);
    if (len % 2) CHECK(b.back() == std::byte{0});
    check_every_prefix_throws<Chunk>(b);

    Aligned4 a{{std::string(len, 'x')}, {}, 0x11223344, {}};
    auto ab = check_round_trip(a);
    const std::size_t value_at = (1 + len + 3) / 4 * 4;
    CHECK(codec::decode<std::uint32_t>(std::span<const std::byte>(ab).subspan(value_at, 4)) == 0x11223344u);
    CHECK(ab.size() == (value_at + 4 + 7) / 8 * 8);
    check_every_prefix_throws<Aligned4>(ab);
  }
}

TEST_CASE("alignment inside nested structs counts from each struct's own start") {
  Outer o{7,
          {{"abc"}, {}, 42, {}},
          {{Chunk{{'a', 'b', 'c', 'd'}, {{std::byte{1}}}, {}}, Chunk{{'e', 'f', 'g', 'h'}, {{}}, {}}}}};
  auto b = check_round_trip(o);
  // lead | "abc" with its length (4 bytes, aligned already) | 42 | 0 to reach 8
  // | count | chunk 1: 8 + 1 + 1 pad | chunk 2: 8
  CHECK(b.size() == 1 + 8 + 2 + 10 + 8);
  CHECK(b == bytes_of({7, 3, 'a', 'b', 'c', 42, 0, 0, 0, 2, 0, 'a', 'b', 'c', 'd', 1, 0, 0, 0, 1, 0,
                       'e', 'f', 'g', 'h', 0, 0, 0, 0}));
  check_every_prefix_throws<Outer>(b);
  auto bad = b;
  bad[20] = std::byte{3}; // the pad byte of chunk 1
  CHECK_THROWS_WITH_AS(codec::decode<Outer>(bad), "Outer.chunks[0].pad: padding byte is 0x03, not zero at offset 20",
                       format_error);
}

TEST_CASE("a truncated alignment names the field") {
  auto b = bytes_of({'a', 'b', 'c', 'd', 1, 0, 0, 0, 0x10});
  CHECK_THROWS_WITH_AS(codec::decode<Chunk>(b), "Chunk.pad: needs 1 bytes at offset 9, 0 left", format_error);
}

TEST_CASE("dumps name padding fields and show how many bytes they take") {
  Aligned4 a{{"ab"}, {}, 5, {}};
  CHECK(codec::to_text(a) == "Aligned4 {\n  name: \"ab\"\n  to4: 1\n  value: 5\n  to8: 0\n}");
  Padded p{1, {}, 2};
  CHECK(codec::to_json(p) == "{\n  \"a\": 1,\n  \"reserved\": 3,\n  \"b\": 2\n}");
}

TEST_CASE("file_align<N> pads to a multiple of N from the start of the buffer, wherever its struct sits") {
  FileTable t{7, {{FileEntry{{"ab"}, {}, 1}, FileEntry{{"c"}, {}, 2}}}};
  auto b = check_round_trip(t);
  // lead | count | "ab" (3 bytes from offset 3) + 2 to reach 8 | 1 | "c" (2 bytes from 12) + 2 to reach 16 | 2
  CHECK(b == bytes_of({7, 2, 0, 2, 'a', 'b', 0, 0, 1, 0, 0, 0, 1, 'c', 0, 0, 2, 0, 0, 0}));
  CHECK(codec::encoded_size(t) == 20);
  check_every_prefix_throws<FileTable>(b);
  // The same entries at another place in a file pad differently.
  CHECK(codec::encoded_size_at(t, 1) == 19);
  std::vector<std::byte> file(1 + 19, std::byte{0xee});
  codec::writer w(file);
  w.write<std::uint8_t>(0xee);
  codec::encode_into(t, w);
  CHECK(w.offset() == file.size());
  CHECK(file == bytes_of({0xee, 7, 2, 0, 2, 'a', 'b', 0, 1, 0, 0, 0, 1, 'c', 0, 0, 2, 0, 0, 0}));
  CHECK(codec::decode_at<FileTable>(file, 1) == t);
  for (std::size_t at = 0; at < 8; ++at) {
    CAPTURE(at);
    std::vector<std::byte> out(at + codec::encoded_size_at(t, at));
    codec::writer wa(out);
    wa.reserve(at);
    codec::encode_into(t, wa);
    CHECK(wa.offset() == out.size());
    CHECK(codec::decode_at<FileTable>(out, at) == t);
  }
  // A non-zero padding byte names the entry and the byte's offset in the buffer.
  auto bad = b;
  bad[14] = std::byte{9};
  CHECK_THROWS_WITH_AS(codec::decode<FileTable>(bad),
                       "FileTable.entries[1].pad: padding byte is 0x09, not zero at offset 14", format_error);
  // Dumps show each entry's padding at its place.
  const std::string text = codec::to_text(t);
  CHECK(text.find("pad: 2") != std::string::npos);
  CHECK(text.find("pad: 0") == std::string::npos);
  // ("abc" from offset 3, after the count: 1 byte to reach 8)
  CHECK(codec::to_text(FileTable{0, {{FileEntry{{"abc"}, {}, 1}}}}).find("pad: 1") != std::string::npos);
}

TEST_CASE("file_align<N> inside a frame counts from the buffer too, and sizes the frame so") {
  Framed f{5, {FileEntry{{"abcd"}, {}, 3}}};
  auto b = check_round_trip(f);
  // lead | frame length | "abcd" from offset 2 to 7 + 1 to reach 8 | 3
  CHECK(b == bytes_of({5, 10, 4, 'a', 'b', 'c', 'd', 0, 3, 0, 0, 0}));
  check_every_prefix_throws<Framed>(b);
  CHECK(codec::encoded_size_at(f, 2) == 14);  // "abcd" from 4 to 9, 3 to reach 12, the value
  CHECK(codec::to_text(f).find("pad: 1") != std::string::npos);
}

} // namespace test_padding
