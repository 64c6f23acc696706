// tilefmt — several fragments' cells merged into the global order.
//
// A global-order read returns the cells of every fragment in the global
// order, and so does an unordered read of an array without duplicates
// (TileDB answers it with its global-order reader); without duplicates the
// newest of equal coordinates is kept. Each fragment stores its cells in that order already, so they
// are merged, not sorted: a cursor a fragment, each holding its next
// cell's key (the space tiles in the tile order, then the coordinates in
// the cell order: one tuple of integers compared as a whole), and the
// cursor with the least key gives cells until it passes another's.
// Fragments that follow each other (appended in time or in space) give
// long runs, interleaved ones a cell at a time; either way each cell's key
// is made once, and nothing is kept a cell but its place in the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/model/global_order.hpp"
#include "tilefmt/array/read/sparse/runs.hpp"
#include "tilefmt/codec/endian.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

class fragment_merge {
public:
  /// Input cells `begin .. end` come from one fragment, in the global
  /// order. Of two cells with equal coordinates the result keeps the one of
  /// the newer fragment: the later `stamp` (its first timestamp), then the
  /// higher `index` (its place in the array's list), as reader.hpp does.
  struct source {
    std::size_t begin, end;
    std::uint64_t stamp;
    std::uint32_t index;
  };

  /// For arrays of fixed-size dimensions in the row- or column-major cell
  /// order (not Hilbert); `order` gives the space tiles. Arrays with
  /// duplicates keep every cell of equal coordinates (in no fixed order,
  /// as in TileDB).
  fragment_merge(const format::ArraySchema& s, const global_order& order)
      : order_(order), dups_(s.allows_dups.value) {
    const auto& dims = s.domain.dimensions.value;
    const std::size_t nd = dims.size();
    const bool tile_row = s.tile_order != format::Layout::COL_MAJOR;
    const bool cell_row = s.cell_order != format::Layout::COL_MAJOR;
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = tile_row ? k : nd - 1 - k;
      if (order.keys.tiled[d]) parts_.push_back(part_of(dims[d], d, true));
    }
    for (std::size_t k = 0; k < nd; ++k) parts_.push_back(part_of(dims[cell_row ? k : nd - 1 - k], cell_row ? k : nd - 1 - k, false));
  }

  /// Each input cell's place in the result (run_groups::none: left out),
  /// and in `placed` how many are placed. `cols[d]` holds dimension d's
  /// coordinates of every input cell (little-endian); `pass`, if given,
  /// whether each cell passes the query's condition, which applies after
  /// the newest cells are chosen (an older cell does not come back when the
  /// newer one fails it).
  std::vector<std::size_t> place(const std::vector<const std::byte*>& cols, std::size_t cells,
                                 const std::vector<source>& sources, const std::uint8_t* pass,
                                 std::size_t& placed) const {
    std::vector<std::size_t> out(cells, run_groups::none);
    std::vector<cursor> cur;
    for (const auto& s : sources)
      if (s.begin < s.end) {
        cur.push_back({s.begin, s.end, s.stamp, s.index, std::vector<std::uint64_t>(parts_.size())});
        key(cols, s.begin, cur.back().key.data());
      }
    std::size_t next = 0;
    while (!cur.empty()) {
      // The least head; of equal ones the newest, the others left out
      // (unless duplicates are allowed).
      std::size_t m = 0;
      for (std::size_t j = 1; j < cur.size(); ++j) {
        const int c = compare(cur[j], cur[m]);
        if (c < 0 || (c == 0 && newer(cur[j], cur[m]))) m = j;
      }
      // Every other head is above m's then (or equal, with duplicates): m
      // gives cells up to the least of them.
      const cursor* bound = nullptr;
      for (std::size_t j = 0; j < cur.size(); ++j) {
        if (j == m) continue;
        if (!dups_ && compare(cur[j], cur[m]) == 0) advance(cols, cur[j]);
        if (!done(cur[j]) && (!bound || compare(cur[j], *bound) < 0)) bound = &cur[j];
      }
      auto& c = cur[m];
      do {
        if (!pass || pass[c.at]) out[c.at] = next++;
        advance(cols, c);
      } while (!done(c) && (!bound || compare(c, *bound) < 0));
      std::erase_if(cur, [](const cursor& x) { return done(x); });
    }
    placed = next;
    return out;
  }

private:
  struct cursor {
    std::size_t at, end;
    std::uint64_t stamp;
    std::uint32_t index;
    std::vector<std::uint64_t> key;  // cell `at`'s, while at < end
  };
  /// One integer of a cell's key: dimension d's space tile or coordinate.
  struct part {
    std::size_t d, size;
    std::uint64_t (*of)(const global_order&, std::size_t, const std::byte*);
  };

  static part part_of(const format::Dimension& dim, std::size_t d, bool tile) {
    part p{d, format::datatype_size(dim.type.value), nullptr};
    format::visit_coordinate_type(dim.type.value, [&]<class T>() {
      if (tile)
        p.of = [](const global_order& o, std::size_t d, const std::byte* v) { return o.space_tile(d, codec::load_le<T>(v)); };
      else
        p.of = [](const global_order&, std::size_t, const std::byte* v) { return order_key(codec::load_le<T>(v)); };
    });
    return p;
  }

  void key(const std::vector<const std::byte*>& cols, std::size_t i, std::uint64_t* out) const {
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const part& q = parts_[p];
      out[p] = q.of(order_, q.d, cols[q.d] + i * q.size);
    }
  }
  void advance(const std::vector<const std::byte*>& cols, cursor& c) const {
    if (++c.at < c.end) key(cols, c.at, c.key.data());
  }
  static bool done(const cursor& c) { return c.at >= c.end; }
  static int compare(const cursor& a, const cursor& b) {
    for (std::size_t p = 0; p < a.key.size(); ++p)
      if (a.key[p] != b.key[p]) return a.key[p] < b.key[p] ? -1 : 1;
    return 0;
  }
  static bool newer(const cursor& a, const cursor& b) {
    return a.stamp != b.stamp ? a.stamp > b.stamp : a.index > b.index;
  }

  const global_order& order_;
  bool dups_;
  std::vector<part> parts_;  // a key's integers, most significant first
};

} // namespace tilefmt::array::detail
