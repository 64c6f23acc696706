// The example formats (examples/formats/) decoded by the codec, against a
// hand-written parser of the same format in the same run. Each hand parser
// makes the checks the declaration makes (magic bytes, bounds, counts that
// fit, pad bytes zero, CRC-32 by zlib, the ELF header's checked fields) and
// copies the same bytes into owned containers, as a careful C++ parser
// written without the codec would. The goal is a ratio >= 1/1.2: decoding
// through the declarations costs at most 20% over the hand parser.
//
// Inputs are built in memory with many small records, where a generic
// decoder's per-field overhead shows most (large chunks would measure
// memcpy): a WAV of 4,000 odd-sized chunks, a PNG of 4,000 IDAT chunks, a
// ZIP of 1,000 stored files with their central directory, and the ELF
// file of this program.
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "../examples/formats/elf.hpp"
#include "../examples/formats/png.hpp"
#include "../examples/formats/wav.hpp"
#include "../examples/formats/zip.hpp"

#include "ratio.hpp"

namespace codec = tilefmt::codec;

namespace {

// --- inputs ----------------------------------------------------------------

constexpr std::size_t many = 4000;

std::vector<std::byte> bytes_of(std::size_t n, unsigned seed) {
  std::vector<std::byte> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return b;
}

std::vector<std::byte> wav_input() {
  wav::File f;
  wav::Chunk fmt;
  fmt.id = {'f', 'm', 't', ' '};
  fmt.data.value = codec::encode(wav::Format{1, 1, 8000, 16000, 2, 16});
  f.body->chunks.value.push_back(fmt);
  for (std::size_t i = 0; i < many; ++i) {
    wav::Chunk c;
    c.id = {'L', 'I', 'S', 'T'};
    c.data.value = bytes_of(17 + i % 40, static_cast<unsigned>(i));  // odd and even sizes: pad bytes
    f.body->chunks.value.push_back(c);
  }
  return codec::encode(f);
}

std::vector<std::byte> png_input() {
  png::File f;
  png::Chunk ihdr;
  ihdr.type = {'I', 'H', 'D', 'R'};
  png::Header h;
  h.width->value = 640;
  h.height->value = 480;
  h.bit_depth.value = 8;
  h.colour_type.value = 2;
  ihdr.data = codec::encode(h);
  f.chunks.value.push_back(ihdr);
  for (std::size_t i = 0; i < many; ++i) {
    png::Chunk c;
    c.type = {'I', 'D', 'A', 'T'};
    c.data = bytes_of(64 + i % 64, static_cast<unsigned>(i));
    f.chunks.value.push_back(c);
  }
  png::Chunk end;
  end.type = {'I', 'E', 'N', 'D'};
  f.chunks.value.push_back(end);
  return codec::encode(f);
}

std::vector<std::byte> zip_input() {
  constexpr std::size_t files = 1000;
  zip::File f;
  std::vector<zip::CentralEntry> central;
  for (std::size_t i = 0; i < files; ++i) {
    zip::LocalFile l;
    l.version_needed = 20;
    l.name = "folder/file-" + std::to_string(i) + ".txt";
    l.data = bytes_of(20 + i % 100, static_cast<unsigned>(i));
    l.crc32 = codec::zlib_crc32::compute(l.data);
    l.uncompressed_size = static_cast<std::uint32_t>(l.data.size());
    l.modified.day.value = 1 + i % 28;
    l.modified.month.value = 1 + i % 12;
    l.modified.year_from_1980.value = 44;
    zip::CentralEntry c;
    c.version_made_by = 0x031e;
    c.version_needed = 20;
    c.modified = l.modified;
    c.crc32 = l.crc32;
    c.compressed_size = c.uncompressed_size = l.uncompressed_size;
    c.name = l.name;
    c.external_attributes = 0x81a40000u;
    f.records.value.push_back({{}, {l}});
    central.push_back(c);
  }
  for (auto& c : central) f.records.value.push_back({{}, {c}});
  f.records.value.push_back({{}, {zip::EndRecord{}}});
  zip::update_offsets(f);
  return codec::encode(f);
}

std::vector<std::byte> elf_input() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(chars.size());
  std::memcpy(b.data(), chars.data(), chars.size());
  return b;
}

// --- hand-written parsers --------------------------------------------------

[[noreturn]] void fail(const char* what) { throw std::runtime_error(what); }

// A bounds-checked cursor, as a hand parser would keep one. The hand parsers
// fill the example formats' own structs, so that the two sides build the
// same objects and the comparison measures the decoding alone.
struct cursor {
  const std::byte* p;
  const std::byte* end;
  const std::byte* take(std::size_t n) {
    if (static_cast<std::size_t>(end - p) < n) fail("truncated");
    const std::byte* at = p;
    p += n;
    return at;
  }
  template <class T>
  T le() { return codec::load_le<T>(take(sizeof(T))); }
  template <class T>
  T be() { return codec::load_be<T>(take(sizeof(T))); }
  std::size_t left() const { return static_cast<std::size_t>(end - p); }
};

std::vector<std::byte> copy(const std::byte* p, std::size_t n) { return std::vector<std::byte>(p, p + n); }

wav::File hand_wav(std::span<const std::byte> in) {
  cursor c{in.data(), in.data() + in.size()};
  if (std::memcmp(c.take(4), "RIFF", 4) != 0) fail("riff");
  const std::uint32_t size = c.le<std::uint32_t>();
  if (size != c.left()) fail("riff size");
  if (std::memcmp(c.take(4), "WAVE", 4) != 0) fail("wave");
  wav::File f;
  auto& chunks = f.body.value.chunks.value;
  while (c.left() > 0) {
    wav::Chunk& ch = chunks.emplace_back();
    std::memcpy(ch.id.data(), c.take(4), 4);
    const std::uint32_t n = c.le<std::uint32_t>();
    ch.data.value = copy(c.take(n), n);
    if (n % 2 != 0 && *c.take(1) != std::byte{0}) fail("pad");
  }
  return f;
}

png::File hand_png(std::span<const std::byte> in) {
  cursor c{in.data(), in.data() + in.size()};
  if (std::memcmp(c.take(8), "\x89PNG\r\n\x1a\n", 8) != 0) fail("signature");
  png::File f;
  for (bool end = false; !end;) {
    png::Chunk& ch = f.chunks.value.emplace_back();
    const std::uint32_t n = c.be<std::uint32_t>();
    ch.length.value.value = n;
    const std::byte* type = c.take(4);
    std::memcpy(ch.type.data(), type, 4);
    ch.data = copy(c.take(n), n);
    ch.crc.value = c.be<std::uint32_t>();
    // The CRC covers the type and the data, which lie next to each other.
    if (::crc32(0, reinterpret_cast<const Bytef*>(type), static_cast<uInt>(4 + n)) != ch.crc.value) fail("crc");
    end = std::memcmp(ch.type.data(), "IEND", 4) == 0;
  }
  if (c.left() != 0) fail("trailing bytes");
  return f;
}

// png::header's checks, by hand.
png::Header hand_png_header(const png::File& f) {
  const auto& chunks = f.chunks.value;
  if (chunks.empty() || std::memcmp(chunks[0].type.data(), "IHDR", 4) != 0) fail("ihdr");
  const auto& d = chunks[0].data;
  if (d.size() != 13) fail("ihdr size");
  png::Header h;
  h.width.value.value = codec::load_be<std::uint32_t>(d.data());
  h.height.value.value = codec::load_be<std::uint32_t>(d.data() + 4);
  h.bit_depth.value = std::to_integer<std::uint8_t>(d[8]);
  h.colour_type.value = std::to_integer<std::uint8_t>(d[9]);
  h.compression_method.value = std::to_integer<std::uint8_t>(d[10]);
  h.filter_method.value = std::to_integer<std::uint8_t>(d[11]);
  h.interlace_method.value = std::to_integer<std::uint8_t>(d[12]);
  if (!png::NonZero{}(h.width.value.value) || !png::NonZero{}(h.height.value.value) ||
      !png::BitDepth{}(h.bit_depth.value) || !png::ColourType{}(h.colour_type.value) ||
      h.compression_method.value != 0 || h.filter_method.value != 0 || h.interlace_method.value > 1)
    fail("ihdr field");
  return h;
}

void dos(zip::DosDateTime& d, std::uint16_t time, std::uint16_t date) {
  d.second_half.value = static_cast<std::uint8_t>(time & 31);
  d.minute.value = static_cast<std::uint8_t>((time >> 5) & 63);
  d.hour.value = static_cast<std::uint8_t>(time >> 11);
  d.day.value = static_cast<std::uint8_t>(date & 31);
  d.month.value = static_cast<std::uint8_t>((date >> 5) & 15);
  d.year_from_1980.value = static_cast<std::uint8_t>(date >> 9);
}

std::string text(cursor& c, std::size_t n) {
  const auto* p = c.take(n);
  return std::string(reinterpret_cast<const char*>(p), n);
}

zip::File hand_zip(std::span<const std::byte> in) {
  cursor c{in.data(), in.data() + in.size()};
  zip::File f;
  auto& records = f.records.value;
  for (bool end = false; !end;) {
    if (std::memcmp(c.take(2), "PK", 2) != 0) fail("pk");
    auto& body = records.emplace_back().body.value;
    const std::uint16_t type = c.le<std::uint16_t>();
    if (type == 0x0403) {
      auto& l = body.emplace<zip::LocalFile>();
      l.version_needed = c.le<std::uint16_t>();
      l.flags = c.le<std::uint16_t>();
      l.method = c.le<std::uint16_t>();
      const auto time = c.le<std::uint16_t>();
      dos(l.modified, time, c.le<std::uint16_t>());
      l.crc32 = c.le<std::uint32_t>();
      l.compressed_size.value = c.le<std::uint32_t>();
      l.uncompressed_size = c.le<std::uint32_t>();
      l.name_length.value = c.le<std::uint16_t>();
      l.extra_length.value = c.le<std::uint16_t>();
      l.name = text(c, l.name_length.value);
      l.extra = copy(c.take(l.extra_length.value), l.extra_length.value);
      l.data = copy(c.take(l.compressed_size.value), l.compressed_size.value);
    } else if (type == 0x0201) {
      auto& e = body.emplace<zip::CentralEntry>();
      e.version_made_by = c.le<std::uint16_t>();
      e.version_needed = c.le<std::uint16_t>();
      e.flags = c.le<std::uint16_t>();
      e.method = c.le<std::uint16_t>();
      const auto time = c.le<std::uint16_t>();
      dos(e.modified, time, c.le<std::uint16_t>());
      e.crc32 = c.le<std::uint32_t>();
      e.compressed_size = c.le<std::uint32_t>();
      e.uncompressed_size = c.le<std::uint32_t>();
      e.name_length.value = c.le<std::uint16_t>();
      e.extra_length.value = c.le<std::uint16_t>();
      e.comment_length.value = c.le<std::uint16_t>();
      e.disk_start = c.le<std::uint16_t>();
      e.internal_attributes = c.le<std::uint16_t>();
      e.external_attributes = c.le<std::uint32_t>();
      e.local_header_offset = c.le<std::uint32_t>();
      e.name = text(c, e.name_length.value);
      e.extra = copy(c.take(e.extra_length.value), e.extra_length.value);
      e.comment = text(c, e.comment_length.value);
    } else if (type == 0x0605) {
      auto& e = body.emplace<zip::EndRecord>();
      e.disk = c.le<std::uint16_t>();
      e.directory_disk = c.le<std::uint16_t>();
      e.entries_on_disk = c.le<std::uint16_t>();
      e.entries = c.le<std::uint16_t>();
      e.directory_size = c.le<std::uint32_t>();
      e.directory_offset = c.le<std::uint32_t>();
      e.comment.value = text(c, c.le<std::uint16_t>());
      end = true;
    } else {
      fail("record type");
    }
  }
  if (c.left() != 0) fail("trailing bytes");
  return f;
}

template <bool Big>
struct elf_reader {
  cursor& c;
  template <class T>
  T get() { return Big ? c.be<T>() : c.le<T>(); }
};

template <bool Big>
void hand_elf_rest(cursor& c, std::span<const std::byte> in, elf::File& e) {
  elf_reader<Big> r{c};
  e.e_type.value = r.template get<std::uint16_t>();
  e.e_machine.value = r.template get<std::uint16_t>();
  e.e_version.value = r.template get<std::uint32_t>();
  e.e_entry.value = r.template get<std::uint64_t>();
  e.e_phoff.value = r.template get<std::uint64_t>();
  e.e_shoff.value.value = r.template get<std::uint64_t>();
  e.e_flags.value = r.template get<std::uint32_t>();
  e.e_ehsize.value = r.template get<std::uint16_t>();
  e.e_phentsize.value = r.template get<std::uint16_t>();
  e.e_phnum.value = r.template get<std::uint16_t>();
  e.e_shentsize.value.value = r.template get<std::uint16_t>();
  if (e.e_shentsize.value.value != 64) fail("e_shentsize");
  e.e_shnum.value = r.template get<std::uint16_t>();
  e.e_shstrndx.value = r.template get<std::uint16_t>();
  const std::size_t here = static_cast<std::size_t>(c.p - in.data());
  const std::uint64_t shoff = e.e_shoff.value.value;
  if (shoff < here || shoff > in.size()) fail("e_shoff");
  const std::size_t gap = static_cast<std::size_t>(shoff) - here;
  e.sections.skipped = copy(c.take(gap), gap);
  const std::size_t n = e.e_shnum.value;
  if (n > c.left() / 64) fail("e_shnum");
  auto& sections = e.sections.value.value;
  sections.resize(n);
  for (auto& s : sections) {
    s.name.value = r.template get<std::uint32_t>();
    s.type.value = r.template get<std::uint32_t>();
    s.flags.value = r.template get<std::uint64_t>();
    s.addr.value = r.template get<std::uint64_t>();
    s.offset.value = r.template get<std::uint64_t>();
    s.size.value = r.template get<std::uint64_t>();
    s.link.value = r.template get<std::uint32_t>();
    s.info.value = r.template get<std::uint32_t>();
    s.addralign.value = r.template get<std::uint64_t>();
    s.entsize.value = r.template get<std::uint64_t>();
  }
  e.trailing.value = copy(c.p, c.left());
}

elf::File hand_elf(std::span<const std::byte> in) {
  cursor c{in.data(), in.data() + in.size()};
  elf::File e;
  if (std::memcmp(c.take(4), "\x7f" "ELF", 4) != 0) fail("magic");
  e.ei_class.value = c.le<std::uint8_t>();
  if (e.ei_class.value != 2) fail("class");
  e.ei_data.value = c.le<std::uint8_t>();
  if (e.ei_data.value != 1 && e.ei_data.value != 2) fail("data");
  e.ei_version.value = c.le<std::uint8_t>();
  if (e.ei_version.value != 1) fail("version");
  e.ei_osabi = c.le<std::uint8_t>();
  e.ei_abiversion = c.le<std::uint8_t>();
  const std::byte* pad = c.take(7);
  for (int i = 0; i < 7; ++i)
    if (pad[i] != std::byte{0}) fail("pad");
  if (e.ei_data.value == 2)
    hand_elf_rest<true>(c, in, e);
  else
    hand_elf_rest<false>(c, in, e);
  return e;
}

// --- benchmarks ------------------------------------------------------------

template <class Decode>
void run(benchmark::State& state, const std::vector<std::byte>& in, Decode decode) {
  for (auto _ : state) {
    auto out = decode(in);
    benchmark::DoNotOptimize(&out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

// Both sides must agree on what they read, or the comparison means nothing.
void agree(bool same, const char* format) {
  if (!same) throw std::logic_error(std::string(format) + ": the hand parser and the codec disagree");
}

void check_inputs() {
  {
    auto in = wav_input();
    agree(codec::decode<wav::File>(in) == hand_wav(in), "WAV");
  }
  {
    auto in = png_input();
    auto a = codec::decode<png::File>(in);
    auto b = hand_png(in);
    agree(a == b && png::header(a) == hand_png_header(b), "PNG");
  }
  {
    auto in = zip_input();
    agree(codec::decode<zip::File>(in) == hand_zip(in), "ZIP");
  }
  {
    auto in = elf_input();
    agree(codec::decode<elf::File>(in) == hand_elf(in), "ELF");
  }
}

void hand_parser_wav(benchmark::State& s) { run(s, wav_input(), [](const auto& b) { return hand_wav(b); }); }
void codec_wav(benchmark::State& s) { run(s, wav_input(), [](const auto& b) { return codec::decode<wav::File>(b); }); }
void hand_parser_png(benchmark::State& s) {
  run(s, png_input(), [](const auto& b) {
    auto f = hand_png(b);
    (void)hand_png_header(f);
    return f;
  });
}
void codec_png(benchmark::State& s) {
  run(s, png_input(), [](const auto& b) {
    auto f = codec::decode<png::File>(b);
    (void)png::header(f);
    return f;
  });
}
void hand_parser_zip(benchmark::State& s) { run(s, zip_input(), [](const auto& b) { return hand_zip(b); }); }
void codec_zip(benchmark::State& s) { run(s, zip_input(), [](const auto& b) { return codec::decode<zip::File>(b); }); }
void hand_parser_elf(benchmark::State& s) { run(s, elf_input(), [](const auto& b) { return hand_elf(b); }); }
void codec_elf(benchmark::State& s) { run(s, elf_input(), [](const auto& b) { return codec::decode<elf::File>(b); }); }

} // namespace

BENCHMARK(hand_parser_wav)->Unit(benchmark::kMicrosecond);
BENCHMARK(codec_wav)->Unit(benchmark::kMicrosecond);
BENCHMARK(hand_parser_png)->Unit(benchmark::kMicrosecond);
BENCHMARK(codec_png)->Unit(benchmark::kMicrosecond);
BENCHMARK(hand_parser_zip)->Unit(benchmark::kMicrosecond);
BENCHMARK(codec_zip)->Unit(benchmark::kMicrosecond);
BENCHMARK(hand_parser_elf)->Unit(benchmark::kMicrosecond);
BENCHMARK(codec_elf)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
  check_inputs();
  constexpr double goal = 1.0 / 1.2;  // within 1.2x of the hand parser
  return tilefmt::bench::run_and_compare(argc, argv,
                                         {
                                             {"codec_wav", "hand_parser_wav", goal},
                                             {"codec_png", "hand_parser_png", goal},
                                             {"codec_zip", "hand_parser_zip", goal},
                                             {"codec_elf", "hand_parser_elf", goal},
                                         });
}
