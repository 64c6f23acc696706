// tilefmt — the sparse reader of a query: every cell of every fragment
// inside the subarray, in the order TileDB returns them.
//
// Only tiles that can hold a result are read: fragments whose non-empty
// domain misses the subarray are skipped, and so are tiles whose bounding
// rectangle (the R-tree's leaves) does. The coordinate tiles of the rest
// decide which cells are in; the attribute tiles are then read once each,
// for the cells they give to the result: fixed-size values decode straight
// into it or a chunk at a time, not into a tile buffer (one-dimensional
// reads write their coordinates, and the cells that pass their condition,
// straight into the result too, and keep the var-size tiles the condition
// read rather than read them again). Sparse aggregates
// leave unread the whole tiles whose metadata answers them
// (read_plan::answered).
//
// TileDB's rules, per layout:
// - row-major and column-major (TileDB's "legacy" reader): the subarray's
//   ND ranges are taken in that order; each collects its cells (fragments
//   oldest first, then tile and cell order), so a cell in two ranges is
//   there twice. Without duplicates allowed, a range whose cells come from
//   several fragments is sorted and keeps the newest cell of equal
//   coordinates. Then everything is sorted in the layout, except in
//   one-dimensional arrays whose cells all come from one fragment (those
//   stay range by range).
// - global order and unordered: each dimension's ranges are sorted and
//   merged first (a cell is returned once), and global order takes one ND
//   range. Without duplicates allowed the newest cell of equal coordinates
//   is kept and the result is in global order (unordered too: TileDB reads
//   it with its global-order reader); with duplicates allowed, unordered
//   cells come in storage order. Arrays in Hilbert cell order have no
//   space tiles in their global order: cells follow the Hilbert curve
//   (model/hilbert.hpp), then row-major coordinates.
// After the newest cells are chosen, these are left out: cells deleted
// (`__delete_timestamps` of consolidated fragments) at or before the time
// the array is opened at, cells a delete commit not yet applied to their
// fragment deletes (its condition is evaluated, condition_eval.hpp), and
// cells failing the query's condition. Cells of arrays with duplicates that share coordinates
// come in an order TileDB does not fix (its sorts are not stable).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/model/hilbert.hpp"
#include "tilefmt/array/read/condition_eval.hpp"
#include "tilefmt/array/read/delete_commits.hpp"
#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/support/parallel.hpp"
#include "tilefmt/array/support/radix_sort.hpp"
// fragment::read_values_in_chunks, a member template, is defined there
// (array.hpp leaves it out of programs built with TILEFMT_COMPILED).
#include "tilefmt/array/read/fragment-inl.hpp"

namespace tilefmt::array::detail {

/// A stable sort on up to `threads` threads, skipped when [first, last) is
/// in order already (the same result): cells come fragment by fragment in
/// global order, so appends whose fragments follow each other need no sort
/// at all.
template <class It, class Less>
void sort_stably(It first, It last, Less less, unsigned threads) {
  if (!std::is_sorted(first, last, less)) parallel_stable_sort(first, last, less, threads);
}

class sparse_reader {
public:
  explicit sparse_reader(const read_plan& plan)
      : plan_(plan),
        dims_(plan.schema().domain.dimensions.value),
        keys_(dims_.size()),
        strings_(dims_.size()) {
    // Row- and column-major reads order cells by their coordinates alone:
    // no space tile keys.
    const bool legacy = plan.layout == query_layout::row_major || plan.layout == query_layout::col_major;
    for (std::size_t d = 0; d < dims_.size(); ++d) keys_.tiled[d] = !legacy && dims_[d].has_tile_extent();
  }

  read_output read() {
    deletes_ = load_delete_commits(plan_.arr, plan_.schema());
    const auto layout = plan_.layout;
    const bool legacy = layout == query_layout::row_major || layout == query_layout::col_major;
    const subarray merged = legacy ? plan_.sub : plan_.sub.merged();
    if (layout == query_layout::global_order && merged.nd_range_num() > 1)
      throw std::invalid_argument("tilefmt: query: several ranges per dimension cannot be read in global order "
                                  "(TileDB refuses it too)");
    if (!merged.empty()) {
      if (auto runs = read_runs(merged)) return std::move(*runs);
      collect(merged, legacy);
    }
    rank_strings();
    if (!legacy && plan_.schema().cell_order == format::Layout::HILBERT) hilbert_values();
    const auto order = legacy ? legacy_order() : merged_order();
    // What only orders the cells goes before the result comes; the cell keys
    // give the coordinates back, and go once those are in the result.
    for (auto& k : keys_.tile) std::vector<std::uint64_t>().swap(k);
    std::vector<std::uint64_t>().swap(hilbert_);
    read_output out{coordinate_fields(order), order.size(), {}, {}, {}};
    for (auto& k : keys_.cell) std::vector<std::uint64_t>().swap(k);
    for (auto& c : strings_) std::vector<std::string>().swap(c);
    const run_groups groups = group_by_tile(order);
    // A cell of several ranges is there once a range: its tile is not whole.
    const bool whole = !legacy || merged.nd_range_num() <= 1;
    read_attributes(out.fields, order.size(), groups, whole);
    if (whole) out.whole_tiles = whole_tiles(groups);
    return out;
  }

private:
  // 24 bytes a cell read: what only some reads need (the ND range, a
  // timestamp per cell) is kept beside it, in ranges_ and stamps_.
  struct hit {
    std::uint64_t tile;
    std::uint64_t pos;
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

  /// A result's runs grouped by the tile they come from: either made already
  /// (read_runs: few and long), or made a tile at a time, when that tile is
  /// read, from the hits and each hit's place in the result (the general
  /// reader: in a row-major read of a 2-D box most runs are one cell, and
  /// made at once they took 56 bytes a cell, more than twice the result).
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
    run_groups(const std::vector<hit>& hits, std::vector<std::size_t> place) : hits_(&hits), place_(std::move(place)) {
      for (std::size_t b = 0; b < hits.size();) {
        group g{b, b, 0};
        for (; g.end < hits.size() && same_tile(hits[g.end], hits[b]); ++g.end) g.cells += place_[g.end] != none;
        if (g.cells != 0) groups_.push_back(g);
        b = g.end;
      }
    }

    std::size_t size() const noexcept { return groups_.size(); }
    std::uint32_t frag(std::size_t j) const {
      return hits_ ? (*hits_)[groups_[j].begin].frag : runs_[groups_[j].begin].frag;
    }
    std::uint64_t tile(std::size_t j) const {
      return hits_ ? (*hits_)[groups_[j].begin].tile : runs_[groups_[j].begin].tile;
    }
    /// The result cells group `j` gives.
    std::uint64_t cells(std::size_t j) const { return groups_[j].cells; }
    /// Group `j`'s runs, made in `scratch` if they are not made already (in
    /// tile order then: a tile's hits come in it).
    std::span<const tile_run> runs(std::size_t j, std::vector<tile_run>& scratch) const {
      const group& g = groups_[j];
      if (!hits_) return {runs_.data() + g.begin, g.end - g.begin};
      scratch.clear();
      for (std::size_t i = g.begin; i < g.end; ++i) {
        const std::size_t c = place_[i];
        if (c == none) continue;
        const hit& h = (*hits_)[i];
        if (!scratch.empty()) {
          auto& last = scratch.back();
          if (last.pos + last.count == h.pos && last.out + last.count == c) {
            ++last.count;
            continue;
          }
        }
        scratch.push_back({h.frag, h.tile, static_cast<std::size_t>(h.pos), c, 1});
      }
      return scratch;
    }

  private:
    struct group {
      std::size_t begin, end;  // runs_ or hits [begin, end)
      std::uint64_t cells;
    };
    template <class T>
    static bool same_tile(const T& a, const T& b) noexcept {
      return a.frag == b.frag && a.tile == b.tile;
    }

    std::vector<tile_run> runs_;
    const std::vector<hit>* hits_ = nullptr;
    std::vector<std::size_t> place_;
    std::vector<group> groups_;
  };

  /// Copies the `size`-byte values of `src` whose select byte is set (of
  /// `n`) to `dst`, back to back, without a branch per value: each value is
  /// written, and the next one overwrites it unless it was selected. Up to
  /// the last selected value no write passes the selected ones' end. `dst`
  /// may be `src` or before it (a tile compacted in place).
  static void copy_selected(std::byte* dst, const std::byte* src, const std::uint8_t* select, std::size_t n,
                            std::size_t size) {
    while (n > 0 && !select[n - 1]) --n;
    auto each = [&]<std::size_t S>() {
      std::size_t o = 0;
      for (std::size_t k = 0; k < n; ++k) {
        std::memmove(dst + o * S, src + k * S, S);
        o += select[k] != 0;
      }
    };
    switch (size) {
    case 1: return each.template operator()<1>();
    case 2: return each.template operator()<2>();
    case 4: return each.template operator()<4>();
    case 8: return each.template operator()<8>();
    case 16: return each.template operator()<16>();
    default:
      for (std::size_t k = 0, o = 0; k < n; ++k)
        if (select[k]) std::memmove(dst + (o++) * size, src + k * size, size);
    }
  }

  /// Writes the cells run `r` takes from a tile whose cells (`size` bytes
  /// each) start at `tile` to `dst`, back to back.
  static void copy_run(std::byte* dst, const void* tile, const tile_run& r, std::size_t size) {
    const auto* src = static_cast<const std::byte*>(tile) + r.pos * size;
    if (r.select)
      copy_selected(dst, src, r.select, r.span, size);
    else if (r.count != 0)
      std::memcpy(dst, src, r.count * size);
  }

  /// The values (`size` bytes a cell) and, for a nullable field, the
  /// validity of run `run` of tile `t`, into its place in `r`.
  static void copy_run_cells(result_field& r, const tile_data& t, const tile_run& run, std::size_t size) {
    copy_run(r.values.data() + run.out * size, t.values.data(), run, size);
    if (r.nullable) copy_run(reinterpret_cast<std::byte*>(r.validity.data()) + run.out, t.validity.data(), run, 1);
  }

  /// The whole tile of a field in tile `tile` of fragment `frag` that the
  /// reader holds already (a var-size attribute its condition read, in
  /// read_runs), if any.
  using held_tiles = std::function<const tile_data*(std::uint32_t frag, std::uint64_t tile, const std::string& name)>;
  /// Fields a reader assembled already (read_runs' fixed-size attributes
  /// that its condition read), taken as they are by read_attributes.
  using ready_fields = std::map<std::string, result_field, std::less<>>;

  bool row_major() const { return plan_.layout != query_layout::col_major; }
  unsigned threads() const { return plan_.arr.options().threads; }

  /// Field `name`'s tiles `tiles` ((fragment, tile) pairs) of the
  /// fragments that have it, fetched together per fragment when the
  /// array's storage prefers few requests (fetched_tiles.hpp); else none.
  std::map<std::uint32_t, fetched_tiles> fetch_ahead(const std::vector<std::pair<std::uint32_t, std::uint64_t>>& tiles,
                                                     const std::string& name) const {
    std::map<std::uint32_t, fetched_tiles> out;
    if (!plan_.arr.storage().prefers_merged_reads()) return out;
    std::map<std::uint32_t, std::vector<std::size_t>> by_fragment;
    for (const auto& [k, t] : tiles) by_fragment[k].push_back(static_cast<std::size_t>(t));
    const auto& frags = plan_.arr.fragments();
    const bool attribute = plan_.schema().attribute(name) != nullptr;  // else a dimension, in every fragment
    for (auto& [k, list] : by_fragment)
      if (!attribute || has_attribute(frags[k].schema(), name))
        out.emplace(k, frags[k].fetch_tiles(frags[k].field(name), std::move(list)));
    return out;
  }
  static const fetched_tiles* ahead_of(const std::map<std::uint32_t, fetched_tiles>& ahead, std::uint32_t k) {
    const auto it = ahead.find(k);
    return it == ahead.end() ? nullptr : &it->second;
  }

  /// A one-dimensional read of one range without deletes or per-cell
  /// timestamps (a time series, typically) needs no per-cell bookkeeping. A
  /// tile holds its cells in order, so those inside the range are one run
  /// of positions; when no two tiles' bounding rectangles share a coordinate
  /// inside the range, no cell has an older twin to drop and TileDB's answer
  /// in every sorted layout is the runs in coordinate order, less the cells
  /// that fail the query's condition. nullopt when any of that does not hold
  /// (the general reader answers).
  ///
  /// The result holds little more than its own cells at any time: each
  /// tile's passing coordinates (and the values of the fixed-size attributes
  /// the condition read) are written straight to their place in the
  /// result's buffers, which are sized for every cell of the tiles but
  /// touched only as far as the result reaches. A tile learns its place
  /// when the tile before it has counted its cells (place_in_order).
  /// read_runs' few operations on a tile's coordinates, chosen once by
  /// their type, so that the rest of it is compiled once rather than once
  /// per coordinate type (ten copies of the tile loop).
  struct run_keys {
    /// The order_key of the coordinate `i` of those at `p`.
    std::uint64_t (*at)(const std::byte* p, std::size_t i);
    /// Whether the `n` coordinates at `p` are in order (strictly: no two equal).
    bool (*ordered)(const std::byte* p, std::size_t n, bool strict);
    /// The first of the `n` coordinates at `p` (in order) from `from` on
    /// whose key is at least `key` (`above`: more than `key`), else n.
    std::size_t (*first)(const std::byte* p, std::size_t n, std::size_t from, std::uint64_t key, bool above);

    template <class T>
    static std::uint64_t key_at(const std::byte* p, std::size_t i) {
      return order_key(codec::load_le<T>(p + i * sizeof(T)));
    }
    static run_keys of(format::Datatype type) {
      run_keys out{};
      with_coordinate_type(type, [&]<class T>() {
        out.at = &key_at<T>;
        out.ordered = [](const std::byte* p, std::size_t n, bool strict) {
          for (std::size_t i = 1; i < n; ++i) {
            const std::uint64_t a = key_at<T>(p, i - 1), b = key_at<T>(p, i);
            if (strict ? a >= b : a > b) return false;
          }
          return true;
        };
        out.first = [](const std::byte* p, std::size_t n, std::size_t from, std::uint64_t key, bool above) {
          std::size_t b = from, e = n;
          while (b < e) {
            const std::size_t m = b + (e - b) / 2;
            const std::uint64_t k = key_at<T>(p, m);
            if (above ? k <= key : k < key) b = m + 1;
            else e = m;
          }
          return b;
        };
      });
      if (!out.at) throw std::logic_error("tilefmt: read_runs on a dimension of no coordinate type");
      return out;
    }
  };

  std::optional<read_output> read_runs(const subarray& sub) const {
    if (dims_.size() != 1 || text(0) || !deletes_.empty() || sub.dim(0).ranges.size() != 1 ||
        plan_.schema().cell_order == format::Layout::HILBERT)
      return std::nullopt;
    if (plan_.layout == query_layout::unordered && dups()) return std::nullopt;  // storage order, not sorted
    const key_range range = sub.dim(0).ranges.front();
    struct segment {
      tile_run run;
      key_range box;  // the tile's bounding rectangle inside the range
      bool inside;    // all of it: every cell of the tile is in the range
      std::vector<tile_run> parts;  // the run, if any cell of it passes the condition
      std::vector<std::uint8_t> pass;  // which of the run's cells pass it (empty: all)
      std::map<std::string, tile_data, std::less<>> held;  // the condition's var-size tiles the result has
    };
    std::vector<segment> segs;
    const auto& frags = plan_.arr.fragments();
    for (std::size_t k = 0; k < frags.size(); ++k) {
      const auto& f = frags[k];
      if (f.dense() || f.has_delete_meta() || f.has_timestamps()) return std::nullopt;
      if (f.tile_num() == 0 || !overlaps(sub, f.non_empty_domain())) continue;
      const auto mbrs = f.mbrs();
      if (mbrs.size() != f.tile_num()) return std::nullopt;
      for (std::size_t t = 0; t < f.tile_num(); ++t) {
        if (mbrs[t].ranges.size() != 1 || !overlaps(sub, mbrs[t])) continue;
        key_range box;
        bool inside = false;
        with_coordinate_type(dims_[0].type.value, [&]<class T>() {
          const auto [lo, hi] = mbrs[t].ranges[0].as<T>();
          box = {std::max(order_key(lo), range.lo), std::min(order_key(hi), range.hi)};
          inside = box.lo == order_key(lo) && box.hi == order_key(hi);
        });
        segs.push_back({{static_cast<std::uint32_t>(k), t, 0, 0, 0}, box, inside, {}, {}, {}});
      }
    }
    std::sort(segs.begin(), segs.end(), [](const segment& a, const segment& b) { return a.box.lo < b.box.lo; });
    for (std::size_t j = 1; j < segs.size(); ++j)
      if (segs[j - 1].box.hi >= segs[j].box.lo) return std::nullopt;
    // The tiles' cells: the result has at most this many (saturating: the
    // counts come from the fragments' metadata, which check_size bounds).
    std::uint64_t cap = 0;
    for (const auto& s : segs) {
      const std::uint64_t cells = frags[s.run.frag].tile_cells(static_cast<std::size_t>(s.run.tile));
      cap = cells > std::numeric_limits<std::uint64_t>::max() - cap ? std::numeric_limits<std::uint64_t>::max() : cap + cells;
    }
    const std::size_t size = format::datatype_size(dims_[0].type.value);
    plan_.check_size(cap, size);
    const auto slots = static_cast<std::size_t>(cap);
    result_field coords;
    coords.name = dims_[0].name.value;
    coords.type = dims_[0].type.value;
    coords.values.resize(slots * size);  // unzeroed: only the pages written become resident
    ready_fields ready;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> seg_tiles;
    for (const auto& s : segs) seg_tiles.emplace_back(s.run.frag, s.run.tile);
    // The condition's tiles, fetched together where the storage prefers few
    // requests (a tile whose run turns out empty is fetched for nothing).
    std::map<std::string, std::map<std::uint32_t, fetched_tiles>, std::less<>> cond_ahead;
    if (plan_.where)
      for (const auto& name : plan_.where->field_names()) {
        if (name == dims_[0].name.value) continue;
        cond_ahead.emplace(name, fetch_ahead(seg_tiles, name));
        if (std::find(plan_.names.begin(), plan_.names.end(), name) == plan_.names.end()) continue;
        if (const auto& attr = plan_.attribute(name); !attr.is_var()) {
          result_field r = plan_.attribute_field(name);
          r.values.resize(slots * attr.cell_size());
          if (r.nullable) r.validity.resize(slots);
          ready.emplace(name, std::move(r));
        }
      }
    // The coordinate tiles, on the array's threads: each tile's cells in
    // the range (checked in order, else the general reader decides), then
    // those of them that pass the condition.
    const bool strict = !dups();
    std::vector<std::uint8_t> in_order(segs.size(), 1);
    const auto coords_ahead = fetch_ahead(seg_tiles, dims_[0].name.value);
    place_in_order places(segs.size());
    const run_keys keys = run_keys::of(dims_[0].type.value);
    parallel_for(segs.size(), threads(), [&](std::size_t j) {
      auto& s = segs[j];
      auto place = places.claim(j);
      const auto& f = frags[s.run.frag];
      const auto cells = static_cast<std::size_t>(f.tile_cells(static_cast<std::size_t>(s.run.tile)));
      // Whether the n coordinates at p are in order (the general reader
      // decides else).
      auto ordered = [&](const std::byte* p, std::size_t n) { return keys.ordered(p, n, strict); };
      if (s.inside && !plan_.where) {
        // Every cell is in (its bounding rectangle says so; checked): the
        // tile decodes straight into its place in the result.
        const auto out = place(cells);
        if (!out) return;
        std::byte* to = coords.values.data() + *out * size;
        f.read_values_as_stored_into(f.field(dims_[0].name.value), static_cast<std::size_t>(s.run.tile),
                                     std::span(to, cells * size), ahead_of(coords_ahead, s.run.frag));
        if (!ordered(to, cells) ||
            (cells != 0 && (keys.at(to, 0) < range.lo || keys.at(to, cells - 1) > range.hi))) {
          in_order[j] = 0;
          return;
        }
        s.run.count = cells;
        s.parts.push_back(s.run);
        s.parts.back().out = *out;
        return;
      }
      // The cells [first, second) of the n in order at p that are in the range.
      auto part_in_range = [&](const std::byte* p, std::size_t n) {
        const std::size_t lo = keys.first(p, n, 0, range.lo, false);
        return std::pair{lo, keys.first(p, n, lo, range.hi, true)};
      };
      if (!plan_.where) {
        // A chunk at a time, the cells in the range (one stretch: the tile
        // is in order, checked across chunks too) straight into the
        // result, once the tiles before this one have counted theirs.
        const auto start = place.start();
        if (!start) return;
        std::byte* const to = coords.values.data() + *start * size;
        std::size_t kept = 0;
        std::optional<std::uint64_t> last;
        f.read_values_in_chunks(
            f.field(dims_[0].name.value), static_cast<std::size_t>(s.run.tile),
            [&](std::size_t, std::size_t) { return in_order[j] != 0; },
            [&](std::size_t at, std::span<const std::byte> v) {
              const std::size_t n = v.size() / size;
              if (n == 0 || !in_order[j]) return;
              const std::uint64_t head = keys.at(v.data(), 0);
              if (!ordered(v.data(), n) || (last && (strict ? *last >= head : *last > head))) {
                in_order[j] = 0;
                return;
              }
              last = keys.at(v.data(), n - 1);
              const auto [lo, hi] = part_in_range(v.data(), n);
              if (lo == hi) return;
              if (kept == 0) s.run.pos = at + lo;
              std::memcpy(to + kept * size, v.data() + lo * size, (hi - lo) * size);
              kept += hi - lo;
            },
            ahead_of(coords_ahead, s.run.frag));
        if (!in_order[j]) return;
        s.run.count = kept;
        if (!place(kept) || kept == 0) return;
        s.parts.push_back(s.run);
        s.parts.back().out = *start;
        return;
      }
      const tile_data tile = f.read_tile(f.field(dims_[0].name.value), static_cast<std::size_t>(s.run.tile),
                                         ahead_of(coords_ahead, s.run.frag));
      if (tile.values.size() != cells * size)
        throw format_error("fragment " + f.name().str() + ": a tile of dimension " + dims_[0].name.value +
                               " holds " + std::to_string(tile.values.size()) + " bytes for " +
                               std::to_string(cells) + " cells",
                           0);
      if (!ordered(tile.values.data(), cells)) {
        in_order[j] = 0;
        return;
      }
      std::tie(s.run.pos, s.run.count) = part_in_range(tile.values.data(), cells);
      s.run.count -= s.run.pos;
      if (s.run.count == 0) return (void)place(0);
      // The condition, over the run's cells, from the tiles it names.
      std::map<std::string, tile_data, std::less<>> read;
      auto tile_of = [&](const std::string& name) -> const tile_data* {
        if (name == dims_[0].name.value) return &tile;
        if (!has_attribute(f.schema(), name)) return nullptr;  // added after the fragment
        auto it = read.find(name);
        if (it == read.end()) {
          const auto ahead = cond_ahead.find(name);
          it = read.emplace(name, f.read_tile(f.field(name), static_cast<std::size_t>(s.run.tile),
                                              ahead == cond_ahead.end() ? nullptr : ahead_of(ahead->second, s.run.frag)))
                   .first;
        }
        return &it->second;
      };
      auto pass = plan_.where->evaluate_range(s.run.pos, s.run.count, tile_of);
      const auto passed = static_cast<std::size_t>(std::count_if(pass.begin(), pass.end(), [](std::uint8_t b) { return b != 0; }));
      const auto out = place(passed);
      if (!out || passed == 0) return;
      s.parts.push_back(s.run);
      auto& part = s.parts.back();
      part.out = *out;
      if (passed != s.run.count) {
        s.pass = std::move(pass);
        part.select = s.pass.data();
        part.span = s.run.count;
        part.count = passed;
      }
      copy_run(coords.values.data() + part.out * size, tile.values.data(), part, size);
      // The passing cells of the result's fixed-size fields that the
      // condition names, from the tiles it read (or reads now: it need
      // not read them all, as in `a || b` where `a` holds everywhere).
      for (auto& [name, r] : ready) {
        const auto& attr = plan_.attribute(name);
        const std::size_t cell = attr.cell_size();
        std::byte* const to = r.values.data() + part.out * cell;
        const tile_data* t = tile_of(name);
        if (!t) {  // the fragment's schema predates the attribute: its fill value
          const std::vector<std::byte> fill = attr.fill();
          for (std::size_t c = 0; c < part.count; ++c) std::memcpy(to + c * cell, fill.data(), cell);
          if (r.nullable) std::fill_n(r.validity.begin() + static_cast<std::ptrdiff_t>(part.out), part.count, attr.fill_value_validity.value);
          continue;
        }
        if (cell == 0 || t->values.size() / cell < s.run.pos + s.run.count ||
            (r.nullable && t->validity.size() < s.run.pos + s.run.count))
          throw format_error("a tile of fragment " + f.name().str() + ", field " + name +
                                 " holds fewer cells than its coordinates",
                             0);
        copy_run_cells(r, *t, part, cell);
      }
      // The var-size ones the result has stay whole for read_attributes.
      for (auto& [name, t] : read)
        if (!ready.contains(name) && std::find(plan_.names.begin(), plan_.names.end(), name) != plan_.names.end())
          s.held.emplace(name, std::move(t));
    });
    if (std::find(in_order.begin(), in_order.end(), 0) != in_order.end() || !places.total()) return std::nullopt;
    const std::size_t n = *places.total();
    coords.values.resize(n * size);
    release_unused(coords.values);
    for (auto& [name, r] : ready) {
      r.values.resize(n * plan_.attribute(name).cell_size());
      release_unused(r.values);
      if (r.nullable) r.validity.resize(n);
    }
    std::vector<tile_run> runs;
    std::map<std::pair<std::uint32_t, std::uint64_t>, const segment*> by_tile;
    for (const auto& s : segs) {
      runs.insert(runs.end(), s.parts.begin(), s.parts.end());
      if (!s.held.empty()) by_tile.emplace(std::pair{s.run.frag, s.run.tile}, &s);
    }
    std::stable_sort(runs.begin(), runs.end(), [](const tile_run& a, const tile_run& b) {
      return a.frag != b.frag ? a.frag < b.frag : a.tile < b.tile;
    });
    std::vector<result_field> out;
    out.push_back(std::move(coords));
    const run_groups groups(std::move(runs));
    read_attributes(
        out, n, groups, true,
        [&](std::uint32_t frag, std::uint64_t tile, const std::string& name) -> const tile_data* {
          const auto it = by_tile.find({frag, tile});
          if (it == by_tile.end()) return nullptr;
          const auto t = it->second->held.find(name);
          return t == it->second->held.end() ? nullptr : &t->second;
        },
        &ready);
    return read_output{std::move(out), n, {}, {}, whole_tiles(groups)};
  }

  /// For aggregates: the tiles of `groups` all of whose cells are in the
  /// result.
  std::vector<read_output::whole_tile> whole_tiles(const run_groups& groups) const {
    std::vector<read_output::whole_tile> out;
    if (!plan_.aggregating) return out;
    const auto& frags = plan_.arr.fragments();
    std::vector<tile_run> scratch;
    for (std::size_t j = 0; j < groups.size(); ++j) {
      if (groups.cells(j) != frags[groups.frag(j)].tile_cells(static_cast<std::size_t>(groups.tile(j)))) continue;
      read_output::whole_tile w{groups.frag(j), groups.tile(j), {}};
      for (const auto& r : groups.runs(j, scratch)) w.runs.emplace_back(r.out, r.count);
      out.push_back(std::move(w));
    }
    return out;
  }
  bool dups() const { return plan_.schema().allows_dups.value; }

  /// Whether rectangle `m` (a non-empty domain or an MBR) meets the subarray.
  bool overlaps(const subarray& sub, const format::MBR& m) const {
    if (m.ranges.size() != dims_.size()) return true;  // not ours to judge: the tiles' coordinates decide
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (text(d)) {
        const auto [lo, hi] = m.ranges[d].as_strings();
        if (!sub.dim(d).overlaps_text(lo, hi)) return false;
        continue;
      }
      bool meets = true;
      with_coordinate_type(dims_[d].type.value, [&]<class T>() {
        const auto [lo, hi] = m.ranges[d].as<T>();
        meets = sub.dim(d).overlaps({order_key(lo), order_key(hi)});
      });
      if (!meets) return false;
    }
    return true;
  }

  /// Every cell of the subarray in every fragment, in storage order; with
  /// `per_range`, once for each ND range it is in.
  void collect(const subarray& sub, bool per_range) {
    const auto& frags = plan_.arr.fragments();
    const std::size_t nd = dims_.size();
    const auto& open = plan_.arr.options();
    // The ND range index is row-major (last dimension fastest) or column-major over the per-dimension ranges.
    std::vector<std::uint64_t> stride(nd, 1);
    for (std::size_t k = 1; k < nd; ++k) {
      if (row_major())
        stride[nd - 1 - k] = stride[nd - k] * sub.dim(nd - k).ranges.size();
      else
        stride[k] = stride[k - 1] * sub.dim(k - 1).ranges.size();
    }
    std::vector<std::vector<std::uint64_t>> cell_key(nd), tile_key(nd);
    std::vector<std::vector<std::size_t>> in_ranges(nd);
    with_ranges_ = per_range && sub.nd_range_num() > 1;
    with_stamps_ = std::any_of(frags.begin(), frags.end(), [](const fragment& f) { return f.has_timestamps(); });
    // The vectors grow as the cells come, not reserved for every cell of the
    // tiles the R-trees let in: that bound is many times the cells of a small
    // box, and reused heap pages under the reserve are resident (a 1% box of
    // bench/compare/compare_sparse_box.py: 45 MB grown, 73 MB reserved).
    for (std::size_t k = 0; k < frags.size(); ++k) {
      const auto& f = frags[k];
      plan_.check_fragment(f);
      if (f.dense())
        throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() + " of a sparse array is dense");
      if (f.tile_num() == 0 || !overlaps(sub, f.non_empty_domain())) continue;
      std::vector<field_info> dim_fields;
      for (const auto& dim : dims_) dim_fields.push_back(f.field(dim.name.value));
      std::optional<field_info> deleted_at;
      if (f.has_delete_meta()) deleted_at = f.field("__delete_timestamps");
      const auto mbrs = f.mbrs();
      // The coordinate tiles the subarray meets, fetched together where the
      // storage prefers few requests (the loop below reads them one by one).
      std::vector<fetched_tiles> ahead;
      if (plan_.arr.storage().prefers_merged_reads()) {
        std::vector<std::size_t> wanted;
        for (std::size_t t = 0; t < f.tile_num(); ++t)
          if (mbrs.empty() || overlaps(sub, mbrs[t])) wanted.push_back(t);
        for (const auto& fi : dim_fields) ahead.push_back(f.fetch_tiles(fi, wanted));
      }
      for (std::size_t t = 0; t < f.tile_num(); ++t) {
        if (!mbrs.empty() && !overlaps(sub, mbrs[t])) continue;
        const auto cells = static_cast<std::size_t>(f.tile_cells(t));
        std::vector<tile_data> coords;
        for (std::size_t d = 0; d < nd; ++d) {
          coords.push_back(f.read_tile(dim_fields[d], t, ahead.empty() ? nullptr : &ahead[d]));
          tile_keys(d, coords.back(), cells, f, cell_key[d], tile_key[d]);
        }
        // When each cell was written: a fragment consolidated with
        // timestamps holds cells of several writes, and those written outside
        // the opened time range are not there at all.
        std::vector<std::uint64_t> written;
        if (f.has_timestamps()) written = little_endian_u64(f.read_tile(f.field("__timestamps"), t).values, cells, f);
        // The cells inside the subarray, then which of them the filters drop.
        std::vector<std::uint64_t> in_sub;
        for (std::size_t i = 0; i < cells; ++i) {
          if (!written.empty() && (written[i] < open.timestamp_start || written[i] > open.timestamp_end)) continue;
          bool in = true;
          for (std::size_t d = 0; d < nd && in; ++d)
            in = text(d) ? sub.dim(d).contains_text(text_cell(coords[d], i)) : sub.dim(d).contains(cell_key[d][i]);
          if (in) in_sub.push_back(i);
        }
        if (in_sub.empty()) continue;
        const auto gone = dropped(f, t, cells, coords, in_sub, deleted_at);
        for (std::size_t x = 0; x < in_sub.size(); ++x) {
          const auto i = static_cast<std::size_t>(in_sub[x]);
          const hit h{t, i, static_cast<std::uint32_t>(k), gone[x] != 0};
          const std::uint64_t stamp = written.empty() ? f.timestamp_start() : written[i];
          if (!with_ranges_) {
            add(h, coords, cell_key, tile_key, i, 0, stamp);
            continue;
          }
          // One hit per ND range the cell is in: every combination of its per-dimension ranges.
          for (std::size_t d = 0; d < nd; ++d) {
            in_ranges[d].clear();
            const auto& rs = sub.dim(d).ranges;
            for (std::size_t r = 0; r < rs.size(); ++r)
              if (text(d) ? sub.dim(d).text[r].contains(text_cell(coords[d], i)) : rs[r].contains(cell_key[d][i]))
                in_ranges[d].push_back(r);
          }
          std::vector<std::size_t> which(nd, 0);
          for (;;) {
            std::uint64_t range = 0;
            for (std::size_t d = 0; d < nd; ++d) range += in_ranges[d][which[d]] * stride[d];
            add(h, coords, cell_key, tile_key, i, range, stamp);
            std::size_t d = nd;
            while (d > 0 && ++which[d - 1] == in_ranges[d - 1].size()) which[--d] = 0;
            if (d == 0) break;
          }
        }
      }
    }
  }

  /// For each of `cells` (positions in tile `t` of `f`), 1 when a filter
  /// applied after choosing the newest cells drops it: deleted at or before
  /// the opening time (`__delete_timestamps`), deleted by a delete commit
  /// not yet applied to the fragment, or failing the query's condition.
  std::vector<std::uint8_t> dropped(const fragment& f, std::size_t t, std::size_t tile_cells,
                                    const std::vector<tile_data>& coords, const std::vector<std::uint64_t>& cells,
                                    const std::optional<field_info>& deleted_at) const {
    std::vector<std::uint8_t> out(cells.size(), 0);
    const std::uint64_t open_end = plan_.arr.options().timestamp_end;
    if (deleted_at) {
      const auto at = little_endian_u64(f.read_tile(*deleted_at, t).values, tile_cells, f);
      for (std::size_t x = 0; x < cells.size(); ++x) {
        const std::uint64_t d = at[static_cast<std::size_t>(cells[x])];
        // UINT64_MAX: never deleted.
        out[x] = open_end == std::numeric_limits<std::uint64_t>::max() ? d < open_end : d <= open_end;
      }
    }
    std::map<std::string, tile_data, std::less<>> read;
    auto tile_of = [&](const std::string& name) -> const tile_data* {
      for (std::size_t d = 0; d < dims_.size(); ++d)
        if (dims_[d].name.value == name) return &coords[d];
      if (name != "__timestamps" && !has_attribute(f.schema(), name)) return nullptr;  // added after the fragment
      auto it = read.find(name);
      if (it == read.end()) it = read.emplace(name, f.read_tile(f.field(name), t)).first;
      return &it->second;
    };
    const auto done = deletes_.empty() ? std::vector<std::string>{} : f.processed_conditions();
    for (const auto& del : deletes_) {
      // A delete applies to the cells written before it, once.
      if (del.timestamp < f.timestamp_start()) continue;
      if (std::find(done.begin(), done.end(), del.marker) != done.end()) continue;
      const auto keep = del.keep.evaluate(cells, tile_of);
      std::vector<std::uint64_t> written;
      // A fragment consolidated with timestamps across the delete: cells written after it stay.
      if (f.has_timestamps() && del.timestamp <= f.timestamp_end())
        written = little_endian_u64(tile_of("__timestamps")->values, tile_cells, f);
      for (std::size_t x = 0; x < cells.size(); ++x) {
        const bool later = !written.empty() && written[static_cast<std::size_t>(cells[x])] > del.timestamp;
        if (!keep[x] && !later) out[x] = 1;
      }
    }
    if (plan_.where) {
      const auto pass = plan_.where->evaluate(cells, tile_of);
      for (std::size_t x = 0; x < cells.size(); ++x)
        if (!pass[x]) out[x] = 1;
    }
    return out;
  }

  /// A string dimension (the subarray refuses other var-size ones).
  bool text(std::size_t d) const { return dims_[d].is_var(); }

  /// Cell `i` of a string dimension's tile.
  static std::string_view text_cell(const tile_data& t, std::size_t i) {
    const auto s = var_cell(t.values, t.offsets, i);
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }

  /// Keys of the `cells` coordinates of dimension `d` in tile `t` (string
  /// dimensions get theirs from rank_strings, once every cell is in).
  void tile_keys(std::size_t d, const tile_data& t, std::size_t cells, const fragment& f,
                 std::vector<std::uint64_t>& cell_key, std::vector<std::uint64_t>& tile_key) const {
    const auto& dim = dims_[d];
    cell_key.assign(cells, 0);
    tile_key.resize(cells);
    if (text(d)) {
      if (t.offsets.size() != cells)
        throw format_error("fragment " + f.name().str() + ": a tile of dimension " + dim.name.value + " holds " +
                               std::to_string(t.offsets.size()) + " coordinates for " + std::to_string(cells) + " cells",
                           0);
      return;
    }
    if (t.values.size() != cells * format::datatype_size(dim.type.value))
      throw format_error("fragment " + f.name().str() + ": a tile of dimension " + dim.name.value + " holds " +
                             std::to_string(t.values.size()) + " bytes for " + std::to_string(cells) + " cells",
                         0);
    with_coordinate_type(dim.type.value, [&]<class T>() {
      const auto [lo, hi] = dim.domain_as<T>();
      (void)hi;
      const T ext = keys_.tiled[d] ? *dim.tile_extent_as<T>() : T{1};
      for (std::size_t i = 0; i < cells; ++i) {
        const T v = codec::load_le<T>(t.values.data() + i * sizeof(T));
        cell_key[i] = order_key(v);
        if (keys_.tiled[d]) tile_key[i] = tile_index(v, lo, ext);
      }
    });
  }

  static std::vector<std::uint64_t> little_endian_u64(const std::vector<std::byte>& bytes, std::size_t cells,
                                                      const fragment& f) {
    if (bytes.size() != cells * 8)
      throw format_error("fragment " + f.name().str() + ": a tile of __delete_timestamps holds " +
                             std::to_string(bytes.size()) + " bytes for " + std::to_string(cells) + " cells",
                         0);
    std::vector<std::uint64_t> out(cells);
    codec::load_le_array(bytes.data(), out.data(), cells);
    return out;
  }

  void add(const hit& h, const std::vector<tile_data>& coords, const std::vector<std::vector<std::uint64_t>>& cell_key,
           const std::vector<std::vector<std::uint64_t>>& tile_key, std::size_t i, std::uint64_t range,
           std::uint64_t stamp) {
    hits_.push_back(h);
    if (with_ranges_) ranges_.push_back(range);
    if (with_stamps_) stamps_.push_back(stamp);
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (text(d)) {
        strings_[d].emplace_back(text_cell(coords[d], i));
        keys_.cell[d].push_back(0);
        continue;
      }
      keys_.cell[d].push_back(cell_key[d][i]);
      if (keys_.tiled[d]) keys_.tile[d].push_back(tile_key[d][i]);
    }
  }

  /// String coordinates' keys: their ranks in bytewise order among the
  /// cells read (equal strings, equal keys), so that sorting and finding
  /// equal coordinates compare keys for every dimension.
  void rank_strings() {
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (!text(d)) continue;
      const auto& str = strings_[d];
      std::vector<std::size_t> idx(str.size());
      std::iota(idx.begin(), idx.end(), std::size_t{0});
      std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return str[a] < str[b]; });
      std::uint64_t rank = 0;
      for (std::size_t k = 0; k < idx.size(); ++k) {
        if (k > 0 && str[idx[k]] != str[idx[k - 1]]) ++rank;
        keys_.cell[d][idx[k]] = rank;
      }
    }
  }

  /// Hit `i`'s ND range (row- and column-major reads), and when it was
  /// written: the cell's timestamp, or its fragment's first.
  std::uint64_t range(std::size_t i) const { return with_ranges_ ? ranges_[i] : 0; }
  std::uint64_t stamp(std::size_t i) const {
    return with_stamps_ ? stamps_[i] : plan_.arr.fragments()[hits_[i].frag].timestamp_start();
  }

  /// Of each run of equal coordinates in `idx[b, e)` (sorted), the cell
  /// written last (the first of them on a tie).
  void keep_newest(std::vector<std::size_t>& idx, std::size_t b, std::size_t e, std::vector<bool>& dropped) const {
    for (std::size_t i = b; i < e;) {
      std::size_t j = i + 1, best = i;
      while (j < e && keys_.same_coordinates(idx[i], idx[j])) {
        const std::uint64_t sx = stamp(idx[j]), sy = stamp(idx[best]);
        if (sx > sy || (sx == sy && hits_[idx[j]].frag > hits_[idx[best]].frag)) best = j;
        ++j;
      }
      for (std::size_t x = i; x < j; ++x)
        if (x != best) dropped[idx[x]] = true;
      i = j;
    }
  }

  std::vector<std::size_t> legacy_order() const {
    std::vector<std::size_t> idx(hits_.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    // Range by range, each in storage order.
    sort_stably(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return range(a) < range(b); }, threads());
    const bool row = row_major();
    auto layout_less = [&](std::size_t a, std::size_t b) { return keys_.layout_less(a, b, row); };
    std::vector<bool> dropped(hits_.size(), false);
    for (std::size_t b = 0; b < idx.size();) {
      std::size_t e = b;
      bool several = false;
      while (e < idx.size() && range(idx[e]) == range(idx[b])) {
        // Cells of several writes: several fragments, or one consolidated with timestamps.
        several = several || hits_[idx[e]].frag != hits_[idx[b]].frag ||
                  plan_.arr.fragments()[hits_[idx[e]].frag].has_timestamps();
        ++e;
      }
      if (several && !dups()) {
        sort_stably(idx.begin() + static_cast<std::ptrdiff_t>(b), idx.begin() + static_cast<std::ptrdiff_t>(e),
                    layout_less, threads());
        keep_newest(idx, b, e, dropped);
      }
      b = e;
    }
    // Whether the cells come from one fragment is judged before the query's
    // condition and the delete commits take cells out, as TileDB's legacy
    // reader judges it (Reader::compute_subarray_coords, then
    // apply_query_condition): a condition that leaves one fragment's cells
    // still gets them sorted.
    // The cells kept are compacted in place: a second index would cost 8
    // bytes a cell more at the peak.
    bool one_fragment = true;
    std::optional<std::uint32_t> first;
    std::size_t kept = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      const std::size_t i = idx[k];
      if (dropped[i]) continue;
      if (!first) first = hits_[i].frag;
      else if (hits_[i].frag != *first) one_fragment = false;
      if (!hits_[i].filtered) idx[kept++] = i;
    }
    idx.resize(kept);
    if (dims_.size() > 1 || !one_fragment) sort_by_layout(idx, row);
    return idx;
  }

  /// Sorts hits `idx` stably by their coordinates in the row- or
  /// column-major layout. When `idx` is in increasing order (one range: the
  /// hits in storage order) and the keys' spread among the hits fits beside
  /// the hit index in 64 bits, by a radix sort of the keys packed above it
  /// (equal keys stay in index order, as in a stable sort); else by
  /// comparisons. A 2-D box of 2 million cells: 28 key bits, three passes.
  void sort_by_layout(std::vector<std::size_t>& idx, bool row) const {
    const auto less = [&](std::size_t a, std::size_t b) { return keys_.layout_less(a, b, row); };
    if (std::is_sorted(idx.begin(), idx.end(), less)) return;
    const std::size_t nd = dims_.size();
    const int index_bits = std::bit_width(hits_.size() - 1);  // idx has two hits or more
    std::vector<std::uint64_t> lo(nd, 0);
    std::vector<int> width(nd, 0);
    int key_bits = 0;
    for (std::size_t d = 0; d < nd; ++d) {
      const auto& key = keys_.cell[d];
      const auto [mn, mx] = std::minmax_element(idx.begin(), idx.end(),
                                                [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
      lo[d] = key[*mn];
      width[d] = std::bit_width(key[*mx] - lo[d]);
      key_bits += width[d];
    }
    if constexpr (std::is_same_v<std::size_t, std::uint64_t>) {
      if (index_bits + key_bits <= 64 && std::is_sorted(idx.begin(), idx.end())) {
        for (auto& i : idx) {
          std::uint64_t packed = 0;
          for (std::size_t k = 0; k < nd; ++k) {
            const std::size_t d = row ? k : nd - 1 - k;
            packed = (packed << width[d]) | (keys_.cell[d][i] - lo[d]);
          }
          i |= packed << index_bits;
        }
        radix_sort(idx, index_bits, index_bits + key_bits, threads());
        const std::uint64_t mask = (std::uint64_t{1} << index_bits) - 1;
        for (auto& i : idx) i &= mask;
        return;
      }
    }
    parallel_stable_sort(idx.begin(), idx.end(), less, threads());  // not in order: checked above
  }

  /// Each hit's place on the Hilbert curve (model/hilbert.hpp), which is
  /// the global order of arrays in Hilbert cell order.
  void hilbert_values() {
    const auto curve = hilbert_curve::for_reading(dims_);
    hilbert_.assign(hits_.size(), 0);
    std::vector<std::uint64_t> x(dims_.size());
    for (std::size_t i = 0; i < hits_.size(); ++i) {
      for (std::size_t d = 0; d < dims_.size(); ++d) {
        if (text(d)) {
          x[d] = curve.bucket(std::string_view(strings_[d][i]));
          continue;
        }
        with_coordinate_type(dims_[d].type.value,
                             [&]<class T>() { x[d] = curve.bucket(d, from_order_key<T>(keys_.cell[d][i])); });
      }
      hilbert_[i] = curve.value(x);
    }
  }

  std::vector<std::size_t> merged_order() const {
    std::vector<std::size_t> idx(hits_.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::vector<bool> dropped(hits_.size(), false);
    const bool sorted = plan_.layout == query_layout::global_order || !dups();
    if (!hilbert_.empty() && sorted) {
      // TileDB's HilbertCmp: the curve, then row-major coordinates.
      sort_stably(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        if (hilbert_[a] != hilbert_[b]) return hilbert_[a] < hilbert_[b];
        return keys_.layout_less(a, b, true);
      }, threads());
      if (!dups()) keep_newest(idx, 0, idx.size(), dropped);
    } else if (sorted && hilbert_.empty()) {
      const bool tile_row = plan_.schema().tile_order != format::Layout::COL_MAJOR;
      const bool cell_row = plan_.schema().cell_order != format::Layout::COL_MAJOR;
      sort_stably(idx.begin(), idx.end(),
                  [&](std::size_t a, std::size_t b) { return keys_.global_less(a, b, tile_row, cell_row); },
                  threads());
      if (!dups()) keep_newest(idx, 0, idx.size(), dropped);
    }
    std::size_t kept = 0;  // compacted in place, as in legacy_order
    for (std::size_t k = 0; k < idx.size(); ++k)
      if (!dropped[idx[k]] && !hits_[idx[k]].filtered) idx[kept++] = idx[k];
    idx.resize(kept);
    return idx;
  }

  /// The result's coordinate columns, cell `c` from hit `order[c]`.
  std::vector<result_field> coordinate_fields(const std::vector<std::size_t>& order) const {
    const std::size_t n = order.size();
    std::uint64_t coord_bytes = 0;
    for (std::size_t d = 0; d < dims_.size(); ++d)
      coord_bytes += text(d) ? sizeof(std::uint64_t) + 2 * sizeof(void*) : format::datatype_size(dims_[d].type.value);
    plan_.check_size(n, coord_bytes);
    std::vector<result_field> out;
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      result_field r;
      r.name = dims_[d].name.value;
      r.type = dims_[d].type.value;
      if (text(d)) {
        r.var = true;
        std::vector<std::span<const std::byte>> cells(n);
        for (std::size_t c = 0; c < n; ++c) cells[c] = std::as_bytes(std::span(strings_[d][order[c]]));
        store_var_cells(r, cells);
        out.push_back(std::move(r));
        continue;
      }
      // The coordinates as stored (little-endian), from their keys.
      with_coordinate_type(r.type, [&]<class T>() {
        r.values.resize(n * sizeof(T));
        const auto& key = keys_.cell[d];
        for (std::size_t c = 0; c < n; ++c)
          codec::store_le(r.values.data() + c * sizeof(T), from_order_key<T>(key[order[c]]));
      });
      out.push_back(std::move(r));
    }
    return out;
  }

  /// The result's cells (hits `order`) grouped by the tile they come from,
  /// so that each tile is read once: the hits are in storage order
  /// (fragment, then tile), so each hit's place in the result is all it takes.
  run_groups group_by_tile(const std::vector<std::size_t>& order) const {
    std::vector<std::size_t> place(hits_.size(), run_groups::none);
    for (std::size_t c = 0; c < order.size(); ++c) place[order[c]] = c;
    return run_groups(hits_, std::move(place));
  }

  /// Fixed-size attribute `name`'s cells of `runs` (all from one tile of
  /// fragment `frag`) into `out` (cells of `size` bytes), without a tile
  /// buffer: straight into the result when the runs take the whole tile in
  /// its order to one stretch of it, else only the chunks that hold cells
  /// of the runs (fragment::read_cells_into). False, with nothing read, for
  /// runs that select cells (a condition's): their tile is read whole.
  bool read_values_unbuffered(const fragment& frag, std::uint64_t tile, const std::string& name,
                              std::span<const tile_run> runs, std::byte* out, std::size_t size,
                              const fetched_tiles* ahead) const {
    if (std::any_of(runs.begin(), runs.end(), [](const tile_run& r) { return r.select != nullptr; })) return false;
    const auto& field = frag.field(name);
    const std::uint64_t cells = frag.tile_cells(static_cast<std::size_t>(tile));
    // Whole: the runs follow each other in the tile and in the result.
    std::size_t next = 0;
    for (const auto& r : runs) {
      if (r.pos != next || r.out != runs.front().out + next) {
        next = 0;  // not in order, or a cell twice (ranges that overlap)
        break;
      }
      next += r.count;
    }
    if (next == cells && cells != 0) {
      frag.read_values_as_stored_into(field, static_cast<std::size_t>(tile),
                                      std::span(out + runs.front().out * size, static_cast<std::size_t>(cells) * size),
                                      ahead);
      return true;
    }
    for (const auto& r : runs)
      if (r.pos + r.count > cells)
        throw format_error("a tile of fragment " + frag.name().str() + ", field " + name + " holds fewer cells " +
                               "than its coordinates",
                           0);
    // Each run's cells to its place in the result (the fragment decodes only
    // the chunks that hold some, and a byte shuffle writes them there).
    std::vector<cell_copy> copies;
    copies.reserve(runs.size());
    for (const auto& r : runs) copies.push_back({r.pos, r.count, out + r.out * size});
    frag.read_cells_into(field, static_cast<std::size_t>(tile), copies, ahead);
    return true;
  }

  /// Appends each attribute's field of an `n`-cell result made of the runs
  /// of `groups`: each tile read once, on the array's threads, and
  /// each result cell written by the thread that reads its tile. Tiles
  /// `held` has are taken from it, fields `ready` has as they are. With
  /// `whole` (the groups of runs are read_output::whole_tiles when they
  /// cover their tile), a whole tile the plan's aggregates answer from its
  /// metadata (read_plan::answered) is not read: its cells keep zero bytes,
  /// which the aggregates leave out.
  void read_attributes(std::vector<result_field>& out, std::size_t n, const run_groups& groups,
                       bool whole = false, const held_tiles& held = {}, ready_fields* ready = nullptr) const {
    const auto& frags = plan_.arr.fragments();
    // Which groups are whole tiles (every cell in the result).
    std::vector<std::uint8_t> full(groups.size(), 0);
    if (whole && plan_.aggregating && plan_.answered)
      for (std::size_t j = 0; j < groups.size(); ++j)
        full[j] = groups.cells(j) == frags[groups.frag(j)].tile_cells(static_cast<std::size_t>(groups.tile(j)));
    for (const auto& name : plan_.names) {
      if (ready) {
        if (const auto it = ready->find(name); it != ready->end()) {
          out.push_back(std::move(it->second));
          continue;
        }
      }
      const auto& attr = plan_.attribute(name);
      result_field r = plan_.attribute_field(name);
      const std::vector<std::byte> fill = attr.fill();
      const std::size_t size = fill.size();
      if (r.nullable) r.validity.assign(n, attr.fill_value_validity.value);
      if (!r.var) r.values.resize(n * size);
      std::vector<std::span<const std::byte>> var_cells(r.var ? n : 0, std::span<const std::byte>(fill));
      std::vector<std::optional<tile_data>> kept(r.var ? groups.size() : 0);  // var-size cells point into these
      // The tiles read below (not answered from metadata, not held).
      std::vector<std::pair<std::uint32_t, std::uint64_t>> to_read;
      if (plan_.arr.storage().prefers_merged_reads())
        for (std::size_t j = 0; j < groups.size(); ++j) {
          const std::uint32_t f = groups.frag(j);
          const std::uint64_t t = groups.tile(j);
          if (full[j] && plan_.answered(frags[f], t, name)) continue;
          if (held && held(f, t, name)) continue;
          to_read.emplace_back(f, t);
        }
      const auto ahead = fetch_ahead(to_read, name);
      parallel_for(groups.size(), threads(), [&](std::size_t j) {
        const std::uint32_t f = groups.frag(j);
        const std::uint64_t tile = groups.tile(j);
        const auto& frag = frags[f];
        if (full[j] && plan_.answered(frag, tile, name)) return;
        std::optional<tile_data> read;
        const tile_data* t = held ? held(f, tile, name) : nullptr;
        std::vector<tile_run> scratch;
        const std::span<const tile_run> group_runs = groups.runs(j, scratch);
        if (!t && !r.var && !r.nullable && has_attribute(frag.schema(), name) &&
            read_values_unbuffered(frag, tile, name, group_runs, r.values.data(), size, ahead_of(ahead, f)))
          return;
        if (!t && has_attribute(frag.schema(), name)) {
          read = frag.read_tile(frag.field(name), static_cast<std::size_t>(tile), ahead_of(ahead, f));
          t = &*read;
        }
        for (const tile_run& run : group_runs) {
          if (!t) {  // the fragment's schema predates the attribute: its fill value
            if (!r.var)
              for (std::size_t c = run.out; c < run.out + run.count; ++c)
                std::memcpy(r.values.data() + c * size, fill.data(), size);
            continue;
          }
          const std::size_t span = run.covered();
          const std::size_t have = r.var ? t->offsets.size() : t->values.size() / size;
          if (run.pos + span > have || (r.nullable && run.pos + span > t->validity.size()))
            throw format_error("a tile of fragment " + frag.name().str() + ", field " + name + " holds fewer cells " +
                                   "than its coordinates",
                               0);
          if (!r.var) {
            copy_run_cells(r, *t, run, size);
            continue;
          }
          for (std::size_t k = 0, c = run.out; k < span; ++k)
            if (!run.select || run.select[k]) var_cells[c++] = var_cell(t->values, t->offsets, run.pos + k);
          if (r.nullable) copy_run(reinterpret_cast<std::byte*>(r.validity.data()) + run.out, t->validity.data(), run, 1);
        }
        if (r.var && read) kept[j] = std::move(read);
      });
      if (r.var) store_var_cells(r, var_cells);
      out.push_back(std::move(r));
    }
  }

  const read_plan& plan_;
  const std::vector<format::Dimension>& dims_;
  std::vector<delete_commit> deletes_;
  std::vector<hit> hits_;  // in storage order: fragment, then tile (run_groups relies on it)
  bool with_ranges_ = false;          // a row- or column-major read of several ND ranges
  bool with_stamps_ = false;          // a fragment stores a timestamp per cell
  std::vector<std::uint64_t> ranges_;  // with_ranges_: each hit's ND range
  std::vector<std::uint64_t> stamps_;  // with_stamps_: when each hit was written
  cell_keys keys_;
  std::vector<std::vector<std::string>> strings_;  // per string dimension: each hit's coordinate
  std::vector<std::uint64_t> hilbert_;             // Hilbert cell order, global and unordered reads: each hit's value
};

inline read_output read_sparse(const read_plan& plan) {
  return sparse_reader(plan).read();
}

} // namespace tilefmt::array::detail
