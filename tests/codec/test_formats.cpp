// WAV and PNG declared with the codec (examples/formats/), checked against
// files written by Python's wave and zlib modules (tests/data/formats/,
// made by make_files.py): decoded values equal what Python's readers
// reported (expected.txt), re-encoding gives the same bytes, and truncated
// files, wrong magic and corrupt CRCs, pads and header fields are errors
// naming the field.
#include "../../examples/formats/png.hpp"
#include "../../examples/formats/wav.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "../support/testing.hpp"

using namespace tilefmt;
using tilefmt::testing::check_every_prefix_throws;
using tilefmt::testing::file_bytes;

namespace {
const std::string dir = std::string(TILEFMT_TEST_DATA) + "/formats/";

// expected.txt: `file key value` per line.
std::map<std::string, std::map<std::string, std::string>> expected() {
  std::ifstream in(dir + "expected.txt");
  REQUIRE(in.good());
  std::map<std::string, std::map<std::string, std::string>> m;
  std::string file, key, value;
  while (in >> file >> key >> value) m[file][key] = value;
  REQUIRE(!m.empty());
  return m;
}

std::uint64_t number(const std::map<std::string, std::string>& e, const std::string& key) {
  auto it = e.find(key);
  REQUIRE(it != e.end());
  return std::stoull(it->second);
}

template <class F>
format_error error_of(const std::vector<std::byte>& b, F&& decode) {
  try {
    decode(b);
  } catch (const format_error& e) {
    return e;
  }
  FAIL("decoded corrupt bytes");
  return format_error("", 0);
}
} // namespace

TEST_CASE("WAV files written by Python decode to what Python's wave module reads, and re-encode byte for byte") {
  const auto all = expected();
  for (const char* name : {"mono16.wav", "stereo8.wav", "info_odd.wav"}) {
    CAPTURE(name);
    const auto& e = all.at(name);
    auto bytes = file_bytes(dir + name);
    auto file = codec::decode<wav::File>(bytes);
    wav::Format fmt = wav::format(file);
    CHECK(fmt.format_tag == 1);
    CHECK(fmt.channels == number(e, "channels"));
    CHECK(fmt.bits_per_sample == 8 * number(e, "sample_width"));
    CHECK(fmt.sample_rate == number(e, "frame_rate"));
    const wav::Chunk* data = wav::find(file, "data");
    REQUIRE(data != nullptr);
    CHECK(data->data.size() == number(e, "data_bytes"));
    CHECK(data->data.size() / fmt.block_align == number(e, "frames"));
    CHECK(codec::zlib_crc32::compute(data->data.value) == number(e, "data_crc32"));
    CHECK(codec::encode(file) == bytes);
    CHECK(codec::encoded_size(file) == bytes.size());
    check_every_prefix_throws<wav::File>(bytes);
  }
}

TEST_CASE("WAV chunks of odd length are padded, and the pad byte is checked") {
  auto bytes = file_bytes(dir + "info_odd.wav");
  auto file = codec::decode<wav::File>(bytes);
  REQUIRE(file.body->chunks.size() == 3);
  CHECK(file.body->chunks[1].data.size() == 18);     // LIST: "INFO" and an INAM chunk of 5 bytes and a pad byte
  CHECK(file.body->chunks[2].data.size() % 2 == 1);  // data, 7 bytes and a pad byte
  CHECK(bytes.size() == 12 + (8 + 16) + (8 + 18) + (8 + 7 + 1));
  // A RIFF chunk inside a chunk: the same declaration reads the LIST body.
  struct List {
    codec::magic<"INFO"> info{};
    codec::rest<std::vector<wav::Chunk>> items{};
  };
  auto list = codec::decode<List>(file.body->chunks[1].data.value);
  REQUIRE(list.items.size() == 1);
  CHECK(list.items[0].data.size() == 5);

  auto bad = bytes;
  bad.back() = std::byte{1};
  auto e = error_of(bad, [](const auto& b) { (void)codec::decode<wav::File>(b); });
  CHECK(e.field() == "File.body.chunks[2].pad");
  CHECK(e.offset() == bytes.size() - 1);

  // Python's wave module writes odd data without the pad byte RIFF requires.
  auto unpadded = file_bytes(dir + "odd_unpadded.wav");
  e = error_of(unpadded, [](const auto& b) { (void)codec::decode<wav::File>(b); });
  CHECK(e.field() == "File.body.chunks[1].pad");
  CHECK(std::string(e.what()) == "File.body.chunks[1].pad: needs 1 bytes at offset 51, 0 left");
}

TEST_CASE("WAV: a wrong magic or a RIFF size that disagrees names the field") {
  auto bytes = file_bytes(dir + "mono16.wav");
  auto bad = bytes;
  bad[3] = std::byte{'X'};
  auto e = error_of(bad, [](const auto& b) { (void)codec::decode<wav::File>(b); });
  CHECK(std::string(e.what()) == "File.riff: expected magic \"RIFF\" (52494646), found \"RIFX\" (52494658) at offset 0");
  bad = bytes;
  bad[8] = std::byte{'w'};
  e = error_of(bad, [](const auto& b) { (void)codec::decode<wav::File>(b); });
  CHECK(e.field() == "File.body.wave");
  CHECK(e.offset() == 8);
  bad = bytes;
  bad[4] = static_cast<std::byte>(std::to_integer<unsigned>(bad[4]) + 1);  // one byte more than the file holds
  CHECK_THROWS_AS(codec::decode<wav::File>(bad), format_error);
}

TEST_CASE("PNG files written with Python's zlib decode to what Python reported, and re-encode byte for byte") {
  const auto all = expected();
  for (const char* name : {"gray8.png", "palette4.png", "rgb16.png"}) {
    CAPTURE(name);
    const auto& e = all.at(name);
    auto bytes = file_bytes(dir + name);
    auto file = codec::decode<png::File>(bytes);
    png::Header h = png::header(file);
    CHECK(h.width->value == number(e, "width"));
    CHECK(h.height->value == number(e, "height"));
    CHECK(h.bit_depth.value == number(e, "bit_depth"));
    CHECK(h.colour_type.value == number(e, "colour_type"));
    CHECK(h.compression_method.value == number(e, "compression_method"));
    CHECK(h.filter_method.value == number(e, "filter_method"));
    CHECK(h.interlace_method.value == number(e, "interlace_method"));
    std::string types;
    for (std::size_t i = 0; i < file.chunks.size(); ++i) {
      types += (i ? "," : "") + std::string(file.chunks[i].type.data(), 4);
      CHECK(file.chunks[i].crc.value == number(e, "crc" + std::to_string(i)));
    }
    CHECK(types == e.at("chunks"));
    CHECK(codec::encode(file) == bytes);
    CHECK(codec::encoded_size(file) == bytes.size());
    check_every_prefix_throws<png::File>(bytes);
  }
}

TEST_CASE("PNG: every corrupt byte of a chunk's type, data or CRC is caught, naming the chunk's crc") {
  auto bytes = file_bytes(dir + "palette4.png");
  auto file = codec::decode<png::File>(bytes);
  std::size_t at = 8;
  for (std::size_t k = 0; k < file.chunks.size(); ++k) {
    const std::size_t len = file.chunks[k].data.size();
    for (std::size_t i = at + 4; i < at + 12 + len; ++i) {
      CAPTURE(i);
      auto bad = bytes;
      bad[i] ^= std::byte{0x10};
      auto e = error_of(bad, [](const auto& b) { (void)codec::decode<png::File>(b); });
      const bool in_type = i < at + 8;
      // A changed type can turn a chunk into IEND, which ends the file early.
      if (in_type && e.reason().find("trailing") != std::string::npos) continue;
      CHECK(e.field() == "File.chunks[" + std::to_string(k) + "].crc");
      CHECK(e.offset() == at + 8 + len);
      CHECK(e.reason().starts_with("CRC-32 mismatch"));
    }
    at += 12 + len;
  }
  CHECK(at == bytes.size());
}

TEST_CASE("PNG: a wrong signature, a missing IEND, trailing bytes and bad IHDR fields name the field") {
  auto bytes = file_bytes(dir + "gray8.png");
  auto bad = bytes;
  bad[1] = std::byte{'p'};
  auto e = error_of(bad, [](const auto& b) { (void)codec::decode<png::File>(b); });
  CHECK(std::string(e.what()) == "File.signature: expected magic \"\\u0089PNG\\r\\n\\u001a\\n\" (89504e470d0a1a0a), "
                                 "found \"\\u0089pNG\\r\\n\\u001a\\n\" (89704e470d0a1a0a) at offset 0");
  CHECK(e.field() == "File.signature");
  CHECK(e.offset() == 0);

  auto no_end = std::vector<std::byte>(bytes.begin(), bytes.end() - 12);  // without IEND
  e = error_of(no_end, [](const auto& b) { (void)codec::decode<png::File>(b); });
  CHECK(e.field() == "File.chunks");
  CHECK(e.offset() == no_end.size());

  auto trailing = bytes;
  trailing.push_back(std::byte{0});
  CHECK_THROWS_AS(codec::decode<png::File>(trailing), format_error);

  // A bit depth of 3, with the CRC recomputed so that only IHDR's rule fails.
  auto file = codec::decode<png::File>(bytes);
  file.chunks[0].data[8] = std::byte{3};
  auto relabelled = codec::encode(file);
  auto again = codec::decode<png::File>(relabelled);
  try {
    (void)png::header(again);
    FAIL("accepted a bit depth of 3");
  } catch (const format_error& err) {
    CHECK(std::string(err.what()) ==
          "File.chunks[0].data.Header.bit_depth: 3 is not a PNG bit depth (1, 2, 4, 8 or 16) at offset 24");
  }
}

TEST_CASE("dumps of decoded files name every field") {
  auto file = codec::decode<png::File>(file_bytes(dir + "gray8.png"));
  std::string t = codec::to_text(png::header(file));
  CHECK(t == "Header {\n  width: 5\n  height: 3\n  bit_depth: 8\n  colour_type: 0\n  compression_method: 0\n"
             "  filter_method: 0\n  interlace_method: 0\n}");
  std::string w = codec::to_text(codec::decode<wav::File>(file_bytes(dir + "info_odd.wav")));
  CHECK(w.find("riff: \"RIFF\"") != std::string::npos);
  CHECK(w.find("wave: \"WAVE\"") != std::string::npos);
  CHECK(w.find("pad: 1") != std::string::npos);
}
