// tilefmt — the dense reader of a query: for every cell of the subarray,
// the value of the newest fragment that wrote it, else the fill value.
//
// Fragments are taken oldest first (array_reader::fragments()); a fragment
// wins the cells of its non-empty domain that no newer fragment's covers.
// Those are found as runs of cells, without a per-cell record: along each
// run of a tile, the newer fragments' domains (boxes) that meet it are cut
// out. Then each fragment's tiles that hold a cell it won are read, once,
// and those cells copied. An attribute
// the winning fragment's schema does not have (added later by schema
// evolution) reads as its fill value. Every cell a fragment wins lies in
// its non-empty domain, so tiles are read as stored, without filling the
// cells outside it.
//
// Cells no fragment wrote hold fill values: when the subarray is not all
// inside some fragment's domain, the result starts filled. Cells that fail
// the query's condition read as fill values too (TileDB's rule for dense
// arrays): they are marked, and filled once the winners are copied.
//
// With several ranges per dimension the result is the grid of their
// cells: along each dimension the cells of its first range, then of its
// second, and so on (a cell in two overlapping ranges is there twice), in
// row-major or column-major order; global order takes a single range, as
// in TileDB.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/support/function_ref.hpp"
#include "tilefmt/array/support/parallel.hpp"
// fragment::read_values_in_chunks, a member template, is defined there
// (array.hpp leaves it out of programs built with TILEFMT_COMPILED).
#include "tilefmt/array/read/fragment-inl.hpp"

namespace tilefmt::array::detail {

/// An inclusive box of cells, per dimension as offsets from the domain's
/// lower bound (dense_grid's coordinates). For one of the subarray's ND
/// ranges, `base` is where its `lo` falls along each axis of the result
/// (the dimension's earlier ranges come first).
struct cell_box {
  std::vector<std::uint64_t> lo, hi, base;
  std::size_t dims() const noexcept { return lo.size(); }
};

/// i's linear index among `extents` cells, the last dimension fastest
/// (row-major) or the first (column-major).
inline std::uint64_t ravel(std::span<const std::uint64_t> pos, std::span<const std::uint64_t> extents, bool row_major) {
  std::uint64_t idx = 0;
  const std::size_t n = pos.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t d = row_major ? k : n - 1 - k;
    idx = idx * extents[d] + pos[d];
  }
  return idx;
}

/// Where each cell of the subarray goes in the result, in a layout.
class result_order {
public:
  /// `widths`: the result's extent along each dimension (the cells of the
  /// dimension's ranges, summed). Global order takes a single ND range, `s`.
  result_order(std::vector<std::uint64_t> widths, const cell_box& s, query_layout layout,
               const format::ArraySchema& schema)
      : layout_(layout), widths_(std::move(widths)) {
    const std::size_t nd = widths_.size();
    std::uint64_t n = 1;
    for (std::size_t d = 0; d < nd; ++d) {
      if (widths_[d] == 0 || n > std::numeric_limits<std::uint64_t>::max() / widths_[d])
        throw std::invalid_argument("tilefmt: query: the subarray has more than 2^64 cells");
      n *= widths_[d];
    }
    cells_ = n;
    strides_.assign(nd, 1);
    for (std::size_t k = 1; k < nd; ++k) {
      if (layout_ == query_layout::col_major)
        strides_[k] = strides_[k - 1] * widths_[k - 1];
      else
        strides_[nd - 1 - k] = strides_[nd - k] * widths_[nd - k];
    }
    if (layout_ == query_layout::global_order) {
      std::vector<dense_range> ranges(nd);
      for (std::size_t d = 0; d < nd; ++d) {
        const auto& dim = schema.domain.dimensions.value[d];
        std::uint64_t extent = 1;
        filter::with_integer_type(dim.type.value, [&]<class T>() {
          extent = static_cast<std::uint64_t>(dim.tile_extent_as<T>().value_or(T{1}));
        });
        ranges[d] = {s.lo[d], widths_[d], extent};
      }
      grid_.emplace(std::move(ranges), schema.tile_order, schema.cell_order);
      // Cells before each of the subarray's space tiles, in tile order.
      before_.resize(static_cast<std::size_t>(grid_->tile_num()) + 1);
      for (std::uint64_t t = 0; t < grid_->tile_num(); ++t) {
        const auto w = grid_->covered(t);
        std::uint64_t c = 1;
        for (auto x : w.width) c *= x;
        before_[static_cast<std::size_t>(t) + 1] = before_[static_cast<std::size_t>(t)] + c;
      }
    }
  }

  std::uint64_t cell_num() const noexcept { return cells_; }

  /// The dimension along which neighbouring cells are neighbours in the
  /// result too (inside one space tile, for global order): the last for
  /// row-major, the first for column-major, the cell order's fastest for
  /// global order.
  std::size_t run_dim() const noexcept {
    const std::size_t last = widths_.size() - 1;
    if (layout_ == query_layout::col_major) return 0;
    if (layout_ == query_layout::global_order && grid_ && grid_->cell_order() == format::Layout::COL_MAJOR) return 0;
    return last;
  }

  /// The result index of the cell at offsets `x`, inside ND range `box`.
  std::uint64_t index(std::span<const std::uint64_t> x, const cell_box& box) const {
    const std::size_t nd = x.size();
    if (layout_ != query_layout::global_order) {
      std::uint64_t idx = 0;
      for (std::size_t d = 0; d < nd; ++d) idx += (box.base[d] + x[d] - box.lo[d]) * strides_[d];
      return idx;
    }
    // Global order: the cells of earlier space tiles, then the cell's place
    // in its tile's part of the subarray, in cell order.
    const auto& g = *grid_;
    std::vector<std::uint64_t> tile(nd), in(nd), w(nd);
    for (std::size_t d = 0; d < nd; ++d) tile[d] = x[d] / g.extents()[d] - g.first_tile()[d];
    const std::uint64_t t = ravel(tile, g.tiles_per_dim(), g.tile_order() != format::Layout::COL_MAJOR);
    const auto window = g.covered(t);
    for (std::size_t d = 0; d < nd; ++d) {
      const std::uint64_t tile_lo = (g.first_tile()[d] + tile[d]) * g.extents()[d];
      in[d] = x[d] - tile_lo - window.start[d];
    }
    return before_[static_cast<std::size_t>(t)] +
           ravel(in, window.width, g.cell_order() != format::Layout::COL_MAJOR);
  }

private:
  query_layout layout_;
  std::vector<std::uint64_t> widths_, strides_;
  std::uint64_t cells_ = 0;
  std::optional<dense_grid> grid_;
  std::vector<std::uint64_t> before_;
};

/// One space tile of a fragment and the part of the subarray the fragment
/// wrote in it.
struct tile_part {
  std::uint64_t tile;                   // the fragment's tile index
  std::vector<std::uint64_t> tile_lo;   // the tile's first cell, per dimension
  cell_box cells;                       // fragment's non-empty domain ∩ tile ∩ subarray
};

/// Calls f(tile_part) for each space tile of fragment grid `g` that holds
/// cells of subarray `s`, visiting only those tiles. (Called once per tile:
/// a function_ref keeps one copy of the walk, and of for_each_tile_batch
/// below, for all their callers.)
inline void for_each_tile_part(const dense_grid& g, const cell_box& s, function_ref<void(const tile_part&)> f) {
  const std::size_t nd = g.dim_num();
  std::vector<std::uint64_t> first(nd), last(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const std::uint64_t e = g.extents()[d];
    const std::uint64_t g_first = g.first_tile()[d], g_last = g_first + g.tiles_per_dim()[d] - 1;
    const std::uint64_t lo = std::max(g.ranges()[d].from, s.lo[d]);
    const std::uint64_t hi = std::min(g.ranges()[d].from + (g.ranges()[d].width - 1), s.hi[d]);
    if (lo > hi) return;  // the fragment wrote nothing of the subarray
    first[d] = std::max(g_first, lo / e);
    last[d] = std::min(g_last, hi / e);
  }
  const bool tile_row = g.tile_order() != format::Layout::COL_MAJOR;
  std::vector<std::uint64_t> cur = first, rel(nd);
  for (;;) {
    tile_part p;
    p.tile_lo.resize(nd);
    p.cells.lo.resize(nd);
    p.cells.hi.resize(nd);
    bool empty = false;
    for (std::size_t d = 0; d < nd; ++d) {
      const std::uint64_t e = g.extents()[d];
      p.tile_lo[d] = cur[d] * e;
      const std::uint64_t tile_hi = p.tile_lo[d] + (e - 1);  // no overflow: the tile holds a cell of the domain
      const std::uint64_t ned_hi = g.ranges()[d].from + (g.ranges()[d].width - 1);
      p.cells.lo[d] = std::max({p.tile_lo[d], g.ranges()[d].from, s.lo[d]});
      p.cells.hi[d] = std::min({tile_hi, ned_hi, s.hi[d]});
      if (p.cells.lo[d] > p.cells.hi[d]) empty = true;
      rel[d] = cur[d] - g.first_tile()[d];
    }
    if (!empty) {
      p.tile = ravel(rel, g.tiles_per_dim(), tile_row);
      f(p);
    }
    // Next tile: an odometer over [first, last], the last dimension fastest.
    std::size_t d = nd;
    while (d > 0) {
      --d;
      if (cur[d] < last[d]) {
        ++cur[d];
        break;
      }
      cur[d] = first[d];
      if (d == 0) return;
    }
  }
}

/// Calls f(x, len) for each run of `b` along dimension `dim`: the `len`
/// cells from offsets `x` on, the other dimensions fixed.
template <class F>
void for_each_run(const cell_box& b, std::size_t dim, F&& f) {
  const std::size_t nd = b.dims();
  std::vector<std::uint64_t> x = b.lo;
  const std::uint64_t len = b.hi[dim] - b.lo[dim] + 1;
  for (;;) {
    f(std::span<const std::uint64_t>(x), len);
    std::size_t d = nd;
    for (;;) {  // the next run: an odometer over the other dimensions, the last fastest
      if (d == 0) return;
      --d;
      if (d == dim) continue;
      if (x[d] < b.hi[d]) {
        ++x[d];
        break;
      }
      x[d] = b.lo[d];
    }
  }
}

/// A run of result cells one fragment wins: `len` cells from result index
/// `result` on, stored from cell `tile` of its tile on, `stride` apart.
struct won_run {
  std::size_t result, tile, len;
};

/// How far apart neighbours along dimension `dim` are in a tile of `g`.
inline std::size_t tile_stride(const dense_grid& g, std::size_t dim) {
  const bool cell_row = g.cell_order() != format::Layout::COL_MAJOR;
  std::size_t stride = 1;
  for (std::size_t d = 0; d < g.dim_num(); ++d)
    if (cell_row ? d > dim : d < dim) stride *= static_cast<std::size_t>(g.extents()[d]);
  return stride;
}

/// A fragment's non-empty domain as a box of cell offsets (dense_grid's
/// coordinates), inclusive.
struct domain_box {
  std::vector<std::uint64_t> lo, hi;
  bool meets(const cell_box& b) const noexcept {
    for (std::size_t d = 0; d < lo.size(); ++d)
      if (hi[d] < b.lo[d] || lo[d] > b.hi[d]) return false;
    return true;
  }
  bool holds(const cell_box& b) const noexcept {
    for (std::size_t d = 0; d < lo.size(); ++d)
      if (lo[d] > b.lo[d] || hi[d] < b.hi[d]) return false;
    return true;
  }
};

/// The runs of tile part `p` (of ND range `box`) that its fragment wins:
/// every run of the part less the cells of `newer` (the domains of the
/// newer fragments).
inline void won_runs(const tile_part& p, const cell_box& box, const result_order& order, const dense_grid& g,
                     std::span<const domain_box* const> newer, std::vector<won_run>& out) {
  out.clear();
  const std::size_t dim = order.run_dim(), stride = tile_stride(g, dim);
  const bool cell_row = g.cell_order() != format::Layout::COL_MAJOR;
  std::vector<const domain_box*> near;  // the newer domains that meet this part
  for (const auto* n : newer)
    if (n->meets(p.cells)) near.push_back(n);
  std::vector<std::uint64_t> in(p.cells.dims());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> keep, next;  // [from, to) along `dim`
  for_each_run(p.cells, dim, [&](std::span<const std::uint64_t> x, std::uint64_t len) {
    keep.assign(1, {x[dim], x[dim] + len});
    for (const auto* n : near) {
      bool crosses = true;  // the run's row lies in the domain along every other dimension
      for (std::size_t d = 0; d < in.size() && crosses; ++d)
        if (d != dim) crosses = n->lo[d] <= x[d] && x[d] <= n->hi[d];
      if (!crosses) continue;
      next.clear();
      for (const auto& [a, e] : keep) {
        if (n->lo[dim] > a) next.emplace_back(a, std::min(e, n->lo[dim]));
        if (n->hi[dim] + 1 < e) next.emplace_back(std::max(a, n->hi[dim] + 1), e);
      }
      keep.swap(next);
      if (keep.empty()) return;
    }
    const auto first = static_cast<std::size_t>(order.index(x, box));
    for (std::size_t d = 0; d < in.size(); ++d) in[d] = x[d] - p.tile_lo[d];
    const auto at = static_cast<std::size_t>(ravel(in, g.extents(), cell_row));
    for (const auto& [a, e] : keep) {
      const auto j = static_cast<std::size_t>(a - x[dim]);
      out.push_back({first + j, at + j * stride, static_cast<std::size_t>(e - a)});
    }
  });
}

/// Where in the result a tile's cells all go when `runs` take the whole
/// tile (`cells` cells) in its own cell order to one stretch of the result
/// (a query whose box is the space tile, in the tile's order); else nothing.
inline std::optional<std::size_t> whole_tile_run(const std::vector<won_run>& runs, std::size_t stride,
                                                 std::uint64_t cells) {
  if (stride != 1 || runs.empty()) return std::nullopt;
  std::size_t n = 0;
  for (const auto& r : runs) {
    if (r.tile != n || r.result != runs.front().result + n) return std::nullopt;
    n += r.len;
  }
  if (n != cells) return std::nullopt;
  return runs.front().result;
}

/// Copies the cells of `runs` that lie in tile cells [first, first + n),
/// whose values `values` holds (n cells of `size` bytes), to the result.
inline void copy_runs_within(const std::vector<won_run>& runs, std::size_t stride, std::size_t first,
                             std::span<const std::byte> values, std::size_t size, std::byte* out) {
  const std::size_t end = first + values.size() / size;
  for (const auto& run : runs) {
    if (run.tile >= end) continue;
    // The run's cells j with first <= run.tile + j * stride < end.
    const std::size_t j0 = run.tile >= first ? 0 : (first - run.tile + stride - 1) / stride;
    const std::size_t j1 = std::min(run.len, (end - run.tile + stride - 1) / stride);
    if (j0 >= j1) continue;
    const std::byte* from = values.data() + (run.tile + j0 * stride - first) * size;
    if (stride == 1) {
      std::memcpy(out + (run.result + j0) * size, from, (j1 - j0) * size);
      continue;
    }
    for (std::size_t j = j0; j < j1; ++j, from += stride * size) std::memcpy(out + (run.result + j) * size, from, size);
  }
}

/// Whether some cell of `runs` lies in tile cells [first, last).
inline bool runs_meet(const std::vector<won_run>& runs, std::size_t stride, std::size_t first, std::size_t last) {
  for (const auto& run : runs) {
    if (run.tile >= last) continue;
    const std::size_t j0 = run.tile >= first ? 0 : (first - run.tile + stride - 1) / stride;
    if (j0 < run.len && run.tile + j0 * stride < last) return true;
  }
  return false;
}

/// One space tile of a fragment and the parts of the subarray's ND ranges
/// in it (box index, part): the unit of work a thread takes, so that each
/// tile is read once.
struct tile_work {
  std::uint64_t tile;
  std::vector<std::pair<std::size_t, tile_part>> parts;
};

/// Hands `run(batch)` the tiles of fragment grid `g` that hold cells of
/// `boxes`, each once. With one ND range the tiles come in batches of at
/// least 8 a thread and 2^16 cells (at most 2^16 tiles), so that the
/// threads are busy without the bookkeeping of a whole fragment held at
/// once; with several, a tile can hold parts of ranges far apart in the
/// iteration, so all come in one batch.
inline void for_each_tile_batch(const dense_grid& g, const std::vector<cell_box>& boxes, unsigned threads,
                                function_ref<void(const std::vector<tile_work>&)> run) {
  constexpr std::uint64_t batch_cells = std::uint64_t{1} << 16;
  constexpr std::size_t most_tiles = std::size_t{1} << 16;
  const std::size_t least_tiles = 8 * std::size_t{thread_count(threads)};
  std::vector<tile_work> batch;
  if (boxes.size() == 1) {
    std::uint64_t cells = 0;
    for_each_tile_part(g, boxes.front(), [&](const tile_part& p) {
      std::uint64_t c = 1;
      for (std::size_t d = 0; d < p.cells.dims(); ++d) c *= p.cells.hi[d] - p.cells.lo[d] + 1;
      cells += c;
      batch.push_back({p.tile, {{0, p}}});
      if ((cells >= batch_cells && batch.size() >= least_tiles) || batch.size() >= most_tiles) {
        run(batch);
        batch.clear();
        cells = 0;
      }
    });
  } else {
    std::map<std::uint64_t, std::size_t> at;  // tile -> its place in the batch
    for (std::size_t b = 0; b < boxes.size(); ++b)
      for_each_tile_part(g, boxes[b], [&](const tile_part& p) {
        const auto [it, added] = at.try_emplace(p.tile, batch.size());
        if (added) batch.push_back({p.tile, {}});
        batch[it->second].parts.emplace_back(b, p);
      });
  }
  if (!batch.empty()) run(batch);
}

/// The subarray's ND ranges as boxes of offsets from the domain's lower
/// bounds, and the result's width along each dimension.
inline std::pair<std::vector<cell_box>, std::vector<std::uint64_t>> dense_boxes(const subarray& sub) {
  const std::size_t nd = sub.dim_num();
  std::vector<std::uint64_t> widths(nd, 0);
  std::vector<std::vector<std::uint64_t>> bases(nd);
  for (std::size_t d = 0; d < nd; ++d)
    for (const auto& r : sub.dim(d).ranges) {
      bases[d].push_back(widths[d]);
      const std::uint64_t w = r.hi - r.lo + 1;
      if (w == 0 || widths[d] > std::numeric_limits<std::uint64_t>::max() - w)
        throw std::invalid_argument("tilefmt: query: the subarray has more than 2^64 cells");
      widths[d] += w;
    }
  std::vector<cell_box> boxes;
  const std::uint64_t n = sub.nd_range_num();
  for (std::uint64_t i = 0; i < n; ++i) {
    cell_box b;
    b.lo.resize(nd), b.hi.resize(nd), b.base.resize(nd);
    std::uint64_t rest = i;
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = nd - 1 - k;
      const auto& ranges = sub.dim(d).ranges;
      const auto which = static_cast<std::size_t>(rest % ranges.size());
      rest /= ranges.size();
      // Keys of integers differ as the values do: offsets from the domain's start.
      b.lo[d] = ranges[which].lo - sub.dim(d).domain.lo;
      b.hi[d] = ranges[which].hi - sub.dim(d).domain.lo;
      b.base[d] = bases[d][which];
    }
    boxes.push_back(std::move(b));
  }
  return {std::move(boxes), std::move(widths)};
}

/// Whether the fill values pass the query's condition (the cells no
/// fragment wrote hold them).
inline bool fill_passes(const read_plan& plan) {
  std::map<std::string, tile_data, std::less<>> fills;
  for (const auto& name : plan.where->field_names()) {
    const auto& a = plan.attribute(name);
    tile_data t;
    t.values = a.fill();
    if (a.is_var()) t.offsets = {0};
    if (a.nullable.value) t.validity = {a.fill_value_validity.value};
    fills.emplace(name, std::move(t));
  }
  const std::uint64_t one[] = {0};
  return plan.where->evaluate(one, [&](const std::string& name) -> const tile_data* { return &fills.at(name); })[0] != 0;
}

/// The fragments the query reads: each one's grid (none: it wrote nothing)
/// and non-empty domain, and for each the domains of the newer ones.
struct fragment_boxes {
  std::vector<std::optional<dense_grid>> grids;
  std::vector<domain_box> domains;
  std::vector<std::vector<const domain_box*>> newer;  // [k]: the domains of fragments after k
};

/// The stored bytes of a batch's tiles, per field (fetch_batch).
struct batch_fetch {
  std::vector<std::pair<std::string, fetched_tiles>> fields;
  /// Field `name`'s tiles, or null: read each tile on its own.
  const fetched_tiles* of(const std::string& name) const {
    for (const auto& [n, t] : fields)
      if (n == name) return &t;
    return nullptr;
  }
};

/// The tiles of `batch` a pass reads from fragment `k` (those with a part
/// the plan does not skip that no newer fragment covers), fetched together
/// when the array's storage prefers few requests (fetched_tiles.hpp), for
/// each field in `names` the fragment has; elsewhere nothing, and each tile
/// is read as it is decoded.
inline batch_fetch fetch_batch(const read_plan& plan, const fragment& frag, const fragment_boxes& fb, std::size_t k,
                               const std::vector<tile_work>& batch, const std::vector<cell_box>& boxes,
                               const result_order& order, std::span<const std::string> names) {
  batch_fetch out;
  if (!plan.arr.storage().prefers_merged_reads()) return out;
  std::vector<char> needed(batch.size(), 0);
  parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
    std::vector<won_run> runs;
    for (const auto& [b, p] : batch[w].parts) {
      if (plan.skips(p.tile_lo)) continue;
      won_runs(p, boxes[b], order, *fb.grids[k], fb.newer[k], runs);
      if (!runs.empty()) {
        needed[w] = 1;
        return;
      }
    }
  });
  std::vector<std::size_t> tiles;
  for (std::size_t w = 0; w < batch.size(); ++w)
    if (needed[w]) tiles.push_back(static_cast<std::size_t>(batch[w].tile));
  for (const auto& name : names)
    if (has_attribute(frag.schema(), name)) out.fields.emplace_back(name, frag.fetch_tiles(frag.field(name), tiles));
  return out;
}

/// Sets `failed` for the cells that fail the query's condition, tile by
/// tile on the array's threads; cells no fragment wrote are set before, as
/// the fill values fare.
inline void apply_condition(const read_plan& plan, const std::vector<fragment>& frags, const fragment_boxes& fb,
                            const std::vector<cell_box>& boxes, const result_order& order,
                            std::vector<std::uint8_t>& failed) {
  for (const auto& name : plan.where->field_names())
    if (!has_attribute(plan.schema(), name))
      throw std::invalid_argument("tilefmt: query: conditions on the dimensions of dense arrays are not supported yet");
  for (std::size_t k = 0; k < frags.size(); ++k) {
    if (!fb.grids[k]) continue;
    const auto& g = *fb.grids[k];
    const std::size_t stride = tile_stride(g, order.run_dim());
    const auto& names = plan.where->field_names();
    for_each_tile_batch(g, boxes, plan.arr.options().threads, [&](const std::vector<tile_work>& batch) {
      const auto ahead = fetch_batch(plan, frags[k], fb, k, batch, boxes, order, names);
      parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
        std::vector<won_run> runs;
        std::vector<std::size_t> result;    // result cells this fragment wins in the tile
        std::vector<std::uint64_t> in_tile;  // and where they are in it
        for (const auto& [b, p] : batch[w].parts) {
          if (plan.skips(p.tile_lo)) continue;
          won_runs(p, boxes[b], order, g, fb.newer[k], runs);
          for (const auto& r : runs)
            for (std::size_t j = 0; j < r.len; ++j) result.push_back(r.result + j), in_tile.push_back(r.tile + j * stride);
        }
        if (result.empty()) return;
        std::map<std::string, tile_data, std::less<>> read;
        auto tile_of = [&](const std::string& name) -> const tile_data* {
          if (!has_attribute(frags[k].schema(), name)) return nullptr;
          auto it = read.find(name);
          if (it == read.end()) {
            const auto tile = static_cast<std::size_t>(batch[w].tile);
            it = read.emplace(name, frags[k].read_tile_as_stored(frags[k].field(name), tile,
                                                                 ahead.of(name)))
                     .first;
          }
          return &it->second;
        };
        const auto pass = plan.where->evaluate(in_tile, tile_of);
        // Each result cell has one winner, in one of its tiles: no two threads write one cell.
        for (std::size_t x = 0; x < result.size(); ++x) failed[result[x]] = pass[x] ? 0 : 1;
      });
    });
  }
}

/// Clears `unwritten` for the cells some fragment wins, on the array's
/// threads, without reading a tile.
inline void mark_written(const read_plan& plan, const std::vector<fragment>& frags, const fragment_boxes& fb,
                         const std::vector<cell_box>& boxes, const result_order& order,
                         std::vector<std::uint8_t>& unwritten) {
  for (std::size_t k = 0; k < frags.size(); ++k) {
    if (!fb.grids[k]) continue;
    for_each_tile_batch(*fb.grids[k], boxes, plan.arr.options().threads, [&](const std::vector<tile_work>& batch) {
      parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
        std::vector<won_run> runs;
        for (const auto& [b, p] : batch[w].parts) {
          if (plan.skips(p.tile_lo)) continue;  // left marked
          won_runs(p, boxes[b], order, *fb.grids[k], fb.newer[k], runs);
          // Each result cell has one winner, in one of its tiles: no two threads write one cell.
          for (const auto& r : runs) std::fill_n(unwritten.begin() + static_cast<std::ptrdiff_t>(r.result), r.len, 0);
        }
      });
    });
  }
}

/// Copies the cells fragment `frag` (index `k`) wins of field `r` into the
/// result, reading each tile that holds one once, on the array's threads.
/// Var-size cells are left as views in `var_cells` into tiles appended to
/// `kept`.
inline void copy_won_cells(const read_plan& plan, const fragment& frag, std::size_t k, const fragment_boxes& fb,
                           const std::vector<cell_box>& boxes, const result_order& order,
                           std::span<const std::byte> fill, result_field& r,
                           std::vector<std::span<const std::byte>>& var_cells, std::deque<tile_data>& kept,
                           std::vector<std::uint8_t>* predating = nullptr) {
  const auto& g = *fb.grids[k];
  const bool has = has_attribute(frag.schema(), r.name);
  std::optional<field_info> fi;
  if (has) fi = frag.field(r.name);
  const std::size_t stride = tile_stride(g, order.run_dim()), size = fill.size();
  const std::string names[] = {r.name};
  for_each_tile_batch(g, boxes, plan.arr.options().threads, [&](const std::vector<tile_work>& batch) {
    const auto ahead = has ? fetch_batch(plan, frag, fb, k, batch, boxes, order, names) : batch_fetch{};
    std::vector<std::optional<tile_data>> var_tiles(r.var ? batch.size() : 0);
    // Each result cell has one winner, in one of its tiles: no two threads write one cell.
    parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
      std::vector<won_run> runs;
      // Fixed-size fields without validity gather the runs of every part,
      // then read the tile once; others read the tile whole when a part
      // first needs it.
      const bool plain = !r.var && !r.nullable;
      std::vector<won_run> plain_runs;
      std::optional<tile_data> t;
      for (const auto& [b, p] : batch[w].parts) {
        if (plan.skips(p.tile_lo)) continue;
        won_runs(p, boxes[b], order, g, fb.newer[k], runs);
        if (runs.empty()) continue;  // newer fragments cover this part of the tile
        if (!has) {  // the fragment's schema predates the attribute
          // (Validity starts as the fill validity.)
          for (const auto& run : runs) {
            if (!r.var)
              for (std::size_t j = 0; j < run.len; ++j)
                std::memcpy(r.values.data() + (run.result + j) * size, fill.data(), size);
            if (predating)
              std::fill_n(predating->begin() + static_cast<std::ptrdiff_t>(run.result), run.len, std::uint8_t{1});
          }
          continue;
        }
        if (plain) {
          plain_runs.insert(plain_runs.end(), runs.begin(), runs.end());
          continue;
        }
        if (!t) t = frag.read_tile_as_stored(*fi, static_cast<std::size_t>(batch[w].tile), ahead.of(r.name));
        const std::size_t cells = r.var ? t->offsets.size() : t->values.size() / size;
        for (const auto& run : runs) {
          const std::size_t last = run.tile + (run.len - 1) * stride;
          if (last >= cells || (r.nullable && last >= t->validity.size()))
            throw format_error("a tile of fragment " + frag.name().str() + ", field " + r.name +
                                   " holds fewer cells than its space tile",
                               0);
          if (r.var) {
            for (std::size_t j = 0; j < run.len; ++j)
              var_cells[run.result + j] = var_cell(t->values, t->offsets, run.tile + j * stride);
          } else if (stride == 1) {
            std::memcpy(r.values.data() + run.result * size, t->values.data() + run.tile * size, run.len * size);
          } else {
            for (std::size_t j = 0; j < run.len; ++j)
              std::memcpy(r.values.data() + (run.result + j) * size, t->values.data() + (run.tile + j * stride) * size,
                          size);
          }
          if (r.nullable)
            for (std::size_t j = 0; j < run.len; ++j) r.validity[run.result + j] = t->validity[run.tile + j * stride];
        }
      }
      if (!plain_runs.empty()) {
        const auto tile = static_cast<std::size_t>(batch[w].tile);
        const std::uint64_t cells = frag.tile_cells(tile);
        if (const auto at = whole_tile_run(plain_runs, stride, cells)) {
          // The tile decodes straight into the result: no tile buffer, no copy.
          frag.read_values_as_stored_into(*fi, tile,
                                          std::span(r.values.data() + *at * size, static_cast<std::size_t>(cells) * size),
                                          ahead.of(r.name));
        } else if (stride == 1) {
          // Only the chunks that hold cells of the runs, each run's cells
          // unfiltered straight to its place where the pipeline allows.
          std::vector<cell_copy> copies;
          copies.reserve(plain_runs.size());
          for (const auto& run : plain_runs) copies.push_back({run.tile, run.len, r.values.data() + run.result * size});
          frag.read_cells_into(*fi, tile, copies, ahead.of(r.name));
        } else {
          // A chunk at a time, only the chunks that hold cells of the runs.
          frag.read_values_in_chunks(
              *fi, tile, [&](std::size_t first, std::size_t last) { return runs_meet(plain_runs, stride, first, last); },
              [&](std::size_t first, std::span<const std::byte> values) {
                copy_runs_within(plain_runs, stride, first, values, size, r.values.data());
              },
              ahead.of(r.name));
        }
      }
      // Fixed-size values are copied; var-size cells point into the tile.
      if (r.var && t) var_tiles[w] = std::move(t);
    });
    // Moving a tile keeps its buffers where they are: the views stay valid.
    for (auto& t : var_tiles)
      if (t) kept.push_back(std::move(*t));
  });
}

/// What both dense passes (reading cells, folding them into aggregates)
/// start from: the subarray's boxes, the result's order, each fragment's
/// grid and domain, and whether some cell is written by no fragment.
struct dense_setup {
  std::vector<cell_box> boxes;
  std::optional<result_order> order;
  fragment_boxes fb;
  std::vector<std::size_t> written;  // fragments that wrote something
  bool unwritten = false;
  std::size_t cells = 0;

  explicit dense_setup(const read_plan& plan) {
    const auto& schema = plan.schema();
    for (std::size_t d = 0; d < plan.sub.dim_num(); ++d)
      if (!plan.sub.dim(d).integral)
        throw std::invalid_argument("tilefmt: query: dimension \"" + schema.domain.dimensions.value[d].name.value +
                                    "\" of a dense array is not an integer, date or time dimension");
    auto [b, widths] = dense_boxes(plan.sub);
    boxes = std::move(b);
    if (plan.layout == query_layout::global_order && boxes.size() > 1)
      throw std::invalid_argument("tilefmt: query: several ranges per dimension cannot be read in global order "
                                  "(TileDB refuses it too)");
    if (plan.layout == query_layout::unordered)
      throw std::invalid_argument("tilefmt: query: a dense array has no unordered layout (TileDB refuses it too)");
    // The size is checked before result_order allocates its bookkeeping (a
    // count per space tile, for global order): a damaged schema can declare
    // a domain of 2^64 cells in tiles of one.
    std::uint64_t n = 1;
    for (const auto w : widths) {
      if (w == 0 || n > std::numeric_limits<std::uint64_t>::max() / w)
        throw std::invalid_argument("tilefmt: query: the subarray has more than 2^64 cells");
      n *= w;
    }
    plan.check_size(plan.sinks ? 0 : n,
                    (plan.where ? 1 : 0) + (plan.layout == query_layout::global_order ? 8 : 0));
    order.emplace(widths, boxes.front(), plan.layout, schema);
    cells = static_cast<std::size_t>(order->cell_num());

    // Each fragment's grid and domain; the cells it wins are those of its
    // domain outside the newer ones' (won_runs).
    const auto& frags = plan.arr.fragments();
    fb.grids.resize(frags.size());
    fb.domains.resize(frags.size());
    fb.newer.resize(frags.size());
    for (std::size_t k = 0; k < frags.size(); ++k) {
      const auto& f = frags[k];
      plan.check_fragment(f);
      if (!f.dense())
        throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() +
                                    " of a dense array is sparse; not supported yet");
      if (f.footer().null_non_empty_domain) continue;
      fb.grids[k].emplace(dense_grid::of_region(f.schema(), f.non_empty_domain()));
      auto& box = fb.domains[k];
      for (const auto& r : fb.grids[k]->ranges()) box.lo.push_back(r.from), box.hi.push_back(r.from + (r.width - 1));
      written.push_back(k);
    }
    for (std::size_t i = 0; i < written.size(); ++i)
      for (std::size_t j = i + 1; j < written.size(); ++j) fb.newer[written[i]].push_back(&fb.domains[written[j]]);
    // Cells no fragment wrote: none when each ND range lies in some fragment's domain.
    for (const auto& box : boxes)
      unwritten = unwritten || std::none_of(written.begin(), written.end(),
                                            [&](std::size_t k) { return fb.domains[k].holds(box); });
  }
};

/// Folds the cells of the subarray that fragments won into `plan.sinks`
/// (the aggregates of fixed-size attributes, without a condition) straight
/// from the tiles, on the array's threads: no result is materialised, and
/// the cells no fragment wrote and the tiles plan.skip_tile names are left
/// out. Returns the subarray's cell count.
inline std::uint64_t fold_dense(const read_plan& plan) {
  const dense_setup ds(plan);
  const auto& frags = plan.arr.fragments();
  const unsigned threads = plan.arr.options().threads;
  for (auto& agg : *plan.sinks) {
    if (agg.op() == aggregate_op::count) continue;
    const std::string& name = agg.field_name();
    const auto& attr = plan.attribute(name);
    const std::size_t size = attr.cell_size();
    for (std::size_t k : ds.written) {
      const auto& frag = frags[k];
      const auto& g = *ds.fb.grids[k];
      // No result bounds the walk over the tiles, as it bounds reads: the
      // fragment must store the tiles its domain spans (a damaged domain
      // could span 2^64).
      if (g.tile_num() > frag.tile_num())
        throw format_error("fragment " + frag.name().str() + ": the non-empty domain spans " +
                               std::to_string(g.tile_num()) + " tiles, the fragment stores " +
                               std::to_string(frag.tile_num()),
                           0);
      const std::size_t stride = tile_stride(g, ds.order->run_dim());
      // A fragment that predates the attribute reads as its fill value, but
      // TileDB's aggregates leave its cells out, as cells nobody wrote
      // (TileDB-Py 0.36.1 on arrays evolved by libtiledb 2.4 and 2.6: SUM and
      // MEAN of the added attribute over the newer fragment's cells only).
      if (!has_attribute(frag.schema(), name)) continue;
      const field_info fi = frag.field(name);
      std::mutex merge;
      const std::string names[] = {name};
      for_each_tile_batch(g, ds.boxes, threads, [&](const std::vector<tile_work>& batch) {
        const auto ahead = fetch_batch(plan, frag, ds.fb, k, batch, ds.boxes, *ds.order, names);
        parallel_for(batch.size(), threads, [&](std::size_t w) {
          std::vector<won_run> runs;
          std::optional<tile_data> t;
          aggregator local = agg.empty_copy();
          std::vector<std::byte> gathered;
          std::vector<std::uint8_t> gathered_validity;
          for (const auto& [b, p] : batch[w].parts) {
            if (plan.skips(p.tile_lo)) continue;
            won_runs(p, ds.boxes[b], *ds.order, g, ds.fb.newer[k], runs);
            if (runs.empty()) continue;
            if (!t) t = frag.read_tile_as_stored(fi, static_cast<std::size_t>(batch[w].tile), ahead.of(name));
            const std::size_t cells = t->values.size() / size;
            for (const auto& run : runs) {
              const std::size_t last = run.tile + (run.len - 1) * stride;
              if (last >= cells || (attr.nullable.value && last >= t->validity.size()))
                throw format_error("a tile of fragment " + frag.name().str() + ", field " + name +
                                       " holds fewer cells than its space tile",
                                   0);
              const std::byte* v = t->values.data() + run.tile * size;
              const std::uint8_t* valid = attr.nullable.value ? t->validity.data() + run.tile : nullptr;
              if (stride != 1) {  // gathered into a run of its own
                gathered.resize(run.len * size);
                for (std::size_t j = 0; j < run.len; ++j)
                  std::memcpy(gathered.data() + j * size, t->values.data() + (run.tile + j * stride) * size, size);
                v = gathered.data();
                if (valid) {
                  gathered_validity.resize(run.len);
                  for (std::size_t j = 0; j < run.len; ++j) gathered_validity[j] = t->validity[run.tile + j * stride];
                  valid = gathered_validity.data();
                }
              }
              local.add_fixed(v, valid, run.len);
            }
          }
          const std::lock_guard<std::mutex> lock(merge);
          agg.merge(local);
        });
      });
    }
  }
  return ds.order->cell_num();
}

/// Reads a dense array's subarray: the result's fields and cell count.
inline read_output read_dense(const read_plan& plan) {
  const dense_setup ds(plan);
  const auto& boxes = ds.boxes;
  const auto& order = *ds.order;
  const auto& fb = ds.fb;
  const auto& written = ds.written;
  const bool unwritten = ds.unwritten;
  const std::size_t n = ds.cells;
  const auto& frags = plan.arr.fragments();

  std::vector<std::uint8_t> failed;
  if (plan.where) {
    // Unwritten cells hold fill values, which are tested too: every cell
    // starts as the fill values fare, and the cells fragments win are
    // tested with their values.
    failed.assign(n, unwritten && !fill_passes(plan) ? 1 : 0);
    apply_condition(plan, frags, fb, boxes, order, failed);
  }
  const bool any_failed = std::find(failed.begin(), failed.end(), std::uint8_t{1}) != failed.end();
  std::vector<std::uint8_t> unwritten_cells;
  if (plan.aggregating && (unwritten || plan.skip_tile)) {
    unwritten_cells.assign(n, 1);
    mark_written(plan, frags, fb, boxes, order, unwritten_cells);
  }

  std::vector<result_field> out;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> predating_fields;
  for (const auto& name : plan.names) {
    const auto& attr = plan.attribute(name);
    result_field r = plan.attribute_field(name);
    const std::vector<std::byte> fill = attr.fill();
    const std::size_t size = fill.size();
    const std::uint8_t fill_validity = attr.fill_value_validity.value;
    if (r.nullable) r.validity.assign(n, fill_validity);
    if (!r.var) {
      r.values.resize(n * size);
      if (unwritten)
        for (std::size_t c = 0; c < n; ++c) std::memcpy(r.values.data() + c * size, fill.data(), size);
    }
    // Var-size cells are gathered at the end from the tiles they are in.
    std::vector<std::span<const std::byte>> var_cells(r.var ? n : 0, std::span<const std::byte>(fill));
    std::deque<tile_data> kept;
    std::vector<std::uint8_t> predating;
    if (plan.aggregating &&
        std::any_of(written.begin(), written.end(), [&](std::size_t k) { return !has_attribute(frags[k].schema(), name); }))
      predating.assign(n, 0);
    for (std::size_t k : written)
      copy_won_cells(plan, frags[k], k, fb, boxes, order, fill, r, var_cells, kept,
                     predating.empty() ? nullptr : &predating);
    if (!predating.empty()) predating_fields.emplace_back(name, std::move(predating));
    // Cells that failed the condition read as fill values.
    if (any_failed)
      for (std::size_t c = 0; c < n; ++c) {
        if (!failed[c]) continue;
        if (r.var)
          var_cells[c] = std::span<const std::byte>(fill);
        else
          std::memcpy(r.values.data() + c * size, fill.data(), size);
        if (r.nullable) r.validity[c] = fill_validity;
      }
    if (r.var) store_var_cells(r, var_cells);
    out.push_back(std::move(r));
  }
  return {std::move(out), order.cell_num(), std::move(failed), std::move(unwritten_cells), {},
          std::move(predating_fields)};
}

} // namespace tilefmt::array::detail
