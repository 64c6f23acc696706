// tilefmt — the sparse reader's path for one range of a one-dimensional
// array.
//
// A one-dimensional read of one range without deletes or per-cell
// timestamps (a time series, typically) needs no per-cell bookkeeping. A
// tile holds its cells in order, so those inside the range are one run
// of positions; when no two tiles' bounding rectangles share a coordinate
// inside the range, no cell has an older twin to drop and TileDB's answer
// in every sorted layout is the runs in coordinate order, less the cells
// that fail the query's condition. nullopt when any of that does not hold
// (the general reader answers).
//
// The result holds little more than its own cells at any time: each
// tile's passing coordinates (and the values of the fixed-size attributes
// the condition read) are written straight to their place in the
// result's buffers, which are sized for every cell of the tiles but
// touched only as far as the result reaches. A tile learns its place
// when the tile before it has counted its cells (place_in_order).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/read/sparse/gather.hpp"
#include "tilefmt/array/read/sparse/runs.hpp"
#include "tilefmt/array/support/parallel.hpp"
#include "tilefmt/array/support/resident.hpp"
// fragment::read_values_in_chunks, a member template, is defined there
// (array.hpp leaves it out of programs built with TILEFMT_COMPILED).
#include "tilefmt/array/read/fragment-inl.hpp"

namespace tilefmt::array::detail {

class sparse_one_range {
public:
  sparse_one_range(const read_plan& plan, const sparse_gather& gather)
      : plan_(plan), dims_(plan.schema().domain.dimensions.value), gather_(gather) {}

  /// The result, or nullopt where the read is not of this shape (the
  /// general reader answers). The caller checks that no delete commit
  /// applies.
  std::optional<read_output> read(const subarray& sub) const {
    if (dims_.size() != 1 || text(0) || sub.dim(0).ranges.size() != 1 ||
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
      if (f.tile_num() == 0 || !meets_subarray(sub, dims_, f.non_empty_domain())) continue;
      const auto mbrs = f.mbrs();
      if (mbrs.size() != f.tile_num()) return std::nullopt;
      for (std::size_t t = 0; t < f.tile_num(); ++t) {
        if (mbrs[t].ranges.size() != 1 || !meets_subarray(sub, dims_, mbrs[t])) continue;
        key_range box;
        bool inside = false;
        format::visit_coordinate_type(dims_[0].type.value, [&]<class T>() {
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
    // A bound over whole tiles: past the allocation limit the general
    // reader, which counts the result, decides.
    try {
      plan_.check_size(cap, size);
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
    const auto slots = static_cast<std::size_t>(cap);
    result_field coords;
    coords.name = dims_[0].name.value;
    coords.type = dims_[0].type.value;
    coords.values.resize(slots * size);  // unzeroed: only the pages written become resident
    sparse_gather::ready_fields ready;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> seg_tiles;
    for (const auto& s : segs) seg_tiles.emplace_back(s.run.frag, s.run.tile);
    // The condition's tiles, fetched together where the storage prefers few
    // requests (a tile whose run turns out empty is fetched for nothing).
    // The coordinates' tiles come with them (the last field fetched).
    std::vector<std::string> fetched_names;
    if (plan_.where)
      for (const auto& name : plan_.where->field_names())
        if (name != dims_[0].name.value &&
            std::find(fetched_names.begin(), fetched_names.end(), name) == fetched_names.end())
          fetched_names.push_back(name);
    fetched_names.push_back(dims_[0].name.value);
    auto fetched = gather_.fetch_ahead(seg_tiles, fetched_names);
    const auto coords_ahead = std::move(fetched.back());
    std::map<std::string, std::map<std::uint32_t, fetched_tiles>, std::less<>> cond_ahead;
    if (plan_.where)
      for (std::size_t i = 0; i + 1 < fetched_names.size(); ++i) {
        const auto& name = fetched_names[i];
        cond_ahead.emplace(name, std::move(fetched[i]));
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
                                     std::span(to, cells * size), sparse_gather::ahead_of(coords_ahead, s.run.frag));
        if (!ordered(to, cells) || (cells != 0 && !in_box(s.box, keys.at(to, 0), keys.at(to, cells - 1)))) {
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
              if (!in_box(s.box, keys.at(v.data(), lo), keys.at(v.data(), hi - 1))) {
                in_order[j] = 0;
                return;
              }
              if (kept == 0) s.run.pos = at + lo;
              std::memcpy(to + kept * size, v.data() + lo * size, (hi - lo) * size);
              kept += hi - lo;
            },
            sparse_gather::ahead_of(coords_ahead, s.run.frag));
        if (!in_order[j]) return;
        s.run.count = kept;
        if (!place(kept) || kept == 0) return;
        s.parts.push_back(s.run);
        s.parts.back().out = *start;
        return;
      }
      const tile_data tile = f.read_tile(f.field(dims_[0].name.value), static_cast<std::size_t>(s.run.tile),
                                         sparse_gather::ahead_of(coords_ahead, s.run.frag));
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
      if (!in_box(s.box, keys.at(tile.values.data(), s.run.pos),
                  keys.at(tile.values.data(), s.run.pos + s.run.count - 1))) {
        in_order[j] = 0;
        return;
      }
      // The condition, over the run's cells, from the tiles it names.
      std::map<std::string, tile_data, std::less<>> read;
      auto tile_of = [&](const std::string& name) -> const tile_data* {
        if (name == dims_[0].name.value) return &tile;
        if (!has_attribute(f.schema(), name)) return nullptr;  // added after the fragment
        auto it = read.find(name);
        if (it == read.end()) {
          const auto ahead = cond_ahead.find(name);
          const fetched_tiles* fetched =
              ahead == cond_ahead.end() ? nullptr : sparse_gather::ahead_of(ahead->second, s.run.frag);
          it = read.emplace(name, f.read_tile(f.field(name), static_cast<std::size_t>(s.run.tile), fetched)).first;
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
    gather_.read_attributes(
        out, n, groups, true,
        [&](std::uint32_t frag, std::uint64_t tile, const std::string& name) -> const tile_data* {
          const auto it = by_tile.find({frag, tile});
          if (it == by_tile.end()) return nullptr;
          const auto t = it->second->held.find(name);
          return t == it->second->held.end() ? nullptr : &t->second;
        },
        &ready);
    return read_output{std::move(out), n, {}, {}, gather_.whole_tiles(groups)};
  }

private:
  /// Whether a tile's cells in the range, ordered from `first` to `last`,
  /// lie in its bounding rectangle's part of the range: the tiles are
  /// placed by their rectangles, which the fragment's metadata gives, so
  /// a cell outside its own would land out of order (the general reader
  /// then decides).
  static bool in_box(const key_range& box, std::uint64_t first, std::uint64_t last) noexcept {
    return box.lo <= first && last <= box.hi;
  }

  /// The few operations read() does on a tile's coordinates, chosen once by
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
      format::visit_coordinate_type(type, [&]<class T>() {
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
      if (!out.at) throw std::logic_error("tilefmt: sparse_one_range on a dimension of no coordinate type");
      return out;
    }
  };

  bool text(std::size_t d) const { return dims_[d].is_var(); }
  bool dups() const { return plan_.schema().allows_dups.value; }
  unsigned threads() const { return plan_.arr.options().threads; }

  const read_plan& plan_;
  const std::vector<format::Dimension>& dims_;
  const sparse_gather& gather_;
};

} // namespace tilefmt::array::detail
