// tilefmt — the geometry of a dense read: the subarray's ND ranges as
// boxes of cells, where each cell of a box goes in the result
// (result_order), the parts of space tiles a box covers, runs of cells
// along a tile's fastest dimension, the runs a fragment wins against newer
// fragments' domains, and tiles grouped into batches for the threads.
// Nothing here reads a tile: read/dense/reader.hpp does, with these.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/array/read/subarray.hpp"
#include "tilefmt/array/support/function_ref.hpp"
#include "tilefmt/array/support/parallel.hpp"

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
        format::visit_integer_type(dim.type.value, [&]<class T>() {
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

} // namespace tilefmt::array::detail
