// tilefmt — where a query read in batches (query::batches) cuts its
// subarray: into slabs along one dimension whose results follow each other
// in the layout's order, so that the batches put together are the whole
// result.
//
// The dimension is the layout's slowest: the first for row-major, the last
// for column-major, and for global order (and unordered reads of sparse
// arrays, which TileDB returns in global order) the tile order's slowest,
// with cuts on space tile boundaries (so a part of a global-order read
// holds at least a row of space tiles, whatever the budget; a sparse row of
// space tiles larger than the budget is cut again, across the next slowest
// dimension on its space tile boundaries: a run of space tiles in the tile
// order is a run of the global order, so the parts still follow each
// other; and in two dimensions, a space tile larger than the budget is cut
// a third time, along the slab dimension where the cell order's slowest is
// the same: rows r0..r1 of one space tile are a run of its cells). Dense
// slabs are a number of rows
// (positions along the dimension's ranges put end to end), sized from the
// cells per row; sparse slabs are key intervals, sized from the cell counts
// of the tiles whose bounding rectangles start in them (the R-tree: no tile
// is read to plan). Where a cut could change the order, a sparse read is
// one batch: a string or (for global order) an untiled or float slab
// dimension, a global order along the Hilbert curve, or a one-dimensional row- or column-major read whose ranges
// are not sorted and apart (TileDB returns those range by range).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <functional>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/array/read/subarray.hpp"

namespace tilefmt::array::detail {

class slab_cutter {
public:
  slab_cutter(const array_reader& arr, subarray sub, query_layout layout)
      : sub_(std::move(sub)), sparse_(arr.schema().is_sparse()) {
    const auto& schema = arr.schema();
    const std::size_t nd = sub_.dim_num();
    const bool global = layout == query_layout::global_order || layout == query_layout::unordered;
    if (global)
      dim_ = schema.tile_order == format::Layout::COL_MAJOR ? nd - 1 : 0;
    else
      dim_ = layout == query_layout::col_major ? nd - 1 : 0;
    const auto& dim = schema.domain.dimensions.value[dim_];
    if (global) {
      format::visit_integer_type(dim.type.value, [&]<class T>() {
        if (dim.has_tile_extent()) extent_ = static_cast<std::uint64_t>(*dim.tile_extent_as<T>());
      });
      if (extent_ == 0) extent_ = sparse_ ? 0 : 1;  // dense dimensions are integers
    }
    if (sparse_ && !sub_.empty()) plan_sparse(arr, global);
    if (!sparse_) {
      for (const auto& r : sub_.dim(dim_).ranges) total_ += r.hi - r.lo + 1;
      row_cells_ = 1;
      for (std::size_t d = 0; d < nd; ++d) {
        if (d == dim_) continue;
        std::uint64_t w = 0;
        for (const auto& r : sub_.dim(d).ranges) w += r.hi - r.lo + 1;
        row_cells_ = w != 0 && row_cells_ > std::numeric_limits<std::uint64_t>::max() / w
                         ? std::numeric_limits<std::uint64_t>::max()
                         : row_cells_ * w;
      }
    }
  }

  /// The next slab, holding about `cells` result cells (at least one row
  /// or tile); nullopt once the subarray is done.
  std::optional<subarray> next(std::uint64_t cells) {
    if (done_) return std::nullopt;
    return sparse_ ? next_sparse(cells) : next_dense(cells);
  }

private:
  // Dense: rows [at_, at_ + count) of the dimension's ranges put end to end.
  std::optional<subarray> next_dense(std::uint64_t cells) {
    std::uint64_t count = std::max<std::uint64_t>(1, cells / std::max<std::uint64_t>(1, row_cells_));
    count = std::min(count, total_ - at_);
    if (extent_ > 1) {
      // Global order takes one range: end the slab on a space tile boundary
      // (offsets from the domain's start).
      const auto& r = sub_.dim(dim_).ranges.front();
      const std::uint64_t start = r.lo - sub_.dim(dim_).domain.lo;
      const std::uint64_t end = start + at_ + count;  // one past the slab
      const std::uint64_t aligned = (end + extent_ - 1) / extent_ * extent_;
      count = std::min(aligned - start, total_) - at_;
    }
    std::vector<key_range> pieces;
    std::uint64_t skip = at_, left = count;
    for (const auto& r : sub_.dim(dim_).ranges) {
      const std::uint64_t w = r.hi - r.lo + 1;
      if (skip >= w) {
        skip -= w;
        continue;
      }
      const std::uint64_t take = std::min(w - skip, left);
      pieces.push_back({r.lo + skip, r.lo + skip + take - 1});
      left -= take;
      skip = 0;
      if (left == 0) break;
    }
    at_ += count;
    done_ = at_ >= total_;
    return sub_.with_ranges(dim_, std::move(pieces));
  }

  /// Where a tile's bounding rectangle starts along the slab dimension and
  /// the next slowest, and ends along the slab dimension (keys), and its
  /// cells.
  struct tile_span {
    std::uint64_t lo, lo2, cells, hi;
  };

  void plan_sparse(const array_reader& arr, bool global) {
    const auto& dim = arr.schema().domain.dimensions.value[dim_];
    const auto& ranges = sub_.dim(dim_).ranges;
    bool cut = !sub_.dim(dim_).string && format::visit_coordinate_type(dim.type.value, []<class>() {});
    if (global && (extent_ == 0 || !sub_.dim(dim_).integral)) cut = false;
    if (global && arr.schema().cell_order == format::Layout::HILBERT) cut = false;  // the curve crosses every slab
    if (!global && sub_.dim_num() == 1)
      for (std::size_t i = 1; i < ranges.size(); ++i)
        if (ranges[i].lo <= ranges[i - 1].hi) cut = false;  // not sorted and apart
    if (!cut) return;  // one batch
    lo_ = ranges.front().lo;
    hi_ = ranges.front().hi;
    for (const auto& r : ranges) lo_ = std::min(lo_, r.lo), hi_ = std::max(hi_, r.hi);
    plan_second_cut(arr, global);
    for (const auto& f : arr.fragments()) {
      const auto mbrs = f.mbrs();
      for (std::size_t t = 0; t < mbrs.size() && t < f.tile_num(); ++t) {
        if (mbrs[t].ranges.size() <= std::max(dim_, dim2_)) continue;
        std::uint64_t lo = 0, hi = 0, lo2 = 0;
        format::visit_coordinate_type(dim.type.value, [&]<class T>() {
          const auto [a, b] = mbrs[t].ranges[dim_].as<T>();
          lo = order_key(a), hi = order_key(b);
        });
        if (hi < lo_ || lo > hi_) continue;
        if (extent2_ != 0)
          format::visit_coordinate_type(arr.schema().domain.dimensions.value[dim2_].type.value, [&]<class T>() {
            lo2 = std::max(order_key(mbrs[t].ranges[dim2_].as<T>().first), lo2_);
          });
        tiles_.push_back({std::max(lo, lo_), lo2, f.tile_cells(t), std::min(hi, hi_)});
      }
    }
    std::sort(tiles_.begin(), tiles_.end(), [](const tile_span& a, const tile_span& b) { return a.lo < b.lo; });
    start_ = lo_;
    planned_ = true;
  }

  /// Global order: whether a row of space tiles may be cut across the next
  /// slowest dimension (an integer one with a tile extent), and its keys.
  void plan_second_cut(const array_reader& arr, bool global) {
    const std::size_t nd = sub_.dim_num();
    if (!global || nd < 2 || extent_ == 0) return;
    dim2_ = arr.schema().tile_order == format::Layout::COL_MAJOR ? dim_ - 1 : dim_ + 1;
    const auto& dim2 = arr.schema().domain.dimensions.value[dim2_];
    if (sub_.dim(dim2_).string || !sub_.dim(dim2_).integral) return;
    format::visit_integer_type(dim2.type.value, [&]<class T>() {
      if (dim2.has_tile_extent()) extent2_ = static_cast<std::uint64_t>(*dim2.tile_extent_as<T>());
    });
    // A third cut, inside one space tile, where its cells' slowest
    // dimension is the slab dimension.
    const std::size_t cell_slowest = arr.schema().cell_order == format::Layout::COL_MAJOR ? nd - 1 : 0;
    cell_cut_ = nd == 2 && extent2_ != 0 && arr.schema().cell_order != format::Layout::HILBERT && cell_slowest == dim_;
    const auto& ranges = sub_.dim(dim2_).ranges;
    lo2_ = ranges.front().lo;
    hi2_ = ranges.front().hi;
    for (const auto& r : ranges) lo2_ = std::min(lo2_, r.lo), hi2_ = std::max(hi2_, r.hi);
  }

  /// The space tile boundary at or below key `k` of dimension `d` (keys of
  /// integers differ as the values).
  std::uint64_t boundary(std::size_t d, std::uint64_t k, std::uint64_t extent) const {
    const std::uint64_t base = sub_.dim(d).domain.lo;
    return base + (k - base) / extent * extent;
  }

  /// `sub` with dimension `d`'s ranges cut to the keys [lo, hi].
  static subarray cut_to(const subarray& sub, std::size_t d, std::uint64_t lo, std::uint64_t hi) {
    std::vector<key_range> pieces;
    for (const auto& r : sub.dim(d).ranges) {
      const std::uint64_t a = std::max(r.lo, lo), b = std::min(r.hi, hi);
      if (a <= b) pieces.push_back({a, b});
    }
    return sub.with_ranges(d, std::move(pieces));
  }

  /// The next part of a row of space tiles larger than the budget: the
  /// keys [start2_, cut - 1] of the next slowest dimension.
  std::optional<subarray> next_in_band(std::uint64_t cells) {
    if (!tile_.empty() || (cell_cut_ && start_tile(cells))) return next_in_tile(cells);
    std::uint64_t sum = 0, cut = 0;
    bool found = false;
    for (; next_band_tile_ < band_.size(); ++next_band_tile_) {
      const auto& t = band_[next_band_tile_];
      if (t.lo2 < start2_) continue;
      if (sum >= cells) {
        const std::uint64_t c = boundary(dim2_, t.lo2, extent2_);
        if (c > start2_ && c <= hi2_) {
          cut = c;
          found = true;
          break;
        }
      }
      sum += t.cells;
    }
    auto out = cut_to(cut_to(sub_, dim_, band_lo_, band_hi_), dim2_, start2_, found ? cut - 1 : hi2_);
    if (found)
      start2_ = cut;
    else
      end_band();
    return out;
  }

  /// The row of space tiles is done.
  void end_band() {
    band_.clear();
    done_ = band_hi_ >= hi_;
    start_ = band_hi_ + 1;
  }

  /// The last key of the space tile of `extent` keys that starts at key
  /// `first` (the largest key where it would pass it).
  static std::uint64_t tile_end(std::uint64_t first, std::uint64_t extent) {
    return first > std::numeric_limits<std::uint64_t>::max() - (extent - 1) ? std::numeric_limits<std::uint64_t>::max()
                                                                           : first + (extent - 1);
  }

  /// At the start of a part of a row of space tiles: when the space tile at
  /// start2_ alone holds more than `cells`, its tiles are set apart in
  /// tile_, by where they start along the slab dimension, to be cut along it.
  bool start_tile(std::uint64_t cells) {
    const std::uint64_t end2 = tile_end(boundary(dim2_, start2_, extent2_), extent2_);
    std::uint64_t sum = 0;
    std::vector<tile_span> in;
    for (std::size_t k = next_band_tile_; k < band_.size() && band_[k].lo2 <= end2; ++k)
      if (band_[k].lo2 >= start2_) {
        sum += band_[k].cells;
        in.push_back(band_[k]);
      }
    if (sum <= cells) return false;
    std::sort(in.begin(), in.end(), [](const tile_span& a, const tile_span& b) { return a.lo < b.lo; });
    tile_ = std::move(in);
    straddle_ = straddling();
    next_row_tile_ = 0;
    row_start_ = band_lo_;
    tile_hi2_ = std::min(end2, hi2_);
    return true;
  }

  /// For each tile of tile_ (in order of where they start), the cells of
  /// the tiles that a cut where it starts would read twice (once in each
  /// part): those that start before and end at or after it. One sweep, the
  /// tiles passed kept by where they end.
  std::vector<std::uint64_t> straddling() const {
    std::vector<std::uint64_t> out(tile_.size());
    using open_tile = std::pair<std::uint64_t, std::uint64_t>;  // its end, its cells
    std::priority_queue<open_tile, std::vector<open_tile>, std::greater<>> open;
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < tile_.size();) {
      const std::uint64_t k = std::max(tile_[i].lo, band_lo_);
      for (; !open.empty() && open.top().first < k; open.pop()) sum -= open.top().second;
      std::size_t e = i;
      for (; e < tile_.size() && std::max(tile_[e].lo, band_lo_) == k; ++e) out[e] = sum;
      for (; i < e; ++i) {
        open.emplace(tile_[i].hi, tile_[i].cells);
        sum += tile_[i].cells;
      }
    }
    return out;
  }

  /// The next part of one space tile larger than the budget: the keys
  /// [row_start_, cut - 1] of the slab dimension, cut where a tile starts
  /// and the tiles that cross the cut hold at most an eighth of a part
  /// (each part reads the tiles it meets whole: tiles that span most of
  /// the space tile would be read again by every part).
  std::optional<subarray> next_in_tile(std::uint64_t cells) {
    std::uint64_t sum = 0, cut = 0;
    bool found = false;
    for (; next_row_tile_ < tile_.size(); ++next_row_tile_) {
      const std::uint64_t lo = std::max(tile_[next_row_tile_].lo, band_lo_);
      if (lo < row_start_) continue;
      if (sum >= cells && lo > row_start_ && straddle_[next_row_tile_] <= cells / 8) {
        cut = lo;
        found = true;
        break;
      }
      sum += tile_[next_row_tile_].cells;
    }
    auto out = cut_to(cut_to(sub_, dim_, row_start_, found ? cut - 1 : band_hi_), dim2_, start2_, tile_hi2_);
    if (found) {
      row_start_ = cut;
      return out;
    }
    tile_.clear();  // the space tile is done
    if (tile_hi2_ >= hi2_)
      end_band();
    else
      start2_ = tile_hi2_ + 1;
    return out;
  }

  // Sparse: the keys [start_, cut - 1] of the slab dimension.
  std::optional<subarray> next_sparse(std::uint64_t cells) {
    if (!planned_) {
      done_ = true;
      return sub_;
    }
    if (!band_.empty()) return next_in_band(cells);
    std::uint64_t sum = 0, cut = 0;
    bool found = false;
    for (; next_tile_ < tiles_.size(); ++next_tile_) {
      const auto& t = tiles_[next_tile_];
      if (t.lo < start_) continue;
      if (sum == 0 && extent2_ != 0 && start_band(cells)) return next_in_band(cells);
      if (sum >= cells) {
        const std::uint64_t c = extent_ != 0 ? boundary(dim_, t.lo, extent_) : t.lo;  // on a space tile boundary
        if (c > start_) {
          cut = c;
          found = true;
          break;
        }
      }
      sum += t.cells;
    }
    auto out = cut_to(sub_, dim_, start_, found ? cut - 1 : hi_);
    done_ = !found;
    start_ = cut;
    return out;
  }

  /// At the start of a part: when the row of space tiles at `start_` holds
  /// more than `cells`, its tiles are set apart in band_ to be cut across.
  bool start_band(std::uint64_t cells) {
    const std::uint64_t end = tile_end(boundary(dim_, start_, extent_), extent_);  // the row's last key
    std::uint64_t sum = 0;
    std::size_t k = next_tile_;
    for (; k < tiles_.size() && tiles_[k].lo <= end; ++k) sum += tiles_[k].cells;
    if (sum <= cells) return false;
    band_.assign(tiles_.begin() + static_cast<std::ptrdiff_t>(next_tile_), tiles_.begin() + static_cast<std::ptrdiff_t>(k));
    std::sort(band_.begin(), band_.end(), [](const tile_span& a, const tile_span& b) { return a.lo2 < b.lo2; });
    next_tile_ = k;
    next_band_tile_ = 0;
    band_lo_ = start_;
    band_hi_ = std::min(end, hi_);
    start2_ = lo2_;
    return true;
  }

  subarray sub_;
  bool sparse_;
  std::size_t dim_ = 0;
  std::uint64_t extent_ = 0;  // space tile extent along dim_ (global order), or 0
  // Global order: the next slowest dimension, its space tile extent (0: no
  // second cut) and the query's keys along it; the row of space tiles being
  // cut across (band_: its tiles), from start2_ on.
  std::size_t dim2_ = 0;
  std::uint64_t extent2_ = 0, lo2_ = 0, hi2_ = 0, start2_ = 0, band_lo_ = 0, band_hi_ = 0;
  std::vector<tile_span> band_;
  std::size_t next_band_tile_ = 0;
  // The third cut: the space tile [start2_, tile_hi2_] being cut along the
  // slab dimension from row_start_ on (tile_: its tiles).
  bool cell_cut_ = false;
  std::vector<tile_span> tile_;
  std::vector<std::uint64_t> straddle_;  // straddling()
  std::size_t next_row_tile_ = 0;
  std::uint64_t row_start_ = 0, tile_hi2_ = 0;
  bool done_ = false;
  // Dense.
  std::uint64_t total_ = 0, row_cells_ = 1, at_ = 0;
  // Sparse.
  bool planned_ = false;
  std::uint64_t lo_ = 0, hi_ = 0, start_ = 0;
  std::vector<tile_span> tiles_;
  std::size_t next_tile_ = 0;
};

} // namespace tilefmt::array::detail
