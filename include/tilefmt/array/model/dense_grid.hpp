// tilefmt — the space tiles of a dense region: which tiles a region of a
// dense array touches, in the schema's tile order, and which cells of each
// tile the region covers, in its cell order. The reader uses it for a
// fragment's non-empty domain (cells outside it read as fill values), the
// writer for the subarray it writes.
//
// Positions are offsets from the domain's lower bound, computed in unsigned
// arithmetic: a domain may span all of int64 or reach past INT64_MAX in
// uint64, where signed differences overflow.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::array {

/// One dimension of a dense region.
struct dense_range {
  std::uint64_t from = 0;    // the region's first cell, as an offset from the domain's lower bound
  std::uint64_t width = 1;   // cells in the region
  std::uint64_t extent = 1;  // cells in a space tile
};

class dense_grid {
public:
  /// `ranges` per dimension; throws format_error when a count overflows.
  dense_grid(std::vector<dense_range> ranges, format::Layout tile_order, format::Layout cell_order)
      : ranges_(std::move(ranges)), tile_order_(tile_order), cell_order_(cell_order) {
    for (const auto& r : ranges_) {
      if (r.extent == 0 || r.width == 0) throw format_error("a dense region has an empty dimension or tile extent", 0);
      if (r.from > std::numeric_limits<std::uint64_t>::max() - (r.width - 1))
        throw format_error("a dense region ends past the domain", 0);
      first_tile_.push_back(r.from / r.extent);
      tiles_per_dim_.push_back((r.from + (r.width - 1)) / r.extent - r.from / r.extent + 1);
      extents_.push_back(r.extent);
    }
    tile_num_ = checked_product(tiles_per_dim_, "tiles");
    cells_per_tile_ = checked_product(extents_, "cells in a space tile");
  }

  /// The grid of `region` (one [lo, hi] per dimension, as stored in a
  /// fragment's non-empty domain) in the dense array `schema`. A region
  /// outside the domain, or a dimension that is not an integer (or date or
  /// time) one with a tile extent, is a format_error.
  static dense_grid of_region(const format::ArraySchema& schema, const format::MBR& region) {
    const auto& dims = schema.domain.dimensions.value;
    if (region.ranges.size() != dims.size())
      throw format_error("the non-empty domain has " + std::to_string(region.ranges.size()) + " ranges, the array " +
                             std::to_string(dims.size()) + " dimensions",
                         0);
    std::vector<dense_range> ranges(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto& dim = dims[d];
      const auto& range = region.ranges[d];
      // Only reading the bounds depends on the type: they are compared and
      // subtracted as order keys (whose differences are the values'), so the
      // checks below are compiled once, not once per integer type.
      std::size_t width = 0;
      bool is_signed = false, positive = false;
      std::uint64_t lo = 0, hi = 0, a = 0, b = 0, extent = 1;
      const bool integral = format::visit_integer_type(dim.type.value, [&]<class T>() {
        width = sizeof(T);
        is_signed = std::is_signed_v<T>;
        if (dim.domain.size() != 2 * sizeof(T) || (dim.has_tile_extent() && dim.tile_extent.size() != sizeof(T)) ||
            range.data().size() != 2 * sizeof(T) || range.start_size != sizeof(T))
          return;
        const auto [dlo, dhi] = dim.domain_as<T>();
        const auto [ra, rb] = range.template as<T>();
        lo = detail::order_key(dlo), hi = detail::order_key(dhi), a = detail::order_key(ra), b = detail::order_key(rb);
        // A dimension stored without a tile extent has tiles of one cell.
        const T ext = dim.tile_extent_as<T>().value_or(T{1});
        positive = ext > T{0};
        extent = static_cast<std::uint64_t>(ext);
      });
      if (!integral) throw format_error("dimension " + dim.name.value + " is not an integer, date or time dimension", 0);
      if (dim.domain.size() != 2 * width || (dim.has_tile_extent() && dim.tile_extent.size() != width))
        throw format_error("dimension " + dim.name.value + ": domain or tile extent does not match its type", 0);
      if (range.data().size() != 2 * width || range.start_size != width)
        throw format_error("dimension " + dim.name.value + ": the non-empty domain's range has " +
                               std::to_string(range.data().size()) + " bytes, not two " +
                               std::string(format::codec_enum_name(dim.type.value)) + " values",
                           0);
      if (a > b || a < lo || b > hi) {
        auto text = [&](std::uint64_t k) {
          return is_signed ? std::to_string(static_cast<std::int64_t>(k ^ (std::uint64_t{1} << 63))) : std::to_string(k);
        };
        throw format_error("dimension " + dim.name.value + ": the non-empty domain [" + text(a) + ", " + text(b) +
                               "] is not inside the domain [" + text(lo) + ", " + text(hi) + "]",
                           0);
      }
      if (!positive) throw format_error("dimension " + dim.name.value + ": the tile extent is not positive", 0);
      ranges[d] = {a - lo, b - a + 1, extent};
      if (ranges[d].width == 0) throw format_error("dimension " + dim.name.value + " spans 2^64 cells", 0);
    }
    return dense_grid(std::move(ranges), schema.tile_order, schema.cell_order);
  }

  /// b - a for a <= b of an integer type, exact in uint64.
  template <class T>
  static std::uint64_t distance(T a, T b) noexcept {
    using U = std::make_unsigned_t<T>;
    return static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(b) - static_cast<U>(a)));
  }

  std::size_t dim_num() const noexcept { return ranges_.size(); }
  const std::vector<dense_range>& ranges() const noexcept { return ranges_; }
  /// Space tiles the region touches.
  std::uint64_t tile_num() const noexcept { return tile_num_; }
  /// Cells of a space tile.
  std::uint64_t cells_per_tile() const noexcept { return cells_per_tile_; }
  /// Cells of the region.
  std::uint64_t cell_num() const { return checked_product(widths(), "cells in the region"); }
  const std::vector<std::uint64_t>& tiles_per_dim() const noexcept { return tiles_per_dim_; }
  const std::vector<std::uint64_t>& extents() const noexcept { return extents_; }
  /// Per dimension, the first tile the region touches (counted from the domain's lower bound).
  const std::vector<std::uint64_t>& first_tile() const noexcept { return first_tile_; }
  std::vector<std::uint64_t> widths() const {
    std::vector<std::uint64_t> w;
    for (const auto& r : ranges_) w.push_back(r.width);
    return w;
  }
  format::Layout tile_order() const noexcept { return tile_order_; }
  format::Layout cell_order() const noexcept { return cell_order_; }

  /// Tile `t`'s position among the region's tiles, per dimension.
  std::vector<std::uint64_t> tile_position(std::uint64_t t) const { return unravel(t, tiles_per_dim_, tile_order_); }
  /// Cell `c` of a tile: its offset within the tile, per dimension.
  std::vector<std::uint64_t> cell_position(std::uint64_t c) const { return unravel(c, extents_, cell_order_); }

  /// The cells of tile `t` inside the region: per dimension, the first
  /// offset within the tile and how many.
  struct window {
    std::vector<std::uint64_t> start, width;
  };
  window covered(std::uint64_t t) const {
    if (t >= tile_num_)
      throw format_error("tile " + std::to_string(t) + " is outside the " + std::to_string(tile_num_) +
                             " space tiles of the region",
                         0);
    const auto pos = tile_position(t);
    window w;
    for (std::size_t d = 0; d < ranges_.size(); ++d) {
      const std::uint64_t tile_lo = (first_tile_[d] + pos[d]) * extents_[d];
      const std::uint64_t lo = std::max(tile_lo, ranges_[d].from);
      // Inclusive ends: a tile at the top of a domain may end past 2^64 - 1.
      constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
      const std::uint64_t tile_hi = tile_lo > top - (extents_[d] - 1) ? top : tile_lo + (extents_[d] - 1);
      const std::uint64_t hi = std::min(tile_hi, ranges_[d].from + (ranges_[d].width - 1));
      w.start.push_back(lo - tile_lo);
      w.width.push_back(hi - lo + 1);
    }
    return w;
  }
  /// Whether the region covers every cell of tile `t`.
  bool full(std::uint64_t t) const {
    const auto w = covered(t);
    for (std::size_t d = 0; d < ranges_.size(); ++d)
      if (w.start[d] != 0 || w.width[d] != extents_[d]) return false;
    return true;
  }
  /// For each cell of tile `t` in cell order, whether the region covers it.
  std::vector<bool> covered_cells(std::uint64_t t) const {
    const auto w = covered(t);
    const std::size_t nd = ranges_.size();
    std::vector<bool> out(static_cast<std::size_t>(cells_per_tile_));
    // An odometer over the offsets within the tile, fastest dimension first.
    std::vector<std::uint64_t> off(nd, 0);
    const bool row = cell_order_ != format::Layout::COL_MAJOR;
    for (std::size_t c = 0; c < out.size(); ++c) {
      bool inside = true;
      for (std::size_t d = 0; d < nd && inside; ++d) inside = off[d] >= w.start[d] && off[d] - w.start[d] < w.width[d];
      out[c] = inside;
      for (std::size_t k = 0; k < nd; ++k) {
        const std::size_t d = row ? nd - 1 - k : k;
        if (++off[d] < extents_[d]) break;
        off[d] = 0;
      }
    }
    return out;
  }

  /// Position `i` in a grid of `sizes`: the last dimension fastest for row
  /// major (and the Hilbert order, which dense arrays do not use), the first
  /// for column major.
  static std::vector<std::uint64_t> unravel(std::uint64_t i, const std::vector<std::uint64_t>& sizes, format::Layout l) {
    const std::size_t nd = sizes.size();
    std::vector<std::uint64_t> pos(nd);
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = l == format::Layout::COL_MAJOR ? k : nd - 1 - k;
      pos[d] = i % sizes[d];
      i /= sizes[d];
    }
    return pos;
  }

private:
  static std::uint64_t checked_product(const std::vector<std::uint64_t>& v, const char* what) {
    std::uint64_t n = 1;
    for (auto x : v) {
      if (x != 0 && n > std::numeric_limits<std::uint64_t>::max() / x)
        throw format_error(std::string("the number of ") + what + " overflows 64 bits", 0);
      n *= x;
    }
    return n;
  }

  std::vector<dense_range> ranges_;
  format::Layout tile_order_, cell_order_;
  std::vector<std::uint64_t> first_tile_, tiles_per_dim_, extents_;
  std::uint64_t tile_num_ = 0, cells_per_tile_ = 0;
};

} // namespace tilefmt::array
