#include "tilefmt/filter/byteshuffle.hpp"

#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "../support/testing.hpp"

namespace test_byteshuffle {

using namespace tilefmt;
using tilefmt::testing::hex_bytes;

TEST_CASE("byteshuffle stage: exact chunk bytes") {
  std::vector<std::uint16_t> v{0x0102, 0x0304, 0x0506};
  auto tile = filter::pipeline<filter::byteshuffle>::encode<std::uint16_t>(v);
  // one chunk: orig 6, filtered 6, md 8 = {1 part, 6 bytes}; low bytes first, then high bytes.
  CHECK(tile == hex_bytes("0100000000000000 06000000 06000000 08000000 01000000 06000000 020406 010305"));
  CHECK(filter::pipeline<filter::byteshuffle>::decode<std::uint16_t>(tile) == v);
}

TEST_CASE("byteshuffle stage: part lengths must add up") {
  std::vector<std::uint32_t> v(100, 7);
  auto tile = filter::pipeline<filter::byteshuffle>::encode<std::uint32_t>(v);
  auto bad = tile;
  bad[8 + 12 + 4] = std::byte{0x91}; // part length 401 instead of 400
  CHECK_THROWS_AS(filter::pipeline<filter::byteshuffle>::decode<std::uint32_t>(bad), format_error);
}

TEST_CASE("byteshuffle stage: a tile decoded around the caches holds the same bytes") {
  // tile_context::stream_destination lets the last stage write the
  // destination with non-temporal stores; the result must not change, for
  // whole chunks, the short last chunk, and a destination not aligned to 64.
  using P = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  std::vector<std::uint64_t> v(300000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i * 0x9E3779B97F4A7C15u >> (i % 50);
  const auto tile = P::encode<std::uint64_t>(v);
  filter::runtime_pipeline rp(P::descriptor(), format::Datatype::UINT64, format::written_version);
  const auto plain = rp.decode(tile, rp.context(8));
  REQUIRE(plain.size() == v.size() * 8);
  auto ctx = rp.context(8);
  ctx.stream_destination = true;
  codec::reader r(tile);
  format::TileView view;
  codec::decode_into(r, view);
  for (std::size_t offset : {0u, 8u, 24u}) {
    std::vector<std::byte> out(plain.size() + 128);
    const auto base = reinterpret_cast<std::uintptr_t>(out.data());
    const std::size_t at = (64 - base % 64) % 64 + offset;
    rp.decode_into(view, std::span(out).subspan(at, plain.size()), ctx);
    CHECK(std::equal(plain.begin(), plain.end(), out.begin() + static_cast<std::ptrdiff_t>(at)));
  }
}

} // namespace test_byteshuffle
