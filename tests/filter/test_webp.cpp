// The WEBP filter: its 12-byte options (the C struct with its padding) read
// and written with or without libwebp; without it, filtering throws
// unsupported_filter; with it, images round-trip (lossless exactly), and
// tiles TileDB wrote (tests/data/webp, lossy and lossless) decode to the
// bytes TileDB reads back.
#include "tilefmt/filter/webp.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "../support/testing.hpp"

namespace test_webp {

using namespace tilefmt;
using tilefmt::testing::hex_bytes;
using D = format::Datatype;

namespace {

struct rgba_4x16 {
  static constexpr float quality = 50.0f;
  static constexpr filter::webp_format format = filter::webp_format::rgba;
  static constexpr bool lossless = true;
  static constexpr std::uint16_t y_extent = 4;
  static constexpr std::uint16_t x_extent = 16;
};

#if TILEFMT_HAVE_WEBP
struct rgb_lossy {
  static constexpr float quality = 80.0f;
  static constexpr filter::webp_format format = filter::webp_format::rgb;
  static constexpr bool lossless = false;
  static constexpr std::uint16_t y_extent = 32;
  static constexpr std::uint16_t x_extent = 96;
};

std::vector<std::byte> read_file(const std::filesystem::path& p) { return tilefmt::testing::file_bytes(p); }

/// A WEBP pipeline as a schema stores it (chunking on: the writer still
/// makes one chunk per tile).
filter::runtime_pipeline webp_pipeline(const filter::webp<>& w, std::uint32_t version) {
  format::FilterPipeline p;
  p.max_chunk_size = 65536;
  p.filters.value.push_back(w.descriptor(version));
  return filter::runtime_pipeline(p, D::UINT8, version);
}

std::vector<std::uint8_t> image(std::size_t bytes, std::uint64_t seed) {
  tilefmt::testing::rng r(seed);
  std::vector<std::uint8_t> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::uint8_t>((i * 3) % 256 / 16 * 16 + r.below(2));
  return v;
}
#endif

} // namespace

TEST_CASE("WEBP: options are the 12-byte C struct, padding written as zeros") {
  using P = filter::pipeline<filter::webp<rgba_4x16>>;
  auto f = P::descriptor().filters[0];
  CHECK(f.type == format::FilterType::WEBP);
  CHECK(f.options.value == hex_bytes("00004842 03 01 0400 1000 0000"));
  auto back = filter::webp<>::from_filter(f, 23);
  CHECK(back.quality == 50.0f);
  CHECK(back.format == filter::webp_format::rgba);
  CHECK(back.lossless);
  CHECK(back.y_extent == 4);
  CHECK(back.x_extent == 16);
  CHECK(back.descriptor(23) == f);
  // Padding TileDB left uninitialised is ignored.
  auto dirty = f;
  dirty.options.value[10] = std::byte{0xcd};
  dirty.options.value[11] = std::byte{0xab};
  CHECK(filter::webp<>::from_filter(dirty, 23).descriptor(23) == f);
  // TileDB's defaults: quality 100, no format, lossy, extents 0.
  CHECK(filter::pipeline<filter::webp<>>::descriptor().filters[0].options.value == hex_bytes("0000c842 00 00 0000 0000 0000"));
  CHECK_THROWS_AS(filter::webp<>::from_filter(format::Filter{format::FilterType::WEBP, {hex_bytes("0000c842 00 00 0000 0000")}}, 23),
                  format_error);
  CHECK(filter::webp<>{}.pixel_depth() == 3);
  CHECK(back.pixel_depth() == 4);
  // A pipeline with WEBP is not chunked.
  CHECK_FALSE(filter::use_tile_chunking(P::descriptor(), false, D::UINT8, 23));
  // The runtime pipeline builds it from a stored pipeline, and describes it back.
  filter::runtime_pipeline rp(P::descriptor(), D::UINT8, 23);
  CHECK(rp.descriptor() == P::descriptor());
}

#if TILEFMT_HAVE_WEBP

TEST_CASE("WEBP: lossless images round-trip exactly, lossy ones keep their shape") {
  using P = filter::pipeline<filter::webp<rgba_4x16>>;
  auto px = image(4 * 16, 1);
  auto tile = P::encode<std::uint8_t>(px, {.chunking = false});
  CHECK(P::decode<std::uint8_t>(tile) == px);
  filter::runtime_pipeline rp(P::descriptor(23, false), D::UINT8, 23);
  CHECK(rp.encode(std::as_bytes(std::span(px)), rp.context(1)) == tile);
  using L = filter::pipeline<filter::webp<rgb_lossy>, filter::zstd<>>;
  auto big = image(32 * 96, 2);
  auto back = L::decode<std::uint8_t>(L::encode<std::uint8_t>(big, {.chunking = false}));
  CHECK(back.size() == big.size());
  // Wrong image size, wrong datatype, no format.
  CHECK_THROWS_AS(P::encode<std::uint8_t>(image(4 * 16 - 1, 3), {.chunking = false}), std::invalid_argument);
  CHECK_THROWS_AS(filter::pipeline<filter::webp<>>::encode<std::uint8_t>(px, {.chunking = false}), std::invalid_argument);
  CHECK_THROWS_AS(P::encode<std::int8_t>(std::vector<std::int8_t>(64), {.chunking = false}), std::invalid_argument);
  // A corrupt image fails as a format error.
  auto bad = tile;
  for (std::size_t i = tile.size() - 10; i < tile.size(); ++i) bad[i] = std::byte{0};
  CHECK_THROWS_AS(P::decode<std::uint8_t>(bad), format_error);
}

TEST_CASE("WEBP: a tile is one image, never chunked, even with chunking on") {
  using P = filter::pipeline<filter::webp<rgb_lossy>>;
  auto big = image(32 * 96, 4);
  auto tile = P::encode<std::uint8_t>(big);
  CHECK(codec::decode<format::TileView>(tile).chunks.size() == 1);
  auto rp = webp_pipeline({rgb_lossy::quality, rgb_lossy::format, rgb_lossy::lossless, rgb_lossy::y_extent, rgb_lossy::x_extent}, 23);
  auto rt = rp.encode(std::as_bytes(std::span(big)), rp.context(1));
  CHECK(codec::decode<format::TileView>(rt).chunks.size() == 1);
  CHECK(rp.decode(rt, rp.context(1)).size() == big.size());
}

TEST_CASE("WEBP: tiles written by TileDB decode to what TileDB reads back") {
  // tests/data/webp/generate.py (TileDB-Py 0.36.1, libtiledb 2.30.0): one
  // tile per array, format version 22.
  struct golden {
    const char* name;
    filter::webp<> stage;
  };
  const std::filesystem::path dir = std::filesystem::path(TILEFMT_TEST_DATA) / "webp";
  for (const golden& g : {golden{"rgb_q75", {75.0f, filter::webp_format::rgb, false, 24, 48}},
                          golden{"bgra_q30", {30.0f, filter::webp_format::bgra, false, 20, 48}},
                          golden{"rgba_lossless", {100.0f, filter::webp_format::rgba, true, 8, 32}}}) {
    const std::string name = g.name;
    CAPTURE(name);
    const auto tile = read_file(dir / (std::string(g.name) + ".tile"));
    const auto input = read_file(dir / (std::string(g.name) + ".input"));
    const auto expected = read_file(dir / (std::string(g.name) + ".expected"));
    auto rp = webp_pipeline(g.stage, 22);
    const auto got = rp.decode(tile, rp.context(1));
    CHECK(got == expected);
    if (g.stage.lossless) {
      CHECK(expected == input);
    } else {
      CHECK(expected != input); // lossy: the case really tests libwebp's decoder
    }
    // Our encoding decodes (by us) to the image for lossless, and to an
    // image of the same shape for lossy (its bytes depend on libwebp's
    // version, so they are not compared with TileDB's).
    auto ours = rp.encode(input, rp.context(1));
    auto back = rp.decode(ours, rp.context(1));
    CHECK(back.size() == input.size());
    if (g.stage.lossless) CHECK(back == input);
    if (ours == tile) MESSAGE(name << ": our encoding is byte-identical to TileDB's");

    // Truncated tiles fail cleanly; a flipped byte either fails as a format
    // error or (WebP has no checksum) decodes to an image of the right size.
    for (std::size_t n = 0; n < tile.size(); n += (n < 64 ? 1 : 7)) {
      CAPTURE(n);
      CHECK_THROWS_AS(rp.decode(std::span(tile).first(n), rp.context(1)), format_error);
    }
    for (std::size_t i = 0; i < tile.size(); ++i) {
      auto bad = tile;
      bad[i] ^= std::byte{0x5a};
      CAPTURE(i);
      std::size_t decoded = expected.size();
      try {
        decoded = rp.decode(bad, rp.context(1)).size();
      } catch (const format_error&) {
      }
      CHECK(decoded == expected.size());
    }
    // A part too short to be an image, and lengths that do not add up.
    auto tiny = webp_pipeline(g.stage, 22);
    for (const char* md : {"01000000 04000000", "01000000 14000000", "02000000 14000000 14000000"}) {
      CAPTURE(md);
      format::Tile t;
      t.chunks.value.push_back(format::Chunk{static_cast<std::uint32_t>(expected.size()), {}, {}, hex_bytes(md),
                                             hex_bytes("52494646 00000000 57454250 56503820 00000000")});
      CHECK_THROWS_AS(tiny.decode(codec::encode(t), tiny.context(1)), format_error);
    }
    // Options that do not fit the stored images.
    auto narrow = g.stage;
    narrow.y_extent = static_cast<std::uint16_t>(narrow.y_extent - 1);
    auto wrong_rows = webp_pipeline(narrow, 22);
    CHECK_THROWS_AS(wrong_rows.decode(tile, wrong_rows.context(1)), format_error);
  }
}

#else

TEST_CASE("WEBP: without libwebp, filtering throws unsupported_filter") {
  using P = filter::pipeline<filter::webp<rgba_4x16>>;
  std::vector<std::uint8_t> px(64, 7);
  try {
    P::encode<std::uint8_t>(px, {.chunking = false});
    FAIL("expected unsupported_filter");
  } catch (const filter::unsupported_filter& e) {
    CHECK(std::string(e.what()).find("unsupported filter: webp (built without libwebp)") != std::string::npos);
  }
  // A tile someone else wrote: a format_error subclass, naming the filter.
  format::Tile t;
  t.chunks.value.push_back(format::Chunk{64, {}, {}, hex_bytes("01000000 04000000"), hex_bytes("52494646")});
  auto tile = codec::encode(t);
  CHECK_THROWS_AS(P::decode<std::uint8_t>(tile), filter::unsupported_filter);
  filter::runtime_pipeline rp(P::descriptor(), D::UINT8, 23);
  CHECK_THROWS_AS(rp.decode(tile, rp.context(1)), filter::unsupported_filter);
  CHECK_THROWS_AS(rp.decode(tile, rp.context(1)), format_error);
}

#endif

} // namespace test_webp
