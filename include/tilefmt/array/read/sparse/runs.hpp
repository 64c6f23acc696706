// tilefmt — what the sparse readers share about the cells they find: a hit
// (a cell of a fragment's tile inside the subarray), runs of a tile's cells
// that go to one stretch of the result, the runs grouped by the tile they
// come from (so that each tile is read once), copying a run's cells, and
// whether a rectangle (a non-empty domain, an MBR) meets the subarray.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/read/fragment.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/array/read/subarray.hpp"
#include "tilefmt/array/support/gather_cells.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// A cell of the subarray found in a fragment's tile: 16 bytes a cell
/// read (a tenth of 10^7 cells' peak went to 24); what only some reads need
/// (the ND range, a timestamp per cell) the general reader keeps beside
/// it. Tiles and cells are counted in 32 bits (the reader refuses more).
struct sparse_hit {
  std::uint32_t tile;
  std::uint32_t pos;
  std::uint32_t frag;
  bool filtered;  // dropped after the newest cells are chosen (dropped())
};

/// Cells `pos .. pos + count` of tile `tile` of fragment `frag` are the
/// result's cells `out .. out + count`; with `select`, the `count` cells
/// of `pos .. pos + span` whose select byte is set are.
struct tile_run {
  std::uint32_t frag;
  std::uint64_t tile;
  std::size_t pos, out, count;
  const std::uint8_t* select = nullptr;
  std::size_t span = 0;
  /// The tile cells the run covers.
  std::size_t covered() const noexcept { return select ? span : count; }
};

/// The cells a reader took from a tile, before it knows their places in
/// the result: `count` cells from `pos` (with `select`: those of `pos ..
/// pos + span` whose select byte is set); the x-th of them is the reader's
/// cell `base + x`.
struct tile_selection {
  std::uint32_t frag;
  std::uint64_t tile;
  std::size_t pos, count, base;
  const std::uint8_t* select = nullptr;
  std::size_t span = 0;
};

/// A result's runs grouped by the tile they come from: either made already
/// (sparse_one_range: few and long), or made a tile at a time, when that
/// tile is read, from each cell's place in the result: the general
/// reader's hits (in a row-major read of a 2-D box most runs are one cell,
/// and made at once they took 56 bytes a cell, more than twice the result)
/// or a merge's tiles (fragments interleaved cell by cell).
class run_groups {
public:
  static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

  /// Runs grouped by tile.
  explicit run_groups(std::vector<tile_run> runs) : runs_(std::move(runs)) {
    for (std::size_t b = 0; b < runs_.size();) {
      group g{b, b, 0};
      for (; g.end < runs_.size() && same_tile(runs_[g.end], runs_[b]); ++g.end) g.cells += runs_[g.end].count;
      groups_.push_back(g);
      b = g.end;
    }
  }
  /// Hit `i` of `hits` (in storage order) is result cell `place[i]`, or
  /// left out (`none`).
  run_groups(const std::vector<sparse_hit>& hits, std::vector<std::size_t> place) : hits_(&hits), place_(std::move(place)) {
    for (std::size_t b = 0; b < hits.size();) {
      group g{b, b, 0};
      for (; g.end < hits.size() && same_tile(hits[g.end], hits[b]); ++g.end) g.cells += place_[g.end] != none;
      if (g.cells != 0) groups_.push_back(g);
      b = g.end;
    }
  }

  /// The x-th cell of `tiles[j]` is result cell `place[tiles[j].base +
  /// x]`, or left out (`none`); each tile listed once.
  run_groups(std::vector<tile_selection> tiles, std::vector<std::size_t> place)
      : tiles_(std::move(tiles)), place_(std::move(place)) {
    for (std::size_t j = 0; j < tiles_.size(); ++j) {
      const auto& t = tiles_[j];
      group g{j, j + 1, 0};
      for (std::size_t x = 0; x < t.count; ++x) g.cells += place_[t.base + x] != none;
      if (g.cells != 0) groups_.push_back(g);
    }
  }

  std::size_t size() const noexcept { return groups_.size(); }
  std::uint32_t frag(std::size_t j) const {
    const std::size_t b = groups_[j].begin;
    return !tiles_.empty() ? tiles_[b].frag : hits_ ? (*hits_)[b].frag : runs_[b].frag;
  }
  std::uint64_t tile(std::size_t j) const {
    const std::size_t b = groups_[j].begin;
    return !tiles_.empty() ? tiles_[b].tile : hits_ ? (*hits_)[b].tile : runs_[b].tile;
  }
  /// The result cells group `j` gives.
  std::uint64_t cells(std::size_t j) const { return groups_[j].cells; }
  /// Where next_runs goes on in a group.
  struct run_cursor {
    std::size_t at = 0, taken = 0;  // hits or tile cells passed, and (tiles) of those, the ones selected
    bool done = false;
  };

  /// Group `j`'s runs, made in `scratch` if they are not made already (in
  /// tile order then: a tile's hits come in it), at most `limit` at a time
  /// from `from` on (which marks where the next call goes on, and when the
  /// group is done). A merge of fragments interleaved cell by cell makes a
  /// run a cell: made all at once, a tile's took 56 bytes a cell.
  std::span<const tile_run> next_runs(std::size_t j, run_cursor& from, std::vector<tile_run>& scratch,
                                      std::size_t limit) const {
    const group& g = groups_[j];
    scratch.clear();
    if (!tiles_.empty()) return tile_runs(tiles_[g.begin], from, scratch, limit);
    if (!hits_) {
      from.done = true;
      return {runs_.data() + g.begin, g.end - g.begin};
    }
    std::size_t i = g.begin + from.at;
    for (; i < g.end; ++i) {
      const std::size_t c = place_[i];
      if (c == none) continue;
      const sparse_hit& h = (*hits_)[i];
      if (!scratch.empty()) {
        auto& last = scratch.back();
        if (last.pos + last.count == h.pos && last.out + last.count == c) {
          ++last.count;
          continue;
        }
        if (scratch.size() == limit) break;
      }
      scratch.push_back({h.frag, h.tile, static_cast<std::size_t>(h.pos), c, 1});
    }
    from.at = i - g.begin;
    from.done = i == g.end;
    return scratch;
  }
  /// All of group `j`'s runs.
  std::span<const tile_run> runs(std::size_t j, std::vector<tile_run>& scratch) const {
    run_cursor from;
    return next_runs(j, from, scratch, std::numeric_limits<std::size_t>::max());
  }

private:
  struct group {
    std::size_t begin, end;  // runs_, hits or tiles_ [begin, end)
    std::uint64_t cells;
  };
  std::span<const tile_run> tile_runs(const tile_selection& t, run_cursor& from, std::vector<tile_run>& scratch,
                                      std::size_t limit) const {
    const std::size_t span = t.select ? t.span : t.count;
    std::size_t k = from.at, x = from.taken;
    for (; k < span; ++k) {
      if (t.select && !t.select[k]) continue;
      const std::size_t c = place_[t.base + x];
      if (c == none) {
        ++x;
        continue;
      }
      if (!scratch.empty()) {
        auto& last = scratch.back();
        if (last.pos + last.count == t.pos + k && last.out + last.count == c) {
          ++last.count;
          ++x;
          continue;
        }
        if (scratch.size() == limit) break;
      }
      scratch.push_back({t.frag, t.tile, t.pos + k, c, 1});
      ++x;
    }
    from.at = k;
    from.taken = x;
    from.done = k == span;
    return scratch;
  }
  template <class T>
  static bool same_tile(const T& a, const T& b) noexcept {
    return a.frag == b.frag && a.tile == b.tile;
  }

  std::vector<tile_run> runs_;
  const std::vector<sparse_hit>* hits_ = nullptr;
  std::vector<tile_selection> tiles_;
  std::vector<std::size_t> place_;
  std::vector<group> groups_;
};

/// Of 64 select bytes, which are set: bit j for byte j.
inline std::uint64_t select_bits(const std::uint8_t* select) noexcept {
  constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7full, ones = 0x0101010101010101ull;
  std::uint64_t bits = 0;
  for (std::size_t w = 0; w < 8; ++w) {
    const auto v = codec::load_le<std::uint64_t>(reinterpret_cast<const std::byte*>(select + w * 8));
    // Each byte to 0 or 1 (set when any of its bits is), then the eight
    // gathered into the top byte of a product (byte i to bit 56 + i).
    const std::uint64_t set = ((v | ((v & low7) + low7)) >> 7) & ones;
    bits |= ((set * 0x0102040810204080ull) >> 56) << (8 * w);
  }
  return bits;
}

/// Copies the `size`-byte values of `src` whose select byte is set (of
/// `n`) to `dst`, back to back, without a branch per value: each value is
/// written, and the next one overwrites it unless it was selected. Up to
/// the last selected value no write passes the selected ones' end. `dst`
/// may be `src` or before it (a tile compacted in place).
inline void copy_selected(std::byte* dst, const std::byte* src, const std::uint8_t* select, std::size_t n,
                          std::size_t size) {
  while (n > 0 && !select[n - 1]) --n;
  with_cell_size(size, [&]<std::size_t S>() {
    if constexpr (S == 0) {
      for (std::size_t k = 0, o = 0; k < n; ++k)
        if (select[k]) std::memmove(dst + (o++) * size, src + k * size, size);
    } else {
      // Blocks of 64 cells none of which is selected are skipped, and blocks
      // all of which are, moved at once: a selection of runs (a list of
      // matrix rows) is copied at memmove's speed. Of a block with few
      // selected (50 columns of 2,000), only those are visited; the rest
      // cell by cell.
      constexpr std::size_t block = 64;
      std::size_t o = 0, k = 0;
      for (; k + block <= n; k += block) {
        std::uint64_t bits = select_bits(select + k);
        if (bits == 0) continue;
        if (bits == ~std::uint64_t{0}) {
          std::memmove(dst + o * S, src + k * S, block * S);
          o += block;
          continue;
        }
        if (std::popcount(bits) <= 8) {
          for (; bits != 0; bits &= bits - 1, ++o)
            std::memmove(dst + o * S, src + (k + static_cast<std::size_t>(std::countr_zero(bits))) * S, S);
          continue;
        }
        for (std::size_t j = k; j < k + block; ++j) {
          std::memmove(dst + o * S, src + j * S, S);
          o += select[j] != 0;
        }
      }
      for (; k < n; ++k) {
        std::memmove(dst + o * S, src + k * S, S);
        o += select[k] != 0;
      }
    }
  });
}

/// Writes the cells run `r` takes from a tile whose cells (`size` bytes
/// each) start at `tile` to `dst`, back to back.
inline void copy_run(std::byte* dst, const void* tile, const tile_run& r, std::size_t size) {
  const auto* src = static_cast<const std::byte*>(tile) + r.pos * size;
  if (r.select)
    copy_selected(dst, src, r.select, r.span, size);
  else if (r.count != 0)
    std::memcpy(dst, src, r.count * size);
}

/// The values (`size` bytes a cell) and, for a nullable field, the
/// validity of run `run` of tile `t`, into its place in `r`.
inline void copy_run_cells(result_field& r, const tile_data& t, const tile_run& run, std::size_t size) {
  copy_run(r.values.data() + run.out * size, t.values.data(), run, size);
  if (r.nullable) copy_run(reinterpret_cast<std::byte*>(r.validity.data()) + run.out, t.validity.data(), run, 1);
}

/// Whether rectangle `m` (a non-empty domain or an MBR) meets the subarray.
inline bool meets_subarray(const subarray& sub, const std::vector<format::Dimension>& dims,
                           const format::MBR& m) {
  if (m.ranges.size() != dims.size()) return true;  // not ours to judge: the tiles' coordinates decide
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].is_var()) {
      const auto [lo, hi] = m.ranges[d].as_strings();
      if (!sub.dim(d).overlaps_text(lo, hi)) return false;
      continue;
    }
    bool meets = true;
    format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
      const auto [lo, hi] = m.ranges[d].as<T>();
      meets = sub.dim(d).overlaps({order_key(lo), order_key(hi)});
    });
    if (!meets) return false;
  }
  return true;
}

/// Whether rectangles `a` and `b` (non-empty domains or MBRs) meet; true
/// where either is not one of ours to judge.
inline bool rectangles_meet(const std::vector<format::Dimension>& dims, const format::MBR& a, const format::MBR& b) {
  if (a.ranges.size() != dims.size() || b.ranges.size() != dims.size()) return true;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    bool meets = true;
    if (dims[d].is_var()) {
      const auto [alo, ahi] = a.ranges[d].as_strings();
      const auto [blo, bhi] = b.ranges[d].as_strings();
      meets = alo <= bhi && blo <= ahi;
    } else {
      format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
        const auto [alo, ahi] = a.ranges[d].as<T>();
        const auto [blo, bhi] = b.ranges[d].as<T>();
        meets = order_key(alo) <= order_key(bhi) && order_key(blo) <= order_key(ahi);
      });
    }
    if (!meets) return false;
  }
  return true;
}

} // namespace tilefmt::array::detail
