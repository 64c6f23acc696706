// Generic tiles: TileDB's own files read, and written back byte for byte.
#include "tilefmt/filter/generic_tile.hpp"

#include <filesystem>
#include <fstream>

#include "../support/testing.hpp"

namespace test_generic_tile {

using namespace tilefmt;

namespace {
std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), {});
  auto b = codec::as_byte_span(raw);
  return {b.begin(), b.end()};
}
} // namespace

TEST_CASE("every schema file of the legacy arrays round-trips bit-exactly") {
  int seen = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(TILEFMT_TEST_DATA) / "legacy")) {
    if (!e.is_regular_file() || e.path().parent_path().filename() != "__schema") continue;
    CAPTURE(e.path().string());
    auto file = read_file(e.path());
    auto g = filter::read_generic_tile(file);
    CHECK(g.stored_size == file.size());
    CHECK(g.payload.size() == g.header.tile_size);
    CHECK(filter::write_generic_tile(g.payload, g.header.version.value) == file);
    ++seen;
  }
  CHECK(seen == 3);
}

TEST_CASE("write then read; large payloads are split into 64 KiB chunks") {
  tilefmt::testing::rng r;
  auto payload = r.values<std::byte>(200000);
  auto tile = filter::write_generic_tile(payload);
  auto g = filter::read_generic_tile(tile);
  CHECK(g.payload == payload);
  CHECK(g.header.version.value == tilefmt::format::written_version);
  auto body = codec::decode<format::TileView>(std::span(tile).subspan(52));
  CHECK(body.chunks.size() == 4);
}

TEST_CASE("write_generic_tile<pipeline<>>: no filters, the payload stored as it is") {
  const auto payload = tilefmt::testing::text_bytes("one chunk, stored plain");
  auto tile = filter::write_generic_tile<filter::pipeline<>>(payload, 11);
  auto g = filter::read_generic_tile(tile);
  CHECK(g.payload == payload);
  CHECK(g.header.version.value == 11);
  CHECK(g.header.filters.value.filters.value.empty());
  // After the header: the chunk count, one chunk header (three u32), the payload.
  CHECK(tile.size() == g.stored_size);
  REQUIRE(g.header.persisted_size == 8 + 12 + payload.size());
  CHECK(std::equal(payload.begin(), payload.end(), tile.end() - static_cast<std::ptrdiff_t>(payload.size())));
}

TEST_CASE("a truncated or corrupted generic tile is an error") {
  std::vector<std::byte> payload(5000, std::byte{3});
  auto tile = filter::write_generic_tile(payload);
  for (std::size_t n = 0; n < tile.size(); ++n) CHECK_THROWS_AS(filter::read_generic_tile(std::span(tile).first(n)), format_error);
  auto lie = tile;
  lie[12] = std::byte{0x7f}; // tile_size much larger than the chunks hold
  CHECK_THROWS_AS(filter::read_generic_tile(lie), format_error);
}

} // namespace test_generic_tile
