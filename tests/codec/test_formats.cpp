// WAV, PNG, ZIP and ELF declared with the codec (examples/formats/), checked
// against files written by Python's wave, zlib and zipfile modules and by
// struct (tests/data/formats/, made by make_files.py): decoded values equal
// what Python's readers and readelf reported (expected.txt), PNG files that
// Debian packages ship agree with zlib's inflation of their image data, re-encoding
// gives the same bytes, and truncated files, wrong magic, corrupt CRCs,
// pads, header fields and offsets out of range are errors naming the field.
#include "../../examples/formats/elf.hpp"
#include "../../examples/formats/png.hpp"
#include "../../examples/formats/wav.hpp"
#include "../../examples/formats/zip.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "../support/testing.hpp"

namespace test_formats {

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

namespace {
// The bytes PNG's image data holds once inflated, from IHDR alone (PNG
// 7.2, 8.2): per scan line one filter-type byte and ceil(width * bits per
// pixel / 8) bytes; an interlaced image is seven reduced images (Adam7).
std::size_t png_image_bytes(const png::Header& h) {
  static constexpr unsigned channels[] = {1, 0, 3, 1, 2, 0, 4};  // by colour type
  const std::size_t bits = std::size_t{channels[h.colour_type.value]} * h.bit_depth.value;
  const std::size_t w = h.width->value, ht = h.height->value;
  auto image = [&](std::size_t width, std::size_t height) {
    return width == 0 || height == 0 ? 0 : height * (1 + (width * bits + 7) / 8);
  };
  if (h.interlace_method.value == 0) return image(w, ht);
  // Adam7: pass p starts at (x0, y0) and steps (dx, dy).
  static constexpr std::size_t x0[] = {0, 4, 0, 2, 0, 1, 0}, y0[] = {0, 0, 4, 0, 2, 0, 1};
  static constexpr std::size_t dx[] = {8, 8, 4, 4, 2, 2, 1}, dy[] = {8, 8, 8, 4, 4, 2, 2};
  std::size_t total = 0;
  for (int p = 0; p < 7; ++p)
    total += image(w > x0[p] ? (w - x0[p] + dx[p] - 1) / dx[p] : 0, ht > y0[p] ? (ht - y0[p] + dy[p] - 1) / dy[p] : 0);
  return total;
}

// The IDAT chunks' data, concatenated and inflated by zlib; `room` bytes
// of output at most (one more than expected shows data that inflates to more).
std::vector<std::byte> inflate_idat(const png::File& f, std::size_t room) {
  std::vector<std::byte> z;
  for (const auto& c : f.chunks.value)
    if (std::string_view(c.type.data(), 4) == "IDAT") z.insert(z.end(), c.data.begin(), c.data.end());
  std::vector<std::byte> out(room);
  uLongf n = static_cast<uLongf>(out.size());
  const int rc = ::uncompress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(z.data()),
                              static_cast<uLong>(z.size()));
  REQUIRE(rc == Z_OK);
  out.resize(n);
  return out;
}
} // namespace

TEST_CASE("PNG files shipped by Debian packages decode, re-encode byte for byte, and IHDR agrees with zlib") {
  // debconf (required on every Debian system) and git (which fetched this
  // repository) ship these; other systems may not have them.
  std::size_t found = 0;
  for (const char* path : {"/usr/share/pixmaps/debian-logo.png", "/usr/share/gitweb/static/git-logo.png",
                           "/usr/share/gitweb/static/git-favicon.png"}) {
    if (!std::filesystem::is_regular_file(path)) continue;
    ++found;
    const std::string name = path;
    CAPTURE(name);
    auto bytes = file_bytes(path);
    auto file = codec::decode<png::File>(bytes);
    png::Header h = png::header(file);
    // The image data inflates to exactly what the header's size, depth and
    // colour type imply: an independent check of every IHDR field decoded.
    const std::size_t expected_bytes = png_image_bytes(h);
    CHECK(expected_bytes > 0);
    CHECK(inflate_idat(file, expected_bytes + 1).size() == expected_bytes);
    CHECK(std::string_view(file.chunks.value.back().type.data(), 4) == "IEND");
    for (const auto& c : file.chunks.value) {
      uLong crc = ::crc32(0, reinterpret_cast<const Bytef*>(c.type.data()), 4);
      // (zlib's crc32 answers its initial value for a null buffer: IEND's data is empty)
      if (!c.data.empty())
        crc = ::crc32(crc, reinterpret_cast<const Bytef*>(c.data.data()), static_cast<uInt>(c.data.size()));
      CHECK(c.crc.value == crc);
    }
    CHECK(codec::encode(file) == bytes);
    check_every_prefix_throws<png::File>(bytes);
  }
  if (std::filesystem::exists("/etc/debian_version")) CHECK(found >= 1);
  MESSAGE(found << " PNG files of Debian packages checked");
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

namespace {
std::string dos_date(const zip::DosDateTime& t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04u-%02u-%02u", 1980u + t.year_from_1980.value, unsigned(t.month.value),
                unsigned(t.day.value));
  return buf;
}
std::string dos_time(const zip::DosDateTime& t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02u:%02u:%02u", unsigned(t.hour.value), unsigned(t.minute.value),
                2u * t.second_half.value);
  return buf;
}
} // namespace

TEST_CASE("ZIP files written by Python's zipfile: records in sequence, entries by offsets, and byte for byte") {
  const auto all = expected();
  for (const char* name : {"stored.zip", "deflated.zip"}) {
    CAPTURE(name);
    const auto& e = all.at(name);
    auto bytes = file_bytes(dir + name);

    // In sequence: every byte, and back.
    auto file = codec::decode<zip::File>(bytes);
    CHECK(codec::encode(file) == bytes);
    CHECK(codec::encoded_size(file) == bytes.size());
    check_every_prefix_throws<zip::File>(bytes);
    const std::size_t n = number(e, "entries");
    REQUIRE(file.records.size() == 2 * n + 1);

    // As a reader finds them: the end record, the directory at its offset,
    // each local header at its entry's offset.
    zip::Directory d = zip::directory(bytes);
    CHECK(d.end.directory_offset == number(e, "cd_offset"));
    CHECK(d.end.directory_size == number(e, "cd_size"));
    CHECK(d.end.comment.size() == number(e, "comment_bytes"));
    REQUIRE(d.central.size() == n);
    REQUIRE(d.local.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(i);
      const std::string k = std::to_string(i);
      const zip::CentralEntry& c = d.central[i];
      const zip::LocalFile& l = d.local[i];
      CHECK(c.name == e.at("name" + k));
      CHECK(l.name == c.name);
      CHECK(dos_date(c.modified) == e.at("date" + k));
      CHECK(dos_time(c.modified) == e.at("time" + k));
      CHECK(l.modified == c.modified);
      CHECK(c.crc32 == number(e, "crc" + k));
      CHECK(l.crc32 == c.crc32);
      CHECK(c.method == number(e, "method" + k));
      CHECK(c.compressed_size == number(e, "compressed" + k));
      CHECK(l.data.size() == c.compressed_size);
      CHECK(c.uncompressed_size == number(e, "size" + k));
      CHECK(c.local_header_offset == number(e, "offset" + k));
      auto data = zip::contents(l, c.local_header_offset);
      CHECK(data.size() == number(e, "size" + k));
      CHECK(codec::zlib_crc32::compute(data) == number(e, "data_crc" + k));
      // The sequence holds the same records.
      CHECK(std::get<zip::LocalFile>(file.records[i].body.value) == l);
      CHECK(std::get<zip::CentralEntry>(file.records[n + i].body.value) == c);
    }
    CHECK(std::get<zip::EndRecord>(file.records.value.back().body.value) == d.end);

    // Offsets are what update_offsets computes from the records' sizes.
    auto moved = file;
    for (auto& r : moved.records) {
      if (auto* c = std::get_if<zip::CentralEntry>(&r.body.value)) c->local_header_offset = 12345;
      if (auto* end = std::get_if<zip::EndRecord>(&r.body.value)) end->directory_offset = 0;
    }
    zip::update_offsets(moved);
    CHECK(codec::encode(moved) == bytes);
  }
}

TEST_CASE("ZIP: a renamed entry moves the records after it; update_offsets keeps the directory right") {
  auto bytes = file_bytes(dir + "stored.zip");
  auto file = codec::decode<zip::File>(bytes);
  std::get<zip::LocalFile>(file.records[0].body.value).name = "a-much-longer-name.txt";
  std::get<zip::CentralEntry>(file.records[3].body.value).name = "a-much-longer-name.txt";
  auto stale = codec::encode(file);
  CHECK_THROWS_AS((void)zip::directory(stale), format_error);  // the old offsets point into the data
  zip::update_offsets(file);
  auto renamed = codec::encode(file);
  CHECK(renamed.size() == bytes.size() + 2 * (22 - 9));
  auto d = zip::directory(renamed);
  CHECK(d.local[0].name == "a-much-longer-name.txt");
  CHECK(d.local[2].name == "dir/odd.bin");
  CHECK(d.central[2].local_header_offset == number(expected().at("stored.zip"), "offset2") + 13);
}

TEST_CASE("ZIP: bad CRCs, signatures, offsets and counts name the field") {
  auto bytes = file_bytes(dir + "stored.zip");
  const std::size_t cd = number(expected().at("stored.zip"), "cd_offset");
  const std::size_t end = bytes.size() - 22 - number(expected().at("stored.zip"), "comment_bytes");

  // A data byte changed: the CRC-32 of the contents disagrees.
  auto bad = bytes;
  bad[30 + 9] ^= std::byte{1};  // the first byte of hello.txt's data
  auto d = zip::directory(bad);
  auto e = error_of(bad, [&](const auto&) { (void)zip::contents(d.local[0], 0); });
  CHECK(e.field() == "LocalFile.crc32");
  CHECK(e.offset() == 14);
  CHECK(e.reason().starts_with("CRC-32 mismatch"));

  // A record type that is not in the table.
  bad = bytes;
  bad[cd + 2] = std::byte{9};
  e = error_of(bad, [](const auto& b) { (void)codec::decode<zip::File>(b); });
  CHECK(std::string(e.what()) == "File.records[3].body: unknown tag 521 (known: 1027, 513, 1541) at offset " +
                                     std::to_string(cd + 2));
  e = error_of(bad, [](const auto& b) { (void)zip::directory(b); });
  CHECK(e.field() == "CentralAt.signature");
  CHECK(e.offset() == cd);

  // The directory offset past the end record, and an entry's local offset
  // that points at no local header.
  bad = bytes;
  bad[end + 16] = std::byte{0xff};
  e = error_of(bad, [](const auto& b) { (void)zip::directory(b); });
  CHECK(e.field() == "Directory.end.directory_offset");
  CHECK(e.offset() == end + 16);
  bad = bytes;
  bad[cd + 42] = std::byte{1};  // the first entry's local_header_offset: 1
  e = error_of(bad, [](const auto& b) { (void)zip::directory(b); });
  CHECK(e.field() == "Directory.central[0].local_header_offset.LocalAt.signature");
  CHECK(e.offset() == 1);
  bad[cd + 42] = std::byte{0xf0};  // past the end of the file
  bad[cd + 43] = std::byte{0xf0};
  e = error_of(bad, [](const auto& b) { (void)zip::directory(b); });
  CHECK(e.reason().starts_with("offset 61680 is past the end of the input"));

  // More entries than the directory's bytes hold.
  bad = bytes;
  bad[end + 10] = std::byte{0xff};
  e = error_of(bad, [](const auto& b) { (void)zip::directory(b); });
  CHECK(e.field() == "Directory.end.entries");

  // No end record: truncated anywhere in it.
  for (std::size_t cut = end; cut < bytes.size(); ++cut) {
    CAPTURE(cut);
    CHECK_THROWS_AS((void)zip::directory(std::span(bytes).first(cut)), format_error);
  }
}

TEST_CASE("ZIP: dumps show DOS dates as named bit fields") {
  auto d = zip::directory(file_bytes(dir + "stored.zip"));
  std::string t = codec::to_text(d.central[0].modified);
  CHECK(t == "DosDateTime {\n  second_half: 15\n  minute: 45\n  hour: 13\n  day: 17\n  month: 5\n"
             "  year_from_1980: 44\n}");
}

TEST_CASE("ELF files in both byte orders decode to what readelf reads, and re-encode byte for byte") {
  const auto all = expected();
  for (const char* name : {"lsb.elf", "msb.elf"}) {
    CAPTURE(name);
    const auto& e = all.at(name);
    auto bytes = file_bytes(dir + name);
    auto file = codec::decode<elf::File>(bytes);
    CHECK((file.ei_data.value == 1 ? "little" : "big") == e.at("data"));
    CHECK(file.e_type.value == 1);  // REL
    CHECK(e.at("type") == "REL");
    CHECK(file.e_machine.value == (e.at("data") == "little" ? 62 : 22));
    CHECK(file.e_shoff->value == number(e, "shoff"));
    CHECK(file.e_shnum.value == number(e, "shnum"));
    CHECK(file.e_shstrndx.value == number(e, "shstrndx"));
    REQUIRE(file.sections->size() == number(e, "shnum"));
    for (std::size_t i = 1; i < file.sections->size(); ++i) {
      CAPTURE(i);
      const std::string k = "section" + std::to_string(i);
      const elf::SectionHeader& s = file.sections->value[i];
      CHECK(elf::section_name(file, bytes, s) == e.at(k));
      CHECK(s.offset.value == number(e, k + "_offset"));
      CHECK(s.size.value == number(e, k + "_size"));
      CHECK(s.type.value == (e.at(k + "_type") == "STRTAB" ? 3u : 1u));
    }
    CHECK(file.sections.skipped.size() == file.e_shoff->value - 64);
    CHECK(codec::encode(file) == bytes);
    CHECK(codec::encoded_size(file) == bytes.size());
    check_every_prefix_throws<elf::File>(bytes);

    // One section header decoded on its own takes the byte order from the context.
    auto one = codec::decode_at<elf::SectionHeader>(bytes, file.e_shoff->value + 64,
                                                   elf::Context{file.ei_data.value == 1 ? std::endian::little
                                                                                        : std::endian::big});
    CHECK(one == file.sections->value[1]);

    // Section contents grow: e_shoff follows the table on encode.
    auto grown = file;
    grown.sections.skipped.insert(grown.sections.skipped.end(), 8, std::byte{0});
    auto gb = codec::encode(grown);
    auto back = codec::decode<elf::File>(gb);
    CHECK(back.e_shoff->value == file.e_shoff->value + 8);
    CHECK(back.sections->value == file.sections->value);
  }
}

TEST_CASE("ELF: the byte order, the class, the table's offset and entry size are checked, naming the field") {
  auto bytes = file_bytes(dir + "msb.elf");
  auto bad = bytes;
  bad[5] = std::byte{3};
  auto e = error_of(bad, [](const auto& b) { (void)codec::decode<elf::File>(b); });
  CHECK(std::string(e.what()) ==
        "File.ei_data: 3 names no byte order (expected 1 (little-endian) or 2 (big-endian)) at offset 5");
  bad = bytes;
  bad[4] = std::byte{1};
  e = error_of(bad, [](const auto& b) { (void)codec::decode<elf::File>(b); });
  CHECK(std::string(e.what()) == "File.ei_class: 1 is not ELFCLASS64 (2) at offset 4");
  bad = bytes;
  bad[0x28 + 6] = std::byte{0x10};  // e_shoff, big-endian: 0x1078
  e = error_of(bad, [](const auto& b) { (void)codec::decode<elf::File>(b); });
  CHECK(e.field() == "File.sections");
  CHECK(e.offset() == 0x28);
  CHECK(e.reason() == "offset 4216 (field e_shoff) is past the end of the input (376 bytes)");
  bad = bytes;
  bad[0x3b] = std::byte{56};  // e_shentsize
  e = error_of(bad, [](const auto& b) { (void)codec::decode<elf::File>(b); });
  CHECK(std::string(e.what()) == "File.e_shentsize: 56 is not the size of an ELF64 section header (64) at offset 58");
  // The same byte in the other order is the other end of the number.
  bad = bytes;
  bad[0x3c] = std::byte{1};  // e_shnum's high byte: 260 sections
  e = error_of(bad, [](const auto& b) { (void)codec::decode<elf::File>(b); });
  CHECK(e.field().starts_with("File.sections[4]"));
}

TEST_CASE("ELF: the test program itself decodes and re-encodes byte for byte") {
  // The system's linker wrote it, in the host's byte order (big-endian
  // under qemu-s390x).
  auto bytes = file_bytes("/proc/self/exe");
  REQUIRE(bytes.size() > 64);
  auto file = codec::decode<elf::File>(bytes);
  CHECK(file.ei_data.value == (std::endian::native == std::endian::little ? 1 : 2));
  CHECK(file.e_shnum.value == file.sections->size());
  bool text = false;
  for (const auto& s : file.sections->value) text = text || elf::section_name(file, bytes, s) == ".text";
  CHECK(text);
  CHECK(codec::encode(file) == bytes);
}

TEST_CASE("dumps of ELF headers name every field") {
  auto file = codec::decode<elf::File>(file_bytes(dir + "lsb.elf"));
  std::string t = codec::to_text(file);
  CHECK(t.find("ei_magic: \"\\u007fELF\"") != std::string::npos);
  CHECK(t.find("e_shoff: 120") != std::string::npos);
  CHECK(t.find("e_machine: 62") != std::string::npos);
}

} // namespace test_formats
