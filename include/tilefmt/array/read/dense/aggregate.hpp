// tilefmt — which space tiles of a dense query TileDB aggregates from the
// metadata its writer stored (min, max, sum, null count per tile) instead
// of the cells (dense_reader.h, can_aggregate_tile_with_frag_md).
//
// A space tile qualifies when the subarray covers all of it and exactly one
// fragment wrote there that no newer fragment's domain covers in the tile:
// that fragment's tile is then the tile's only source. Its metadata counts
// the whole space tile, so in a tile the write covered only in part MEAN
// divides by the tile's cells less its nulls, and NULL_COUNT leaves the
// unwritten cells out: TileDB's answers, which the cells would not give.
// Whether a field may use it is decided per field (query::aggregate): the
// fragment must be of format 11 on, hold the attribute and have stored
// what the aggregate needs; fixed-size nullable strings wait for format 21
// (TileDB's dense writer stored wrong extremes for them before); and no
// cell of the tile may fail the query's condition.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/dense/reader.hpp"
#include "tilefmt/array/read/subarray.hpp"

namespace tilefmt::array::detail {

/// The space tiles of a dense query's subarray, in row-major order of the
/// tiles, each with its part of the subarray and, when it qualifies, the
/// one fragment and tile that hold it.
class aggregate_split {
public:
  struct source {
    const fragment* frag = nullptr;  // null: the tile does not qualify
    std::size_t tile = 0;            // the fragment's tile index
  };

  /// std::nullopt when no tile qualifies (a read of the whole subarray
  /// serves then), or the subarray spans more than aggregate_tiles_max
  /// space tiles.
  static std::optional<aggregate_split> of(const array_reader& arr, const subarray& sub);

  std::size_t tile_num() const noexcept { return sources_.size(); }
  const subarray& subarray_of() const noexcept { return sub_; }
  const source& tile_source(std::size_t n) const { return sources_[n]; }
  /// Tile n's part of the subarray, and its cells.
  std::pair<subarray, std::uint64_t> part(std::size_t n) const {
    subarray s = sub_;
    std::uint64_t cells = 1;
    for (std::size_t d = axes_.size(); d-- > 0;) {
      const auto& a = axes_[d][n % axes_[d].size()];
      n /= axes_[d].size();
      s = s.with_ranges(d, a.ranges);
      cells *= a.cells;
    }
    return {std::move(s), cells};
  }

  /// The tile whose first cell is at `tile_lo` (offsets from the domain's
  /// start, per dimension), if the subarray touches it.
  std::optional<std::size_t> index_of(std::span<const std::uint64_t> tile_lo) const {
    std::size_t n = 0;
    for (std::size_t d = 0; d < index_.size(); ++d) {
      const auto& ix = index_[d];
      const auto it = std::lower_bound(ix.begin(), ix.end(), tile_lo[d] / extents_[d]);
      if (it == ix.end() || *it != tile_lo[d] / extents_[d]) return std::nullopt;
      n = n * ix.size() + static_cast<std::size_t>(it - ix.begin());
    }
    return n;
  }

private:
  /// A tile along one dimension: the ranges' parts in it and their cells.
  struct axis_tile {
    std::vector<key_range> ranges;
    std::uint64_t cells = 0;
  };

  explicit aggregate_split(subarray sub) : sub_(std::move(sub)) {}

  subarray sub_;
  std::vector<std::vector<axis_tile>> axes_;
  std::vector<std::vector<std::uint64_t>> index_;  // per dimension, the tiles touched (counted from the domain's start)
  std::vector<std::uint64_t> extents_;
  std::vector<source> sources_;
};

/// Most space tiles a split looks at; a subarray over more is read whole.
inline constexpr std::uint64_t aggregate_tiles_max = std::uint64_t{1} << 20;

inline std::optional<aggregate_split> aggregate_split::of(const array_reader& arr, const subarray& sub) {
  const auto& schema = arr.schema();
  const std::size_t nd = sub.dim_num();
  aggregate_split out(sub);
  out.axes_.resize(nd);
  // Per dimension: the tiles the ranges touch, the ranges' parts in each and
  // how many cells those hold. TileDB compares the product of those counts
  // with the tile's cells.
  auto& index = out.index_;
  auto& extents = out.extents_;
  index.resize(nd);
  extents.resize(nd);
  std::uint64_t tiles = 1, tile_cells = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    const auto& dim = schema.domain.dimensions.value[d];
    if (!sub.dim(d).integral) return std::nullopt;
    std::uint64_t e = 1;
    format::visit_integer_type(dim.type.value, [&]<class T>() {
      e = static_cast<std::uint64_t>(dim.tile_extent_as<T>().value_or(T{1}));
    });
    if (e == 0 || tile_cells > std::numeric_limits<std::uint64_t>::max() / e) return std::nullopt;
    extents[d] = e;
    tile_cells *= e;
    const std::uint64_t base = sub.dim(d).domain.lo;
    std::map<std::uint64_t, axis_tile> axis;
    for (const auto& r : sub.dim(d).ranges) {
      const std::uint64_t lo = r.lo - base, hi = r.hi - base;
      if (hi / e - lo / e >= aggregate_tiles_max) return std::nullopt;
      for (std::uint64_t t = lo / e; t <= hi / e; ++t) {
        const std::uint64_t a = std::max(lo, t * e), b = std::min(hi, t * e + (e - 1));
        auto& x = axis[t];
        x.cells += b - a + 1;
        x.ranges.push_back({a + base, b + base});
      }
      if (axis.size() > aggregate_tiles_max) return std::nullopt;
    }
    if (axis.empty() || tiles > aggregate_tiles_max / axis.size()) return std::nullopt;
    tiles *= axis.size();
    for (auto& [t, x] : axis) {
      index[d].push_back(t);
      out.axes_[d].push_back(std::move(x));
    }
  }

  // The fragments that wrote something, newest first, with their domains
  // and grids. Per-cell timestamps are the whole read's to refuse.
  struct written {
    const fragment* frag;
    std::vector<std::uint64_t> lo, hi;
    dense_grid grid;
  };
  std::vector<written> ws;
  const auto& frags = arr.fragments();
  for (std::size_t k = frags.size(); k-- > 0;) {
    const auto& f = frags[k];
    if (!f.dense() || f.has_timestamps()) return std::nullopt;
    if (f.footer().null_non_empty_domain) continue;
    auto g = dense_grid::of_region(f.schema(), f.non_empty_domain());
    written w{&f, {}, {}, g};
    for (const auto& r : g.ranges()) w.lo.push_back(r.from), w.hi.push_back(r.from + (r.width - 1));
    ws.push_back(std::move(w));
  }

  bool any = false;
  std::vector<std::size_t> at(nd, 0);
  std::vector<std::uint64_t> tlo(nd), thi(nd);
  out.sources_.resize(static_cast<std::size_t>(tiles));
  for (std::size_t n = 0; n < out.sources_.size(); ++n) {
    std::uint64_t cells = 1;
    for (std::size_t d = 0; d < nd; ++d) {
      cells *= out.axes_[d][at[d]].cells;
      tlo[d] = index[d][at[d]] * extents[d];
      thi[d] = tlo[d] + (extents[d] - 1);
    }
    if (cells == tile_cells) {
      // The fragments meeting the tile that no newer one covers there: a
      // tile with exactly one has one source.
      auto part = [&](const written& w, std::size_t d) {
        return std::pair{std::max(w.lo[d], tlo[d]), std::min(w.hi[d], thi[d])};
      };
      const written* only = nullptr;
      std::size_t sources = 0;
      for (std::size_t i = 0; i < ws.size() && sources < 2; ++i) {
        bool meets = true;
        for (std::size_t d = 0; d < nd && meets; ++d) meets = part(ws[i], d).first <= part(ws[i], d).second;
        if (!meets) continue;
        bool covered = false;
        for (std::size_t j = 0; j < i && !covered; ++j) {
          covered = true;
          for (std::size_t d = 0; d < nd && covered; ++d)
            covered = part(ws[j], d).first <= part(ws[i], d).first && part(ws[i], d).second <= part(ws[j], d).second;
        }
        if (covered) continue;
        ++sources;
        only = &ws[i];
      }
      if (sources == 1 && only->frag->format_version() >= 11) {
        const auto& g = only->grid;
        std::vector<std::uint64_t> rel(nd);
        for (std::size_t d = 0; d < nd; ++d) rel[d] = tlo[d] / extents[d] - g.first_tile()[d];
        out.sources_[n] = {only->frag, static_cast<std::size_t>(
                                           ravel(rel, g.tiles_per_dim(), g.tile_order() != format::Layout::COL_MAJOR))};
        any = true;
      }
    }
    for (std::size_t d = nd; d-- > 0;) {  // the next tile: the last dimension fastest, as part() counts
      if (++at[d] < out.axes_[d].size()) break;
      at[d] = 0;
    }
  }
  if (!any) return std::nullopt;
  return out;
}

} // namespace tilefmt::array::detail
