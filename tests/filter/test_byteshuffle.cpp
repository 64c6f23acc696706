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

namespace {

// Chunk `k` of a serialized tile decoded as `pieces` of it, through a
// runtime pipeline's chunk decoder; the bytes around each piece keep 0xA5.
struct pieces_check {
  std::vector<std::byte> out;
  std::vector<filter::chunk_piece> pieces;
  std::vector<std::pair<std::size_t, std::size_t>> where;  // each piece's (chunk byte, out byte)

  // Pieces (begin, size) of the chunk, laid out in `out` 16 bytes apart.
  explicit pieces_check(std::initializer_list<std::pair<std::size_t, std::size_t>> ranges) {
    std::size_t at = 16;
    for (const auto& [b, n] : ranges) {
      where.emplace_back(b, at);
      at += n + 16;
    }
    out.assign(at, std::byte{0xA5});
    std::size_t i = 0;
    for (const auto& [b, n] : ranges) pieces.push_back({b, n, out.data() + where[i++].second});
  }

  void decode(const filter::runtime_pipeline& rp, const filter::tile_context& ctx, const format::TileView& tile,
              std::size_t k) {
    filter::runtime_pipeline::chunk_decoder d(rp, ctx);
    const auto& c = tile.chunks[k];
    d.decode_pieces(c.metadata.bytes(), c.data.bytes(), c.original_length, pieces);
  }

  // Whether each piece holds `chunk`'s bytes and nothing around it changed.
  bool holds(std::span<const std::byte> chunk) const {
    std::vector<std::byte> expected(out.size(), std::byte{0xA5});
    for (std::size_t i = 0; i < pieces.size(); ++i)
      std::copy_n(chunk.begin() + static_cast<std::ptrdiff_t>(pieces[i].begin), pieces[i].size,
                  expected.begin() + static_cast<std::ptrdiff_t>(where[i].second));
    return out == expected;
  }
};

template <class P, class T>
void check_pieces(const std::vector<T>& v, std::initializer_list<std::pair<std::size_t, std::size_t>> ranges,
                  std::size_t chunk) {
  const auto tile = P::template encode<T>(v);
  filter::runtime_pipeline rp(P::descriptor(), format::datatype_of<T>(), format::written_version);
  const auto ctx = rp.context(sizeof(T));
  const auto plain = rp.decode(tile, ctx);
  codec::reader r(tile);
  format::TileView view;
  codec::decode_into(r, view);
  REQUIRE(view.chunks.size() > chunk);
  const std::size_t at = chunk * filter::max_tile_chunk_size;
  pieces_check c(ranges);
  c.decode(rp, ctx, view, chunk);
  CHECK(c.holds(std::span(plain).subspan(at, view.chunks[chunk].original_length)));
}

} // namespace

TEST_CASE("byteshuffle stage: parts of a chunk unshuffled straight to their places") {
  // A reader that needs some cells of a chunk (a box's rows within a tile)
  // has the byte shuffle write just those: pieces at the chunk's start, its
  // end, in between, one element long, as long as the chunk; the short last
  // chunk too.
  std::vector<std::int32_t> v(40000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * 2654435761u >> (i % 13));
  using P = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  check_pieces<P>(v, {{0, 4}, {400, 2048}, {65536 - 260, 260}}, 0);
  check_pieces<P>(v, {{0, 65536}}, 1);
  check_pieces<P>(v, {{4, 4}, {160000 - 2 * 65536 - 4, 4}}, 2);
  std::vector<std::uint64_t> w(9000);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = i * 0x9E3779B97F4A7C15u;
  check_pieces<filter::pipeline<filter::byteshuffle>>(w, {{8, 8 * 1000}, {8 * 1500, 8 * 77}}, 0);
  check_pieces<filter::pipeline<filter::byteshuffle>>(w, {{0, 8 * 808}}, 1);  // the whole short last chunk
  // Pieces that are not whole elements, and pipelines whose first filter
  // writes whole chunks, decode the chunk into a buffer and copy from it.
  check_pieces<P>(v, {{1, 7}, {9000, 3}}, 0);
  check_pieces<filter::pipeline<filter::zstd<1>>>(v, {{12, 400}, {65000, 536}}, 0);
  check_pieces<filter::pipeline<filter::zstd<1>, filter::byteshuffle>>(v, {{12, 400}, {65000, 536}}, 1);
}

TEST_CASE("byteshuffle stage: reverse_pieces takes only chunks stored as one part of whole elements") {
  // It writes pieces only where the chunk's bytes are one shuffled block:
  // else it declines before writing anything, and the whole-chunk path runs.
  const std::vector<std::uint32_t> v = {0x03020100, 0x13121110, 0x23222120};
  const auto shuffled = filter::pipeline<filter::byteshuffle>::encode<std::uint32_t>(v);
  format::TileView view;
  codec::reader r(shuffled);
  codec::decode_into(r, view);
  const auto& c = view.chunks[0];
  const filter::tile_context ctx;
  filter::scratch buf;
  std::array<std::byte, 8> out{};
  const std::array<filter::chunk_piece, 1> middle = {{{4, 8, out.data()}}};
  filter::reverse_io io{ctx, format::Datatype::UINT32, c.metadata.bytes(), c.data.bytes(), {}, {}, buf, {}};
  CHECK(filter::byteshuffle{}.reverse_pieces(io, middle, 12));
  CHECK(std::vector<std::byte>(out.begin(), out.end()) == hex_bytes("1011121320212223"));
  CHECK(io.out_metadata.empty());

  out.fill(std::byte{0});
  const std::array<filter::chunk_piece, 1> unaligned = {{{2, 4, out.data()}}};
  CHECK_FALSE(filter::byteshuffle{}.reverse_pieces(io, unaligned, 12));
  CHECK_FALSE(filter::byteshuffle{}.reverse_pieces(io, middle, 16));  // not the chunk's size
  // Two parts of 8 and 4 bytes: the same 12 bytes, two blocks.
  std::vector<std::byte> two_parts = {std::byte{2}, {}, {}, {}, std::byte{8}, {}, {}, {}, std::byte{4}, {}, {}, {}};
  filter::reverse_io io2{ctx, format::Datatype::UINT32, two_parts, c.data.bytes(), {}, {}, buf, {}};
  CHECK_FALSE(filter::byteshuffle{}.reverse_pieces(io2, middle, 12));
  CHECK(std::all_of(out.begin(), out.end(), [](std::byte b) { return b == std::byte{0}; }));
}

} // namespace test_byteshuffle
