// tilefmt — TileDB's global order of sparse cells, in one place for the
// sparse reader (which merges fragments in it) and every sparse writer
// (sparse_writer sorts cells into it, global_order_writer checks that they
// come in it).
//
// In the Hilbert cell order: the cells' values on the Hilbert curve
// (model/hilbert.hpp), ties broken by row-major coordinates (TileDB's
// HilbertCmp, HilbertCmpQB). In the others: space tiles in the tile order
// (dimensions with a tile extent; string dimensions have none), then the
// coordinates in the cell order (GlobalCmp, GlobalCmpQB).
//
// Which Hilbert mapping applies is decided here, by who asks: writers map
// coordinates as the libtiledb of the array's format version did (2.2's
// wider integer domains at versions 7 and 8), readers as TileDB 2.3 on
// reads every version (hilbert_curve::for_writing, for_reading).
//
// Not thread-safe while keys are added; const members may be called from
// many threads.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/model/hilbert.hpp"
#include "tilefmt/array/support/radix_sort.hpp"
#include "tilefmt/codec/endian.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// The global order of a set of cells, built from one column of keys a
/// dimension (add() for fixed-size coordinates, rank() for strings), then,
/// in the Hilbert cell order, compute_hilbert(). Cells are compared by
/// their index in the columns.
class global_order {
public:
  /// The order a writer puts an array's cells in (its format version's
  /// Hilbert mapping).
  static global_order for_writing(const format::ArraySchema& s) {
    return global_order(s, hilbert_curve::for_writing(s.domain.dimensions.value, s.version.value), true);
  }
  /// The order a reader merges cells in; without `space_tiles` (row- and
  /// column-major reads) cells are ordered by their coordinates alone.
  static global_order for_reading(const format::ArraySchema& s, bool space_tiles = true) {
    return global_order(s, hilbert_curve::for_reading(s.domain.dimensions.value), space_tiles);
  }

  /// The coordinates as keys, per dimension (coordinates.hpp).
  cell_keys keys;

  /// Whether cells are ordered on the Hilbert curve.
  bool hilbert() const noexcept { return hilbert_order_; }

  /// Adds coordinate `v` of fixed-size dimension `d` (of the dimension's
  /// type T) for the next cell.
  template <class T>
  void add(std::size_t d, T v) {
    keys.cell[d].push_back(order_key(v));
    if (keys.tiled[d]) keys.tile[d].push_back(space_tile(d, v));
  }

  /// The space tile of coordinate `v` of dimension `d` (0 without a tile
  /// extent).
  template <class T>
  std::uint64_t space_tile(std::size_t d, T v) const {
    return keys.tiled[d] ? tile_index(v, from_order_key<T>(lo_[d]), from_order_key<T>(extent_[d])) : 0;
  }

  /// The space tile of integral coordinate `v` along dimension `d` as an
  /// interval of tile_index's arithmetic (a coordinate x as a 64-bit
  /// unsigned u(x) lies in it when u(x) - start <= span, wrapping): one
  /// subtraction and one comparison a cell instead of a division. An
  /// untiled dimension's is everything; none where the tile reaches past
  /// 2^64 (the comparison would wrap into the domain's start).
  struct tile_interval {
    std::uint64_t start = 0, span = ~std::uint64_t{0};
  };
  template <class T>
  std::optional<tile_interval> interval_of(std::size_t d, T v) const {
    static_assert(std::is_integral_v<T>);
    if (!keys.tiled[d]) return tile_interval{};
    const auto u = [](T x) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(x)); };
    const std::uint64_t ext = u(from_order_key<T>(extent_[d]));
    const std::uint64_t offset = space_tile(d, v) * ext;
    if (ext == 0 || offset > ~std::uint64_t{0} - (ext - 1)) return std::nullopt;
    return tile_interval{u(from_order_key<T>(lo_[d])) + offset, ext - 1};
  }

  /// Adds dimension `d`'s coordinates of `n` cells: for a fixed-size
  /// dimension `values`, little-endian; for a string one `text(i)`, cell
  /// i's string.
  template <class Text>
  void add_column(std::size_t d, std::size_t n, const std::byte* values, Text&& text) {
    if (dims_[d].is_var()) {
      rank(d, n, text);
      return;
    }
    keys.cell[d].reserve(keys.cell[d].size() + n);
    format::visit_coordinate_type(dims_[d].type.value, [&]<class T>() {
      for (std::size_t c = 0; c < n; ++c) add(d, codec::load_le<T>(values + c * sizeof(T)));
    });
  }

  /// Keys of string dimension `d` for `n` cells, `text(i)` the i-th cell's
  /// string: the ranks of the strings in bytewise order (equal strings,
  /// equal keys), so that every dimension compares by key.
  template <class Text>
  void rank(std::size_t d, std::size_t n, Text&& text) {
    std::vector<std::size_t> by(n);
    std::iota(by.begin(), by.end(), std::size_t{0});
    std::sort(by.begin(), by.end(), [&](std::size_t a, std::size_t b) { return text(a) < text(b); });
    auto& key = keys.cell[d];
    key.assign(n, 0);
    for (std::size_t k = 1; k < n; ++k) key[by[k]] = key[by[k - 1]] + (text(by[k]) != text(by[k - 1]));
  }

  /// Each cell's value on the Hilbert curve, once every dimension's keys
  /// are in; `text(d, i)` gives cell i's string of string dimension d.
  template <class Text>
  void compute_hilbert(Text&& text) {
    const std::size_t nd = dims_.size(), n = nd ? keys.cell[0].size() : 0;
    hilbert_.assign(n, 0);
    std::vector<std::uint64_t> x(nd);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t d = 0; d < nd; ++d) {
        if (dims_[d].is_var()) {
          x[d] = curve_.bucket(std::string_view(text(d, i)));
          continue;
        }
        format::visit_coordinate_type(dims_[d].type.value,
                             [&]<class T>() { x[d] = curve_.bucket(d, from_order_key<T>(keys.cell[d][i])); });
      }
      hilbert_[i] = curve_.value(x);
    }
  }

  /// Cell i's value on the Hilbert curve (after compute_hilbert).
  std::uint64_t hilbert_value(std::size_t i) const { return hilbert_[i]; }

  /// Whether cell a comes before cell b.
  bool less(std::size_t a, std::size_t b) const {
    if (!hilbert_.empty()) {
      if (hilbert_[a] != hilbert_[b]) return hilbert_[a] < hilbert_[b];
      return keys.layout_less(a, b, true);
    }
    return keys.global_less(a, b, tile_row_major_, cell_row_major_);
  }

  /// Whether cells a and b lie in different space tiles.
  bool across_tiles(std::size_t a, std::size_t b) const {
    for (std::size_t d = 0; d < keys.tile.size(); ++d)
      if (keys.tiled[d] && keys.tile[d][a] != keys.tile[d][b]) return true;
    return false;
  }

  bool same_coordinates(std::size_t a, std::size_t b) const { return keys.same_coordinates(a, b); }

  /// Frees what only sorts cells (space tiles, Hilbert values), keeping the
  /// coordinates' keys.
  void drop_sort_keys() {
    for (auto& k : keys.tile) std::vector<std::uint64_t>().swap(k);
    std::vector<std::uint64_t>().swap(hilbert_);
  }

  /// The global order of `n` cells of an array whose dimensions are all
  /// integers with a tile extent, by one key per cell: its space tile (in
  /// the tile order) times the cells of a space tile, plus its place in the
  /// tile (in the cell order). That is GlobalCmpQB's order, ties (equal
  /// coordinates) in the order given. Where key and cell index fit in 64
  /// bits together they are sorted as one number by a parallel radix sort
  /// and the cell indices come back in order; otherwise (or for floats,
  /// strings, the Hilbert order) nullopt. `column(d)` is dimension d's
  /// coordinates, little-endian, each inside the domain (the caller checked
  /// them). `maybe_duplicates` is cleared when no two cells are equal.
  template <class Column>
  static std::optional<std::vector<std::uint64_t>> packed(const format::ArraySchema& s, std::size_t n,
                                                          Column&& column, unsigned threads, bool& maybe_duplicates) {
    const auto& dims = s.domain.dimensions.value;
    const std::size_t nd = dims.size();
    if (s.cell_order == format::Layout::HILBERT || n == 0) return std::nullopt;
    struct axis {
      std::uint64_t extent = 0, tile_stride = 0, cell_stride = 0;
    };
    std::vector<axis> ax(nd);
    std::vector<std::uint64_t> tiles(nd);
    for (std::size_t d = 0; d < nd; ++d) {
      const auto& dim = dims[d];
      if (dim.is_var() || !dim.has_tile_extent()) return std::nullopt;
      bool integral = false;
      format::visit_coordinate_type(dim.type.value, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) {
          auto [lo, hi] = dim.template domain_as<T>();
          const std::uint64_t ext = static_cast<std::uint64_t>(static_cast<std::int64_t>(*dim.template tile_extent_as<T>()));
          if (ext == 0) return;
          ax[d].extent = ext;
          tiles[d] = tile_index<T>(hi, lo, static_cast<T>(ext)) + 1;
          integral = tiles[d] != 0;
        }
      });
      if (!integral) return std::nullopt;
    }
    // Strides of the tile grid (tile order) and of a tile's cells (cell
    // order); nullopt where a product passes 64 bits.
    auto strides = [&](bool row_major, auto size, auto set) {
      std::uint64_t p = 1;
      for (std::size_t k = 0; k < nd; ++k) {
        const std::size_t d = row_major ? nd - 1 - k : k;
        set(d, p);
        if (size(d) != 0 && p > std::numeric_limits<std::uint64_t>::max() / size(d)) return std::optional<std::uint64_t>{};
        p *= size(d);
      }
      return std::optional<std::uint64_t>{p};
    };
    const auto tile_count = strides(
        s.tile_order != format::Layout::COL_MAJOR, [&](std::size_t d) { return tiles[d]; },
        [&](std::size_t d, std::uint64_t p) { ax[d].tile_stride = p; });
    const auto cells_per_tile = strides(
        s.cell_order != format::Layout::COL_MAJOR, [&](std::size_t d) { return ax[d].extent; },
        [&](std::size_t d, std::uint64_t p) { ax[d].cell_stride = p; });
    if (!tile_count || !cells_per_tile || *tile_count > std::numeric_limits<std::uint64_t>::max() / *cells_per_tile)
      return std::nullopt;
    const int index_bits = std::bit_width(static_cast<std::uint64_t>(n - 1));
    const int key_bits = std::bit_width(*tile_count * *cells_per_tile - 1);
    if (index_bits >= 64 || index_bits + key_bits > 64) return std::nullopt;

    // Each cell's key above its index, summed dimension by dimension.
    std::vector<std::uint64_t> out(n);
    for (std::size_t c = 0; c < n; ++c) out[c] = c;
    for (std::size_t d = 0; d < nd; ++d) {
      format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) {
          const auto lo = static_cast<std::uint64_t>(static_cast<std::int64_t>(dims[d].template domain_as<T>().first));
          const std::uint64_t ext = ax[d].extent, ts = ax[d].tile_stride * *cells_per_tile, cs = ax[d].cell_stride;
          const std::byte* p = column(d);
          for (std::size_t c = 0; c < n; ++c) {
            const std::uint64_t off =
                static_cast<std::uint64_t>(static_cast<std::int64_t>(codec::load_le<T>(p + c * sizeof(T)))) - lo;
            out[c] += ((off / ext) * ts + (off % ext) * cs) << index_bits;
          }
        }
      });
    }
    radix_sort(out, index_bits, index_bits + key_bits, threads);
    maybe_duplicates = false;
    for (std::size_t k = 1; k < n && !maybe_duplicates; ++k)
      maybe_duplicates = (out[k] >> index_bits) == (out[k - 1] >> index_bits);
    const std::uint64_t mask = (std::uint64_t{1} << index_bits) - 1;
    for (auto& k : out) k &= mask;
    return out;
  }

private:
  global_order(const format::ArraySchema& s, hilbert_curve curve, bool space_tiles)
      : keys(s.domain.dimensions.size()),
        dims_(s.domain.dimensions.value),
        curve_(std::move(curve)),
        hilbert_order_(s.cell_order == format::Layout::HILBERT),
        tile_row_major_(s.tile_order != format::Layout::COL_MAJOR),
        cell_row_major_(s.cell_order != format::Layout::COL_MAJOR),
        lo_(dims_.size(), 0),
        extent_(dims_.size(), 1) {
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      const auto& dim = dims_[d];
      keys.tiled[d] = space_tiles && !dim.is_var() && dim.has_tile_extent();
      if (!keys.tiled[d]) continue;
      format::visit_coordinate_type(dim.type.value, [&]<class T>() {
        lo_[d] = order_key(dim.template domain_as<T>().first);
        extent_[d] = order_key(*dim.template tile_extent_as<T>());
      });
    }
  }

  std::vector<format::Dimension> dims_;
  hilbert_curve curve_;
  bool hilbert_order_, tile_row_major_, cell_row_major_;
  std::vector<std::uint64_t> lo_, extent_;  // per tiled dimension: the domain's start and the tile extent, as keys
  std::vector<std::uint64_t> hilbert_;      // per cell, Hilbert cell order once computed
};

} // namespace tilefmt::array::detail
