// tilefmt — the sparse reader's path for reads whose answer is the cells in
// the order they are stored.
//
// Global-order and unordered reads need neither per-cell records nor a
// sort: an unordered read of an array with duplicates (TileDB returns the
// cells fragment by fragment, tile by tile, as stored), a read whose cells
// all come from one fragment (its cells are stored in the global order, so
// no merge and no newer twin to drop), and a read of several fragments
// without duplicates, whose cells are merged (merge.hpp: each fragment's
// are in order already). That is the shape of the matrices single-cell
// data keeps (one fragment per layer, read whole or by thousands of row
// ranges), of string-keyed tables, of time series with duplicates and of
// arrays written in a few sessions.
//
// Each tile the subarray meets is read on the array's threads: a tile whose
// bounding rectangle lies inside the subarray (and no condition) decodes
// its coordinates straight into the result; the others keep the cells
// inside (ranges tested with a cursor, as a tile's coordinates mostly
// increase) that pass the condition. The attributes are then gathered per
// tile (gather.hpp), whole tiles straight into the result.
//
// What the format promises is checked, not trusted, where the result
// relies on it: cells in the global order (strictly, without duplicates
// allowed; order_check.hpp) where the result is in that order or equal
// cells of two fragments may meet in a merge; coordinates inside the
// bounding rectangle that let them in unchecked. Where a check fails, or
// the read has another shape (the Hilbert order, deletes, per-cell
// timestamps, several fragments of an array with a string dimension),
// read() answers nullopt and the general reader (reader.hpp) sorts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/model/global_order.hpp"
#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/read/sparse/gather.hpp"
#include "tilefmt/array/read/sparse/keep_inside.hpp"
#include "tilefmt/array/read/sparse/merge.hpp"
#include "tilefmt/array/read/sparse/order_check.hpp"
#include "tilefmt/array/read/sparse/runs.hpp"
#include "tilefmt/array/support/gather_cells.hpp"
#include "tilefmt/array/support/parallel.hpp"
// fragment::read_values_in_chunks, a member template, is defined there
// (array.hpp leaves it out of programs built with TILEFMT_COMPILED).
#include "tilefmt/array/read/fragment-inl.hpp"

namespace tilefmt::array::detail {

class sparse_in_order {
public:
  sparse_in_order(const read_plan& plan, const sparse_gather& gather)
      : plan_(plan), dims_(plan.schema().domain.dimensions.value), gather_(gather),
        check_(plan.schema()) {}

  /// The result, or nullopt where the read is not of this shape or a check
  /// fails (the general reader answers). The caller checks that no delete
  /// commit applies.
  std::optional<read_output> read(const subarray& sub) const {
    if (plan_.layout != query_layout::global_order && plan_.layout != query_layout::unordered) return std::nullopt;
    // Storage order: no order to check, any number of fragments.
    const bool as_stored = dups() && plan_.layout == query_layout::unordered;
    if (!as_stored && plan_.schema().cell_order == format::Layout::HILBERT) return std::nullopt;
    std::vector<segment> segs;
    const auto& frags = plan_.arr.fragments();
    std::optional<std::uint32_t> last_fragment;
    bool several = false;  // fragments without duplicates: a merge
    std::vector<std::uint32_t> met;                    // the fragments met
    std::vector<std::vector<format::MBR>> rects(frags.size());  // their tiles' MBRs
    for (std::size_t k = 0; k < frags.size(); ++k) {
      const auto& f = frags[k];
      plan_.check_fragment(f);
      if (f.dense()) return std::nullopt;  // the general reader says why
      if (f.tile_num() == 0 || !meets_subarray(sub, dims_, f.non_empty_domain())) continue;
      if (f.has_delete_meta() || f.has_timestamps()) return std::nullopt;
      several = several || (!as_stored && last_fragment);
      last_fragment = static_cast<std::uint32_t>(k);
      met.push_back(static_cast<std::uint32_t>(k));
      const auto& mbrs = rects[k] = f.mbrs();
      if (!mbrs.empty() && mbrs.size() != f.tile_num()) return std::nullopt;
      for (std::size_t t = 0; t < f.tile_num(); ++t) {
        if (!mbrs.empty() && !meets_subarray(sub, dims_, mbrs[t])) continue;
        segment s;
        s.frag = static_cast<std::uint32_t>(k);
        s.tile = t;
        s.inside = !mbrs.empty() && covers(sub, mbrs[t]) && !plan_.where;
        segs.push_back(std::move(s));
      }
    }
    if (several && std::any_of(dims_.begin(), dims_.end(), [](const auto& d) { return d.is_var(); })) return std::nullopt;
    // An unordered read of one fragment returns its cells as stored, as
    // TileDB does: no merge or global order relies on their order, so it
    // is not checked (a tenth of a read of a million string keys).
    const bool any_order = as_stored || (plan_.layout == query_layout::unordered && !several);
    if (several && plan_.layout == query_layout::unordered) mark_alone(segs, met, rects);
    std::uint64_t cap = 0;  // the result's cells at most (saturating: check_size bounds it)
    for (const auto& s : segs) {
      const std::uint64_t cells = frags[s.frag].tile_cells(static_cast<std::size_t>(s.tile));
      cap = cells > std::numeric_limits<std::uint64_t>::max() - cap ? std::numeric_limits<std::uint64_t>::max() : cap + cells;
    }
    std::uint64_t coord_bytes = 0;
    for (const auto& dim : dims_)
      coord_bytes += dim.is_var() ? sizeof(std::uint64_t) + 2 * sizeof(void*) : format::datatype_size(dim.type.value);
    // The bound counts every cell of the tiles met: when it passes the
    // allocation limit the general reader, which counts the result, decides.
    try {
      plan_.check_size(cap, coord_bytes);
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
    const auto slots = static_cast<std::size_t>(cap);
    const std::size_t nd = dims_.size();
    std::vector<result_field> coords(nd);
    for (std::size_t d = 0; d < nd; ++d) {
      coords[d].name = dims_[d].name.value;
      coords[d].type = dims_[d].type.value;
      coords[d].var = text(d);
      if (!text(d)) coords[d].values.resize(slots * size(d));  // unzeroed: only the pages written become resident
    }
    const auto text_at = text_places(segs, several);
    for (std::size_t d = 0; d < nd; ++d) {
      if (text_at.empty() || !text(d)) continue;
      coords[d].values.resize(static_cast<std::size_t>(text_at[d].back()));
      coords[d].offsets.reserve(slots + 1);  // room for the end offset Arrow's layout adds (arrow/columns.hpp)
      coords[d].offsets.resize(slots);
    }
    std::vector<std::pair<std::uint32_t, std::uint64_t>> seg_tiles;
    for (const auto& s : segs) seg_tiles.emplace_back(s.frag, s.tile);
    std::vector<std::string> dim_names;
    for (const auto& dim : dims_) dim_names.push_back(dim.name.value);
    const auto ahead = gather_.fetch_ahead(seg_tiles, dim_names);
    // A merge applies the condition after choosing the newest cells: each
    // cell's verdict is kept beside it.
    std::vector<std::uint8_t> pass(several && plan_.where ? slots : 0);
    std::vector<std::uint8_t> ok(segs.size(), 1);
    place_in_order places(segs.size());
    parallel_for(segs.size(), threads(), [&](std::size_t j) {
      ok[j] = read_segment(sub, segs[j], places.claim(j), coords, ahead, any_order, pass.empty() ? nullptr : pass.data(),
                           text_at, j);
    });
    if (std::find(ok.begin(), ok.end(), 0) != ok.end() || !places.total()) return std::nullopt;
    // A fragment's tiles follow each other in the global order too.
    if (!any_order) {
      const segment* last = nullptr;
      for (const auto& s : segs) {
        if (s.count == 0) continue;
        if (s.alone) {
          last = nullptr;
          continue;
        }
        if (last && last->frag == s.frag && !check_.follows(last->tail, s.head, !dups()))
          return std::nullopt;
        last = &s;
      }
    }
    const std::size_t n = *places.total();
    if (several) return merged(segs, std::move(coords), n, pass);
    return as_staged(segs, std::move(coords), n, !text_at.empty());
  }

private:
  /// A tile the subarray meets, and what it gives the result.
  struct segment {
    std::uint32_t frag = 0;
    std::uint64_t tile = 0;
    bool inside = false;             // its MBR lies inside the subarray, no condition: every cell is in
    bool alone = false;              // its MBR meets no other fragment's non-empty domain (mark_alone)
    std::size_t out = 0, count = 0;  // its cells are the result's [out, out + count)
    std::size_t first = 0;           // the first of them in the tile
    std::vector<std::uint8_t> select;  // which of the tile's cells from `first` on (empty: `count` in a row)
    std::vector<var_part> text;        // per string dimension, its cells
    std::vector<std::vector<std::byte>> head, tail;  // per dimension, its first and last cell (order checks)
  };

  bool text(std::size_t d) const { return dims_[d].is_var(); }
  std::size_t size(std::size_t d) const { return format::datatype_size(dims_[d].type.value); }
  bool dups() const { return plan_.schema().allows_dups.value; }
  unsigned threads() const { return plan_.arr.options().threads; }

  /// An unordered read merges fragments for one reason: two may hold
  /// cells of equal coordinates, of which the newest is kept, and only
  /// there does the merge rely on each fragment's order. A tile whose MBR
  /// meets no other fragment's non-empty domain holds no such cell: it is
  /// taken as stored, its order unchecked, as one fragment's are (a matrix
  /// written a block of rows at a time: all its tiles but the bands'
  /// edges; a fifth of its read). Past a few hundred fragments the pairs
  /// cost more than they save.
  void mark_alone(std::vector<segment>& segs, const std::vector<std::uint32_t>& met,
                  const std::vector<std::vector<format::MBR>>& rects) const {
    if (met.size() > 256) return;
    const auto& frags = plan_.arr.fragments();
    for (auto& s : segs) {
      const auto& mbrs = rects[s.frag];
      if (mbrs.empty()) continue;
      const auto& mbr = mbrs[static_cast<std::size_t>(s.tile)];
      s.alone = std::none_of(met.begin(), met.end(), [&](std::uint32_t k) {
        return k != s.frag && rectangles_meet(dims_, mbr, frags[k].non_empty_domain());
      });
    }
  }

  /// Whether MBR `m` lies inside the subarray.
  bool covers(const subarray& sub, const format::MBR& m) const {
    if (m.ranges.size() != dims_.size()) return false;
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (text(d)) {
        const auto [lo, hi] = m.ranges[d].as_strings();
        if (!sub.dim(d).covers_text(lo, hi)) return false;
        continue;
      }
      bool in = false;
      format::visit_coordinate_type(dims_[d].type.value, [&]<class T>() {
        const auto [lo, hi] = m.ranges[d].as<T>();
        in = sub.dim(d).covers({order_key(lo), order_key(hi)});
      });
      if (!in) return false;
    }
    return true;
  }

  /// Reads segment `s`'s coordinates into the result at the place `place`
  /// gives it; false when a check fails. `any_order`: the result takes the
  /// cells in any order, which is then not checked. With `pass`, the
  /// condition leaves its verdict there (at the cells' places) rather than
  /// leave cells out. `text_at` (when not empty): where segment `j`'s
  /// string coordinates go in the result's bytes (text_places).
  bool read_segment(const subarray& sub, segment& s, place_in_order::claim_t place, std::vector<result_field>& coords,
                    const std::vector<std::map<std::uint32_t, fetched_tiles>>& ahead, bool any_order,
                    std::uint8_t* pass, const std::vector<std::vector<std::uint64_t>>& text_at, std::size_t j) const {
    const auto& f = plan_.arr.fragments()[s.frag];
    const std::size_t nd = dims_.size(), t = static_cast<std::size_t>(s.tile);
    const auto cells = static_cast<std::size_t>(f.tile_cells(t));
    std::vector<coord_column> cols(nd);
    s.text.resize(nd);
    if (s.inside) {
      // Every cell is in: the fixed-size coordinates decode into the result.
      const auto out = place(cells);
      if (!out) return true;  // a tile before gave up: so does the read
      s.out = *out;
      s.count = cells;
      for (std::size_t d = 0; d < nd; ++d) {
        const field_info field = f.field(dims_[d].name.value);
        const fetched_tiles* fetched = sparse_gather::ahead_of(ahead[d], s.frag);
        if (text(d) && !text_at.empty()) {
          const auto at = static_cast<std::size_t>(text_at[d][j]);
          const std::span values(coords[d].values.data() + at, static_cast<std::size_t>(text_at[d][j + 1]) - at);
          const std::span offsets(coords[d].offsets.data() + s.out, cells);
          f.read_var_tile_into(field, t, values, offsets, fetched);
          cols[d] = {nullptr, values, offsets};  // within the tile's bytes until the checks below are done
          continue;
        }
        if (text(d)) {
          tile_data tile = f.read_tile(field, t, fetched);
          if (!check_cells(f, d, tile, cells)) return false;
          s.text[d] = {std::move(tile.values), std::move(tile.offsets)};
          cols[d] = coord_column::of(s.text[d]);
          continue;
        }
        std::byte* to = coords[d].values.data() + s.out * size(d);
        f.read_values_as_stored_into(field, t, std::span(to, cells * size(d)), fetched);
        cols[d].values = to;
      }
      // The MBR said so; the coordinates must agree.
      std::vector<std::uint8_t> in(cells, 1);
      for (std::size_t d = 0; d < nd; ++d) keep_inside(sub.dim(d), dims_[d], cols[d], cells, in.data());
      if (std::find(in.begin(), in.end(), 0) != in.end()) return false;
    } else {
      std::vector<tile_data> tiles;
      for (std::size_t d = 0; d < nd; ++d) {
        tiles.push_back(f.read_tile(f.field(dims_[d].name.value), t, sparse_gather::ahead_of(ahead[d], s.frag)));
        if (!check_cells(f, d, tiles.back(), cells)) return false;
      }
      std::vector<coord_column> whole(nd);
      for (std::size_t d = 0; d < nd; ++d) whole[d] = coord_column::of(tiles[d]);
      // A condition may leave out one of two equal cells: the order of the
      // whole tile is checked first, as the cells the result keeps are later.
      if (!any_order && !s.alone && plan_.where && !check_.in_global_order(whole, cells, !dups())) return false;
      std::vector<std::uint8_t> in(cells, 1);
      for (std::size_t d = 0; d < nd; ++d) keep_inside(sub.dim(d), dims_[d], whole[d], cells, in.data());
      std::vector<std::uint8_t> verdict;
      if (plan_.where && pass) {
        verdict = in;
        apply_condition(f, t, tiles, verdict);
      } else if (plan_.where) {
        apply_condition(f, t, tiles, in);
      }
      std::size_t first = 0, last = cells;
      while (first < last && !in[first]) ++first;
      while (last > first && !in[last - 1]) --last;
      const auto count = static_cast<std::size_t>(std::count(in.begin() + static_cast<std::ptrdiff_t>(first),
                                                              in.begin() + static_cast<std::ptrdiff_t>(last), 1));
      const auto out = place(count);
      if (!out || count == 0) return true;
      s.out = *out;
      s.count = count;
      s.first = first;
      const std::size_t span = last - first;
      if (count != span) s.select.assign(in.begin() + static_cast<std::ptrdiff_t>(first), in.begin() + static_cast<std::ptrdiff_t>(last));
      if (!verdict.empty())
        for (std::size_t i = first, x = s.out; i < last; ++i)
          if (in[i]) pass[x++] = verdict[i];
      const tile_run run{s.frag, s.tile, first, s.out, count, s.select.empty() ? nullptr : s.select.data(), s.select.size()};
      for (std::size_t d = 0; d < nd; ++d) {
        if (text(d)) {
          auto& part = s.text[d];
          part.starts.reserve(count);
          for (std::size_t i = first; i < last; ++i) {
            if (!in[i]) continue;
            const auto cell = var_cell(tiles[d].values, tiles[d].offsets, i);
            part.starts.push_back(part.bytes.size());
            part.bytes.insert(part.bytes.end(), cell.begin(), cell.end());
          }
          cols[d] = coord_column::of(part);
          continue;
        }
        std::byte* to = coords[d].values.data() + s.out * size(d);
        copy_run(to, tiles[d].values.data(), run, size(d));
        cols[d].values = to;
      }
    }
    if (!any_order && !s.alone && s.count != 0) {
      if (!check_.in_global_order(cols, s.count, !dups())) return false;
      s.head = check_.cell_bytes(cols, 0);
      s.tail = check_.cell_bytes(cols, s.count - 1);
    }
    for (std::size_t d = 0; d < nd && !text_at.empty(); ++d)
      if (text(d))
        for (std::size_t i = 0; i < cells; ++i) coords[d].offsets[s.out + i] += text_at[d][j];
    return true;
  }

  /// Where each segment's string coordinates start in the result's bytes
  /// (per string dimension, a prefix sum over the segments, the total
  /// last), when every segment lies inside the subarray (a whole read, a
  /// large range) of one fragment or of fragments read as stored, and the
  /// fragments' metadata gives each tile's bytes within the allocation
  /// limit: the tiles then decode straight into the result, with no tile
  /// buffer and no copy (a million keys: a fifth of the read). Else empty.
  std::vector<std::vector<std::uint64_t>> text_places(const std::vector<segment>& segs, bool several) const {
    if (several || segs.empty() || std::any_of(segs.begin(), segs.end(), [](const segment& s) { return !s.inside; }))
      return {};
    const auto& frags = plan_.arr.fragments();
    const std::uint64_t limit = plan_.arr.options().max_allocation;
    std::vector<std::vector<std::uint64_t>> at(dims_.size());
    bool any = false;
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (!text(d)) continue;
      any = true;
      at[d].assign(segs.size() + 1, 0);
      for (std::size_t j = 0; j < segs.size(); ++j) {
        const auto& f = frags[segs[j].frag];
        const auto bytes = f.var_tile_bytes(f.field(dims_[d].name.value), static_cast<std::size_t>(segs[j].tile));
        if (!bytes || *bytes > limit - at[d][j]) return {};
        at[d][j + 1] = at[d][j] + *bytes;
      }
    }
    return any ? at : std::vector<std::vector<std::uint64_t>>{};
  }

  /// The result of several fragments whose `n` cells `coords` holds
  /// fragment by fragment (each fragment's in the global order): merged.
  read_output merged(std::vector<segment>& segs, std::vector<result_field> coords, std::size_t n,
                     const std::vector<std::uint8_t>& pass) const {
    const auto& frags = plan_.arr.fragments();
    std::vector<fragment_merge::source> sources;
    std::vector<tile_selection> tiles;
    for (const auto& s : segs) {
      if (s.count == 0) continue;
      if (sources.empty() || sources.back().index != s.frag)
        sources.push_back({s.out, s.out, frags[s.frag].timestamp_start(), s.frag});
      sources.back().end = s.out + s.count;
      tiles.push_back({s.frag, s.tile, s.first, s.count, s.out, s.select.empty() ? nullptr : s.select.data(),
                       s.select.size()});
    }
    std::vector<const std::byte*> cols;
    for (const auto& c : coords) cols.push_back(c.values.data());
    auto m = fragment_merge(plan_.schema(), check_.order()).place(cols, n, sources, pass.empty() ? nullptr : pass.data());
    // Fragments that follow each other in the global order (appended in
    // space, as a matrix written a block of rows at a time) are merged
    // already: the staged cells are the result.
    if (m.as_input) return as_staged(segs, std::move(coords), n);
    for (std::size_t d = 0; d < coords.size(); ++d) {
      column<std::byte> values(m.placed * size(d));
      scatter_cells(values.data(), coords[d].values.data(), size(d), m.place.data(), n, run_groups::none);
      coords[d].values = std::move(values);
    }
    const run_groups groups(std::move(tiles), std::move(m.place));
    gather_.read_attributes(coords, m.placed, groups, true);
    return read_output{std::move(coords), m.placed, {}, {}, gather_.whole_tiles(groups)};
  }

  /// The result when the `n` staged cells `coords` holds (segment by
  /// segment) are the result's, in its order.
  /// `text_placed`: the string coordinates are in place (text_places).
  read_output as_staged(std::vector<segment>& segs, std::vector<result_field> coords, std::size_t n,
                        bool text_placed = false) const {
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (text(d)) {
        if (!text_placed) join_text(coords[d], segs, d, n);
        continue;
      }
      coords[d].values.resize(n * size(d));
      release_unused(coords[d].values);
    }
    std::vector<tile_run> runs;
    for (const auto& s : segs)
      if (s.count != 0)
        runs.push_back({s.frag, s.tile, s.first, s.out, s.count, s.select.empty() ? nullptr : s.select.data(),
                        s.select.size()});
    const run_groups groups(std::move(runs));
    gather_.read_attributes(coords, n, groups, true);
    return read_output{std::move(coords), n, {}, {}, gather_.whole_tiles(groups)};
  }

  /// Whether a tile of dimension `d` holds `cells` coordinates.
  bool check_cells(const fragment& f, std::size_t d, const tile_data& t, std::size_t cells) const {
    const bool fits = text(d) ? t.offsets.size() == cells : t.values.size() == cells * size(d);
    if (!fits)
      throw format_error("fragment " + f.name().str() + ": a tile of dimension " + dims_[d].name.value + " holds " +
                             std::to_string(text(d) ? t.offsets.size() : t.values.size() / size(d)) +
                             " coordinates for " + std::to_string(cells) + " cells",
                         0);
    return true;
  }

  /// Leaves in `in` the cells that pass the query's condition.
  void apply_condition(const fragment& f, std::size_t t, const std::vector<tile_data>& coords,
                       std::vector<std::uint8_t>& in) const {
    std::vector<std::uint64_t> cells;
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in[i]) cells.push_back(i);
    if (cells.empty()) return;
    std::map<std::string, tile_data, std::less<>> read;
    auto tile_of = [&](const std::string& name) -> const tile_data* {
      for (std::size_t d = 0; d < dims_.size(); ++d)
        if (dims_[d].name.value == name) return &coords[d];
      if (!has_attribute(f.schema(), name)) return nullptr;  // added after the fragment
      auto it = read.find(name);
      if (it == read.end()) it = read.emplace(name, f.read_tile(f.field(name), t)).first;
      return &it->second;
    };
    const auto pass = plan_.where->evaluate(cells, tile_of);
    for (std::size_t x = 0; x < cells.size(); ++x)
      if (!pass[x]) in[static_cast<std::size_t>(cells[x])] = 0;
  }

  /// A string dimension's result field from the segments' parts.
  static void join_text(result_field& r, std::vector<segment>& segs, std::size_t d, std::size_t n) {
    std::size_t bytes = 0;
    for (const auto& s : segs)
      if (s.count != 0) bytes += s.text[d].bytes.size();
    r.offsets.reserve(n + 1);  // room for the end offset Arrow's layout adds (arrow/columns.hpp)
    r.offsets.resize(n);
    r.values.resize(bytes);
    std::size_t c = 0, at = 0;
    for (auto& s : segs) {
      if (s.count == 0) continue;
      auto& part = s.text[d];
      for (const auto start : part.starts) r.offsets[c++] = at + start;
      if (!part.bytes.empty()) std::memcpy(r.values.data() + at, part.bytes.data(), part.bytes.size());
      at += part.bytes.size();
      part = {};
    }
  }

  const read_plan& plan_;
  const std::vector<format::Dimension>& dims_;
  const sparse_gather& gather_;
  order_check check_;
};

} // namespace tilefmt::array::detail
