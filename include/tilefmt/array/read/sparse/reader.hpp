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
//
// Its parts call one way: this general reader finds the cells and orders
// them; one_range.hpp answers one range of a one-dimensional array and
// in_order.hpp the global-order and unordered reads that need no sort (the
// cells as stored, or fragments merged by merge.hpp), both without per-cell
// records; all hand their runs of cells (runs.hpp) to gather.hpp, which
// reads the attributes' tiles into the result. What is left here: row- and
// column-major reads, the Hilbert order, deletes, per-cell timestamps, and
// several fragments of arrays with string dimensions.
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
#include "tilefmt/array/model/global_order.hpp"
#include "tilefmt/array/read/condition_eval.hpp"
#include "tilefmt/array/read/delete_commits.hpp"
#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/read/sparse/gather.hpp"
#include "tilefmt/array/read/sparse/in_order.hpp"
#include "tilefmt/array/read/sparse/one_range.hpp"
#include "tilefmt/array/read/sparse/runs.hpp"
#include "tilefmt/array/support/parallel.hpp"
#include "tilefmt/array/support/radix_sort.hpp"
// fragment::read_values_in_chunks, a member template, is defined there
// (array.hpp leaves it out of programs built with TILEFMT_COMPILED).
#include "tilefmt/array/read/fragment-inl.hpp"

namespace tilefmt::array::detail {

/// A stable sort on up to `threads` threads. Cells come fragment by
/// fragment, each fragment's in global order: in that order they are a few
/// runs in order (none to sort when the fragments follow each other), which
/// are merged rather than sorted (the same result).
template <class It, class Less>
void sort_stably(It first, It last, Less less, unsigned threads) {
  stable_sort_runs(first, last, less, threads);
}

class sparse_reader {
public:
  explicit sparse_reader(const read_plan& plan)
      : plan_(plan),
        gather_(plan),
        dims_(plan.schema().domain.dimensions.value),
        // Row- and column-major reads order cells by their coordinates
        // alone: no space tile keys.
        order_(global_order::for_reading(plan.schema(), plan.layout != query_layout::row_major &&
                                                            plan.layout != query_layout::col_major)),
        keys_(order_.keys),
        strings_(dims_.size()) {}

  read_output read() {
    deletes_ = load_delete_commits(plan_.arr, plan_.schema());
    const auto layout = plan_.layout;
    const bool legacy = layout == query_layout::row_major || layout == query_layout::col_major;
    const subarray merged = legacy ? plan_.sub : plan_.sub.merged();
    if (layout == query_layout::global_order && merged.nd_range_num() > 1)
      throw std::invalid_argument("tilefmt: query: several ranges per dimension cannot be read in global order "
                                  "(TileDB refuses it too)");
    if (!merged.empty()) {
      if (deletes_.empty()) {
        if (auto runs = sparse_one_range(plan_, gather_).read(merged)) return std::move(*runs);
        if (!legacy)
          if (auto stored = sparse_in_order(plan_, gather_).read(merged)) return std::move(*stored);
      }
      collect(merged, legacy);
    }
    rank_strings();
    if (!legacy && order_.hilbert())
      order_.compute_hilbert([&](std::size_t d, std::size_t i) -> std::string_view { return strings_[d][i]; });
    auto order = legacy ? legacy_order() : merged_order();
    // What only orders the cells goes before the result comes; the cell keys
    // give the coordinates back, and go once those are in the result; the
    // order, once each hit knows its place.
    order_.drop_sort_keys();
    const std::size_t cells = order.size();
    read_output out{coordinate_fields(order), cells, {}, {}, {}};
    const run_groups groups = group_by_tile(order);
    std::vector<std::size_t>().swap(order);
    // A cell of several ranges is there once a range: its tile is not whole.
    const bool whole = !legacy || merged.nd_range_num() <= 1;
    gather_.read_attributes(out.fields, cells, groups, whole);
    if (whole) out.whole_tiles = gather_.whole_tiles(groups);
    return out;
  }

private:  using hit = sparse_hit;

  bool row_major() const { return plan_.layout != query_layout::col_major; }
  unsigned threads() const { return plan_.arr.options().threads; }

  bool dups() const { return plan_.schema().allows_dups.value; }

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
    // The fragments and tiles the subarray meets (by non-empty domain and
    // R-tree); where the storage prefers few requests, the coordinate tiles
    // of all of them are fetched together (the loop below reads them one by one).
    std::vector<std::vector<format::MBR>> mbrs(frags.size());
    std::vector<char> meets(frags.size(), 0);
    sparse_gather::tile_list wanted;
    for (std::size_t k = 0; k < frags.size(); ++k) {
      const auto& f = frags[k];
      plan_.check_fragment(f);
      if (f.dense())
        throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() + " of a sparse array is dense");
      if (f.tile_num() == 0 || !meets_subarray(sub, dims_, f.non_empty_domain())) continue;
      meets[k] = 1;
      mbrs[k] = f.mbrs();
      if (plan_.arr.storage().prefers_merged_reads())
        for (std::size_t t = 0; t < f.tile_num(); ++t)
          if (mbrs[k].empty() || meets_subarray(sub, dims_, mbrs[k][t])) wanted.emplace_back(static_cast<std::uint32_t>(k), t);
    }
    std::vector<std::string> dim_names;
    for (const auto& dim : dims_) dim_names.push_back(dim.name.value);
    reserve_for(sub, mbrs, meets);
    const auto ahead = gather_.fetch_ahead(wanted, dim_names);
    for (std::size_t k = 0; k < frags.size(); ++k) {
      if (!meets[k]) continue;
      const auto& f = frags[k];
      std::vector<field_info> dim_fields;
      for (const auto& dim : dims_) dim_fields.push_back(f.field(dim.name.value));
      std::optional<field_info> deleted_at;
      if (f.has_delete_meta()) deleted_at = f.field("__delete_timestamps");
      for (std::size_t t = 0; t < f.tile_num(); ++t) {
        if (!mbrs[k].empty() && !meets_subarray(sub, dims_, mbrs[k][t])) continue;
        const auto cells = static_cast<std::size_t>(f.tile_cells(t));
        if (t > std::numeric_limits<std::uint32_t>::max() || cells > std::numeric_limits<std::uint32_t>::max())
          throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() +
                                      " has over 2^32 tiles or cells a tile");
        std::vector<tile_data> coords;
        for (std::size_t d = 0; d < nd; ++d) {
          coords.push_back(f.read_tile(dim_fields[d], t, sparse_gather::ahead_of(ahead[d], static_cast<std::uint32_t>(k))));
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
          const hit h{static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k),
                      gone[x] != 0};
          const std::uint64_t stamp = written.empty() ? f.timestamp_start() : written[i];
          if (!with_ranges_) {
            add(h, coords, cell_key, tile_key, i, 0, stamp);
            continue;
          }
          // One hit per ND range the cell is in: every combination of its per-dimension ranges.
          for (std::size_t d = 0; d < nd; ++d) {
            in_ranges[d].clear();
            sub.dim(d).ranges_holding(text(d) ? 0 : cell_key[d][i], text(d) ? text_cell(coords[d], i) : std::string_view{},
                                      in_ranges[d]);
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
    format::visit_coordinate_type(dim.type.value, [&]<class T>() {
      for (std::size_t i = 0; i < cells; ++i) {
        const T v = codec::load_le<T>(t.values.data() + i * sizeof(T));
        cell_key[i] = order_key(v);
        tile_key[i] = order_.space_tile(d, v);
      }
    });
  }

  static std::vector<std::uint64_t> little_endian_u64(std::span<const std::byte> bytes, std::size_t cells,
                                                      const fragment& f) {
    if (bytes.size() != cells * 8)
      throw format_error("fragment " + f.name().str() + ": a tile of __delete_timestamps holds " +
                             std::to_string(bytes.size()) + " bytes for " + std::to_string(cells) + " cells",
                         0);
    std::vector<std::uint64_t> out(cells);
    codec::load_le_array(bytes.data(), out.data(), cells);
    return out;
  }

  /// Reserves the records of every cell of the tiles the subarray meets
  /// when that is large: buffers of their own, their pages resident only as
  /// the cells come (growing by doubling held old and new records at once).
  /// Small bounds and reads of several ranges grow as before.
  void reserve_for(const subarray& sub, const std::vector<std::vector<format::MBR>>& mbrs,
                   const std::vector<char>& meets) {
    const auto& frags = plan_.arr.fragments();
    constexpr std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t bound = 0, per_cell = sizeof(hit) + (with_stamps_ ? 8 : 0);
    for (std::size_t d = 0; d < dims_.size(); ++d) per_cell += 8 * (keys_.tiled[d] ? 2 : 1);
    for (std::size_t k = 0; k < frags.size(); ++k)
      for (std::size_t t = 0; meets[k] && t < frags[k].tile_num(); ++t)
        if (mbrs[k].empty() || meets_subarray(sub, dims_, mbrs[k][t]))
          bound = frags[k].tile_cells(t) > most - bound ? most : bound + frags[k].tile_cells(t);
    if (with_ranges_ || bound > most / per_cell || bound * per_cell < (std::uint64_t{64} << 20)) return;
    try {
      plan_.check_size(bound, per_cell);  // (counts from the fragments' metadata: bounded first)
    } catch (const std::invalid_argument&) {
      return;
    }
    const auto n = static_cast<std::size_t>(bound);
    hits_.reserve(n);
    if (with_stamps_) stamps_.reserve(n);
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      keys_.cell[d].reserve(n);
      if (keys_.tiled[d]) keys_.tile[d].reserve(n);
    }
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
    for (std::size_t d = 0; d < dims_.size(); ++d)
      if (text(d)) order_.rank(d, strings_[d].size(), [&](std::size_t i) -> std::string_view { return strings_[d][i]; });
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
#if SIZE_MAX == UINT64_MAX  // keys packed beside indices in 64 bits (not on wasm32)
    {
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
#endif
    parallel_stable_sort(idx.begin(), idx.end(), less, threads());  // not in order: checked above
  }

  std::vector<std::size_t> merged_order() const {
    std::vector<std::size_t> idx(hits_.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::vector<bool> dropped(hits_.size(), false);
    const bool sorted = plan_.layout == query_layout::global_order || !dups();
    if (sorted) {
      sort_stably(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return order_.less(a, b); }, threads());
      if (!dups()) keep_newest(idx, 0, idx.size(), dropped);
    }
    std::size_t kept = 0;  // compacted in place, as in legacy_order
    for (std::size_t k = 0; k < idx.size(); ++k)
      if (!dropped[idx[k]] && !hits_[idx[k]].filtered) idx[kept++] = idx[k];
    idx.resize(kept);
    return idx;
  }

  /// The result's coordinate columns, cell `c` from hit `order[c]`.
  /// The result's coordinates, from the hits' keys; each dimension's keys
  /// (and strings) are let go once its coordinates are made, so that the
  /// result's columns do not all sit beside every key at the peak.
  std::vector<result_field> coordinate_fields(const std::vector<std::size_t>& order) {
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
        std::vector<std::string>().swap(strings_[d]);
        std::vector<std::uint64_t>().swap(keys_.cell[d]);
        out.push_back(std::move(r));
        continue;
      }
      // The coordinates as stored (little-endian), from their keys.
      format::visit_coordinate_type(r.type, [&]<class T>() {
        r.values.resize(n * sizeof(T));
        const auto& key = keys_.cell[d];
        for (std::size_t c = 0; c < n; ++c)
          codec::store_le(r.values.data() + c * sizeof(T), from_order_key<T>(key[order[c]]));
      });
      std::vector<std::uint64_t>().swap(keys_.cell[d]);
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

  const read_plan& plan_;
  sparse_gather gather_;
  const std::vector<format::Dimension>& dims_;
  std::vector<delete_commit> deletes_;
  std::vector<sparse_hit> hits_;  // in storage order: fragment, then tile (run_groups relies on it)
  bool with_ranges_ = false;          // a row- or column-major read of several ND ranges
  bool with_stamps_ = false;          // a fragment stores a timestamp per cell
  std::vector<std::uint64_t> ranges_;  // with_ranges_: each hit's ND range
  std::vector<std::uint64_t> stamps_;  // with_stamps_: when each hit was written
  global_order order_;                             // keys of every hit, the global order over them
  cell_keys& keys_;                                // order_'s
  std::vector<std::vector<std::string>> strings_;  // per string dimension: each hit's coordinate
};

inline read_output read_sparse(const read_plan& plan) {
  return sparse_reader(plan).read();
}

} // namespace tilefmt::array::detail
