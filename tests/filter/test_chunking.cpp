// Chunk boundaries as TileDB computes them (tile.cc compute_chunk_size,
// filter_pipeline.cc get_var_chunk_sizes).
#include "tilefmt/filter/chunking.hpp"

#include "../support/testing.hpp"

namespace test_chunking {

using namespace tilefmt::filter;

TEST_CASE("chunk size: 64 KiB, whole cells, at least one cell") {
  CHECK(chunk_size_for(1000, 4) == 1000);
  CHECK(chunk_size_for(1002, 4) == 1000);
  CHECK(chunk_size_for(1 << 20, 8) == 65536);
  CHECK(chunk_size_for(1 << 20, 12) == 65532); // 5461 cells of 3 x int32
  CHECK(chunk_size_for(0, 4) == 4);
  CHECK(chunk_size_for(2, 4) == 4);
  CHECK(chunk_size_for(100000, 70000) == 70000); // a cell larger than 64 KiB
}

TEST_CASE("fixed tiles") {
  CHECK(fixed_chunks(400, 4) == std::vector<chunk_range>{{0, 400}});
  CHECK(fixed_chunks(65536, 1) == std::vector<chunk_range>{{0, 65536}});
  CHECK(fixed_chunks(65537, 1) == std::vector<chunk_range>{{0, 65536}, {65536, 1}});
  CHECK(fixed_chunks(3 * 65536, 8) == std::vector<chunk_range>{{0, 65536}, {65536, 65536}, {131072, 65536}});
  auto c = fixed_chunks(200000, 12);
  REQUIRE(c.size() == 4);
  CHECK(c[0].size == 65532);
  CHECK(c[3] == chunk_range{3 * 65532, 200000 - 3 * 65532});
  // Empty tile: no chunks with chunking on, one empty chunk with it off.
  CHECK(fixed_chunks(0, 4).empty());
  CHECK(fixed_chunks(0, 4, false) == std::vector<chunk_range>{{0, 0}});
  CHECK(fixed_chunks(1 << 20, 4, false) == std::vector<chunk_range>{{0, 1 << 20}});
}

TEST_CASE("var tiles: one chunk up to 64 KiB, else split by cells") {
  std::vector<std::uint64_t> offs{0, 10, 20};
  CHECK(var_chunks(30, offs, 1) == std::vector<chunk_range>{{0, 30}});

  // 3 cells of 40000 bytes: the second makes 80000 > 65536 with 40000 > 32768
  // already in the chunk, and 80000 <= 98304: the cell closes the chunk.
  // The third cell then fills a chunk of its own, and since it is the last
  // cell and fits, the final chunk is [80000, 120000).
  std::vector<std::uint64_t> three{0, 40000, 80000};
  CHECK(var_chunks(120000, three, 1) == std::vector<chunk_range>{{0, 80000}, {80000, 40000}});

  // The last cell closing a chunk leaves a zero-length final chunk.
  std::vector<std::uint64_t> two{0, 40000};
  CHECK(var_chunks(80000, two, 1) == std::vector<chunk_range>{{0, 80000}, {80000, 0}});

  // A cell larger than a chunk gets one of its own.
  std::vector<std::uint64_t> big{0, 60000, 60010};
  auto c = var_chunks(60010 + 200000, big, 1);
  CHECK(c == std::vector<chunk_range>{{0, 60010}, {60010, 200000}});

  // An empty var tile is one empty chunk.
  CHECK(var_chunks(0, std::span<const std::uint64_t>{}, 1) == std::vector<chunk_range>{{0, 0}});
}

TEST_CASE("var tiles: every byte covered exactly once, cells never split") {
  tilefmt::testing::rng r;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::uint64_t> offs;
    std::uint64_t at = 0;
    std::size_t cells = 1 + r.below(300);
    for (std::size_t i = 0; i < cells; ++i) {
      offs.push_back(at);
      at += r.below(round % 3 == 0 ? 100000 : 3000);
    }
    auto chunks = var_chunks(at, offs, 1);
    std::uint64_t expect = 0;
    for (auto& ch : chunks) {
      CHECK(ch.offset == expect);
      expect += ch.size;
      if (ch.size) CHECK(std::binary_search(offs.begin(), offs.end(), ch.offset));
    }
    CHECK(expect == at);
  }
}

} // namespace test_chunking
