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

  /// Where the merge puts the input cells.
  struct placement {
    bool as_input = true;            // every cell placed, at its own index
    std::vector<std::size_t> place;  // unless as_input: each input cell's place, or run_groups::none
    std::size_t placed = 0;          // how many are placed
  };

  /// Each input cell's place in the result (run_groups::none: left out).
  /// `cols[d]` holds dimension d's coordinates of every input cell
  /// (little-endian); `pass`, if given, whether each cell passes the
  /// query's condition, which applies after the newest cells are chosen (an
  /// older cell does not come back when the newer one fails it).
  placement place(const std::vector<const std::byte*>& cols, std::size_t cells, const std::vector<source>& sources,
                  const std::uint8_t* pass) const {
    // No places are kept while every cell goes to its own index (fragments
    // that follow each other); the first that does not makes them.
    placement r;
    auto leave_input = [&] {
      if (!r.as_input) return;
      r.as_input = false;
      r.place.assign(cells, run_groups::none);
      for (std::size_t i = 0; i < r.placed; ++i) r.place[i] = i;
    };
    auto emit = [&](std::size_t i) {
      if (r.as_input && r.placed == i && (!pass || pass[i])) {
        ++r.placed;
        return;
      }
      leave_input();
      if (!pass || pass[i]) r.place[i] = r.placed++;
    };
    std::vector<cursor> cur;
    for (const auto& s : sources)
      if (s.begin < s.end) {
        cur.push_back({s.begin, s.end, s.stamp, s.index, std::vector<std::uint64_t>(parts_.size())});
        key(cols, s.begin, cur.back().key.data());
      }
    std::vector<std::uint64_t> probe(parts_.size());
    while (!cur.empty()) {
      // The least head; of equal ones the newest, the others left out
      // (unless duplicates are allowed).
      std::size_t m = 0;
      for (std::size_t j = 1; j < cur.size(); ++j) {
        const int c = compare(cur[j].key, cur[m].key);
        if (c < 0 || (c == 0 && newer(cur[j], cur[m]))) m = j;
      }
      // Every other head is above m's then (or equal, with duplicates): m
      // gives cells up to the least of them.
      const cursor* bound = nullptr;
      for (std::size_t j = 0; j < cur.size(); ++j) {
        if (j == m) continue;
        if (!dups_ && compare(cur[j].key, cur[m].key) == 0) {
          leave_input();
          advance(cols, cur[j]);
        }
        if (!done(cur[j]) && (!bound || compare(cur[j].key, bound->key) < 0)) bound = &cur[j];
      }
      auto& c = cur[m];
      // Interleaved fragments give a cell or two at a time; fragments that
      // follow each other long runs, whose end a galloping search finds
      // with a few keys.
      for (std::size_t taken = 1;; ++taken) {
        emit(c.at);
        advance(cols, c);
        if (done(c) || (bound && compare(c.key, bound->key) >= 0)) break;
        if (taken == gallop_after) {
          const std::size_t end = bound ? run_end(cols, c, bound->key, probe) : c.end;
          while (c.at < end) emit(c.at++);
          if (!done(c)) key(cols, c.at, c.key.data());
          break;
        }
      }
      std::erase_if(cur, [](const cursor& x) { return done(x); });
    }
    if (r.placed != cells) leave_input();
    return r;
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
  static int compare(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
    for (std::size_t p = 0; p < a.size(); ++p)
      if (a[p] != b[p]) return a[p] < b[p] ? -1 : 1;
    return 0;
  }
  /// The first of cursor c's cells (after its head, which is below
  /// `bound`) that is not below `bound`, or its end: doubling steps, then
  /// halving them.
  std::size_t run_end(const std::vector<const std::byte*>& cols, const cursor& c, const std::vector<std::uint64_t>& bound,
                      std::vector<std::uint64_t>& probe) const {
    auto below = [&](std::size_t i) {
      key(cols, i, probe.data());
      return compare(probe, bound) < 0;
    };
    std::size_t lo = c.at, step = 1, hi = c.at + 1;
    while (hi < c.end && below(hi)) {
      lo = hi;
      step *= 2;
      hi = c.end - lo > step ? lo + step : c.end;
    }
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (below(mid) ? lo : hi) = mid;
    }
    return hi;
  }
  static bool newer(const cursor& a, const cursor& b) {
    return a.stamp != b.stamp ? a.stamp > b.stamp : a.index > b.index;
  }

  static constexpr std::size_t gallop_after = 8;  // cells a run gives one by one

  const global_order& order_;
  bool dups_;
  std::vector<part> parts_;  // a key's integers, most significant first
};

} // namespace tilefmt::array::detail
