// A dense read's var-size field put together from runs of tiles
// (read/dense/var_pieces.hpp): checked against the same cells stored one
// by one (store_var_cells), for runs in any order, gaps that take the fill
// value, strides, runs that end inside a tile and at its end, whole tiles
// left to the store's decoder, empty cells, cells that failed the
// condition, and enough cells that threads share the work.
#include "tilefmt/array/read/dense/var_pieces.hpp"

#include <algorithm>
#include <limits>
#include <mutex>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/array/read/read_plan.hpp"

#include "../../support/testing.hpp"

namespace test_var_pieces {

namespace array = tilefmt::array;
using array::detail::result_field;
using array::detail::var_piece;

/// A tile of `cells` var-size cells of 0 to 5 bytes (each byte names its cell).
struct tile {
  std::vector<std::byte> values;
  std::vector<std::uint64_t> offsets;

  tile(std::size_t cells, std::mt19937& rng, int id) {
    for (std::size_t c = 0; c < cells; ++c) {
      offsets.push_back(values.size());
      const std::size_t len = rng() % 6;
      for (std::size_t b = 0; b < len; ++b) values.push_back(static_cast<std::byte>((id * 31 + c * 7 + b) & 0xff));
    }
  }
};

std::vector<std::byte> bytes(const std::string& s) {
  std::vector<std::byte> out;
  for (char ch : s) out.push_back(static_cast<std::byte>(ch));
  return out;
}

/// The field as a cell-by-cell store of the same cells makes it.
result_field expected(const std::vector<var_piece>& pieces, std::size_t n, std::span<const std::byte> fill,
                      std::span<const std::uint8_t> failed) {
  std::vector<std::span<const std::byte>> cells(n, fill);
  for (const auto& p : pieces)
    for (std::size_t j = 0; j < p.len; ++j)
      if (failed.empty() || !failed[p.result + j]) cells[p.result + j] = p.cell(j);
  result_field r;
  array::detail::store_var_cells(r, cells);
  return r;
}

void check_same(const result_field& got, const result_field& want) {
  REQUIRE(got.offsets.size() == want.offsets.size());
  CHECK(std::equal(got.offsets.begin(), got.offsets.end(), want.offsets.begin()));
  REQUIRE(got.values.size() == want.values.size());
  CHECK(std::equal(got.values.begin(), got.values.end(), want.values.begin()));
}

TEST_CASE("var pieces: runs in any order, gaps, strides, failed cells, as a cell-by-cell store") {
  std::mt19937 rng(7);
  const auto fill = bytes("FILL");
  for (int round = 0; round < 60; ++round) {
    // Big rounds pass the 2^16 cells a thread's share starts at.
    const std::size_t tile_cells = round < 40 ? 1 + rng() % 40 : 30000 + rng() % 20000;
    std::vector<tile> tiles;
    for (int t = 0; t < 6; ++t) tiles.emplace_back(tile_cells, rng, t);
    // Runs laid one after another in the result, some result cells
    // skipped (unwritten: the fill), then shuffled.
    std::vector<var_piece> pieces;
    std::size_t at = 0;
    for (std::size_t i = 0; i < 12; ++i) {
      const tile& t = tiles[rng() % tiles.size()];
      at += rng() % 3 == 0 ? rng() % 5 : 0;
      const std::size_t stride = rng() % 3 == 0 ? 1 + rng() % 4 : 1;
      const std::size_t first = rng() % tile_cells;
      const std::size_t most = (tile_cells - first + stride - 1) / stride;
      // Half the runs go to the tile's end (its last offset is the values' size).
      const std::size_t len = rng() % 2 ? most : 1 + rng() % most;
      pieces.push_back({at, len, first, stride, t.values, t.offsets});
      at += len;
    }
    // Whole tiles, some of them left to the decoder (whose pieces have no
    // views: the store must decode them).
    for (std::size_t i = 0; i < 3; ++i) {
      const std::size_t k = rng() % tiles.size();
      pieces.push_back({at, tile_cells, 0, 1, tiles[k].values, tiles[k].offsets});
      if (rng() % 2) pieces.back().deferred = k;
      at += tile_cells + (rng() % 2);
    }
    const std::size_t n = at + rng() % 4;
    std::shuffle(pieces.begin(), pieces.end(), rng);
    std::vector<std::uint8_t> failed;
    if (round % 3 == 0) {
      failed.resize(n);
      for (auto& f : failed) f = rng() % 10 == 0;
      for (const auto& p : pieces)  // (the reader defers no tile with a failed cell)
        if (p.deferred != var_piece::none) std::fill_n(failed.begin() + static_cast<std::ptrdiff_t>(p.result), p.len, 0);
    }
    const auto want = expected(pieces, n, fill, failed);
    std::vector<var_piece> given = pieces;
    for (auto& p : given)
      if (p.deferred != var_piece::none) p.values = {}, p.offsets = {}, p.bytes = tiles[p.deferred].values.size();
    std::size_t decoded = 0;
    std::mutex m;
    auto decode = [&](std::size_t k, std::span<std::byte> values, std::span<std::uint64_t> offsets) {
      REQUIRE(values.size() == tiles[k].values.size());
      REQUIRE(offsets.size() == tiles[k].offsets.size());
      std::copy(tiles[k].values.begin(), tiles[k].values.end(), values.begin());
      std::copy(tiles[k].offsets.begin(), tiles[k].offsets.end(), offsets.begin());
      const std::lock_guard lock(m);
      ++decoded;
    };
    const auto deferred = static_cast<std::size_t>(
        std::count_if(given.begin(), given.end(), [](const var_piece& p) { return p.deferred != var_piece::none; }));
    for (unsigned threads : {1u, 3u}) {
      CAPTURE(round);
      CAPTURE(threads);
      result_field got;
      decoded = 0;
      array::detail::store_var_pieces(got, given, n, fill, failed, threads, decode);
      check_same(got, want);
      CHECK(decoded == deferred);
    }
  }
}

TEST_CASE("var pieces: no pieces is all fill; overlapping runs are refused") {
  std::mt19937 rng(3);
  const auto fill = bytes("xy");
  result_field r;
  array::detail::store_var_pieces(r, {}, 3, fill, {}, 1);
  CHECK(r.offsets.size() == 3);
  CHECK(r.offsets[2] == 4);
  CHECK(r.values.size() == 6);

  const tile t(10, rng, 1);
  const std::vector<var_piece> overlapping{{0, 5, 0, 1, t.values, t.offsets}, {4, 3, 0, 1, t.values, t.offsets}};
  result_field o;
  CHECK_THROWS_AS(array::detail::store_var_pieces(o, overlapping, 10, fill, {}, 1), std::logic_error);
  const std::vector<var_piece> past_end{{8, 5, 0, 1, t.values, t.offsets}};
  CHECK_THROWS_AS(array::detail::store_var_pieces(o, past_end, 10, fill, {}, 1), std::logic_error);
  // A tile left to decode needs a decoder, and no failed cell.
  std::vector<var_piece> later{{0, 10, 0, 1, {}, {}}};
  later[0].deferred = 0;
  later[0].bytes = t.values.size();
  CHECK_THROWS_AS(array::detail::store_var_pieces(o, later, 10, fill, {}, 1), std::logic_error);
  // Sizes from metadata past the allocation limit: refused before anything is made.
  later[0].bytes = 1000;
  bool decoded = false;
  auto never = [&](std::size_t, std::span<std::byte>, std::span<std::uint64_t>) { decoded = true; };
  result_field big;
  CHECK_THROWS_AS(array::detail::store_var_pieces(big, later, 10, fill, {}, 1, never, 999), std::invalid_argument);
  CHECK_FALSE(decoded);
  CHECK(big.values.empty());
  later[0].bytes = std::numeric_limits<std::uint64_t>::max();  // then two cells of the fill: no sum wraps around
  CHECK_THROWS_AS(array::detail::store_var_pieces(big, later, 12, fill, {}, 1, never), std::invalid_argument);
  CHECK_FALSE(decoded);
  const std::vector<std::uint8_t> one_failed{0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  auto decode = [&](std::size_t, std::span<std::byte>, std::span<std::uint64_t>) {};
  CHECK_THROWS_AS(array::detail::store_var_pieces(o, later, 10, fill, one_failed, 1, decode), std::logic_error);
}

} // namespace test_var_pieces
