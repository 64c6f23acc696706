// tilefmt — the check that a sparse fragment's cells are in the global
// order, where a read relies on it (in_order.hpp): the format promises the
// order, a damaged or hand-made fragment may break it, and a result that
// trusted it would be out of order or keep two cells of equal coordinates.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/model/global_order.hpp"
#include "tilefmt/array/read/fragment.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// A string dimension's cells: their bytes back to back and where each
/// starts (a tile's, or a segment's own).
struct var_part {
  column<std::byte> bytes;
  std::vector<std::uint64_t> starts;
};

/// One dimension's coordinates of consecutive cells: fixed-size values,
/// or a string dimension's bytes and starts.
struct coord_column {
  const std::byte* values = nullptr;
  std::span<const std::byte> bytes{};
  std::span<const std::uint64_t> starts{};

  static coord_column of(const var_part& p) { return {nullptr, p.bytes, p.starts}; }
  static coord_column of(const tile_data& t) { return {t.values.data(), t.values, t.offsets}; }
  std::string_view at(std::size_t i) const {
    const auto s = var_cell(bytes, starts, i);
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }
};

/// Whether cells are in a schema's global order.
class order_check {
public:
  explicit order_check(const format::ArraySchema& s)
      : dims_(s.domain.dimensions.value), order_(global_order::for_reading(s)),
        tile_row_(s.tile_order != format::Layout::COL_MAJOR), cell_row_(s.cell_order != format::Layout::COL_MAJOR) {}

  /// The space tiles of the coordinates.
  const global_order& order() const noexcept { return order_; }

  /// Cell `i`'s coordinates, per dimension, as bytes.
  std::vector<std::vector<std::byte>> cell_bytes(const std::vector<coord_column>& cols, std::size_t i) const {
    std::vector<std::vector<std::byte>> out(dims_.size());
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      if (text(d)) {
        const auto s = cols[d].at(i);
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        out[d].assign(p, p + s.size());
      } else {
        out[d].assign(cols[d].values + i * size(d), cols[d].values + (i + 1) * size(d));
      }
    }
    return out;
  }

  /// Whether the `n` cells of `cols` are in the global order (`strict`: no
  /// two equal). Pairs of neighbours a chunk at a time: each pair's
  /// comparison (-1, 0, 1) is settled dimension by dimension, space tiles
  /// in the tile order first, then coordinates in the cell order.
  bool in_global_order(const std::vector<coord_column>& cols, std::size_t n, bool strict) const {
    const std::size_t nd = dims_.size();
    const bool tile_row = tile_row_, cell_row = cell_row_;
    constexpr std::size_t chunk = 4096;
    std::array<std::int8_t, chunk> cmp;
    for (std::size_t b = 1; b < n; b += chunk) {
      const std::size_t e = std::min(n, b + chunk);
      if (const auto fast = in_order_in_one_tile(cols, b, e, strict)) {
        if (!*fast) return false;
        continue;
      }
      std::fill_n(cmp.begin(), e - b, std::int8_t{0});
      // Each key made once, each pair settled without a branch (strings
      // by one comparison, not two). What the loop reads is held in locals
      // and keys are made from pointers taken by value: a store of a
      // verdict (a char, which may alias anything) made the compiler load
      // each again a cell, a third of the check.
      auto settle = [&cmp, b, e](auto key_of) {
        std::int8_t* const verdict = cmp.data();
        auto x = key_of(b - 1);
        for (std::size_t i = b; i < e; ++i) {
          const auto y = key_of(i);
          auto& c = verdict[i - b];
          if constexpr (std::is_same_v<decltype(x), std::string_view>) {
            const int r = c != 0 ? 0 : x.compare(y);
            c = c != 0 ? c : static_cast<std::int8_t>((r > 0) - (r < 0));
          } else {
            c = c != 0 ? c : static_cast<std::int8_t>((x > y) - (x < y));
          }
          x = y;
        }
      };
      for (std::size_t k = 0; k < nd; ++k) {
        const std::size_t d = tile_row ? k : nd - 1 - k;
        if (!order_.keys.tiled[d]) continue;
        format::visit_coordinate_type(dims_[d].type.value, [&]<class T>() {
          auto at = [v = cols[d].values](std::size_t i) { return codec::load_le<T>(v + i * sizeof(T)); };
          // Cells in one space tile of d (most tiles' are) settle nothing:
          // a pass for the least and greatest spares a division a cell
          // (integers: a NaN would pass unseen).
          T lo = at(b - 1), hi = lo;
          for (std::size_t i = b; i < e; ++i) {
            const T v = at(i);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
          }
          if (!std::is_integral_v<T> || order_.space_tile(d, lo) != order_.space_tile(d, hi))
            settle([&order = order_, d, at](std::size_t i) { return order.space_tile(d, at(i)); });
        });
      }
      for (std::size_t k = 0; k < nd; ++k) {
        const std::size_t d = cell_row ? k : nd - 1 - k;
        if (text(d)) {
          settle([col = cols[d]](std::size_t i) { return col.at(i); });
          continue;
        }
        format::visit_coordinate_type(dims_[d].type.value, [&]<class T>() {
          settle([v = cols[d].values](std::size_t i) { return order_key(codec::load_le<T>(v + i * sizeof(T))); });
        });
      }
      // A pair out of order: +1, or 0 where equal cells are not allowed
      // (the chunk at once, without a branch a pair).
      const std::int8_t worst = strict ? 0 : 1;
      std::uint8_t bad = 0;
      for (std::size_t i = 0; i < e - b; ++i) bad |= static_cast<std::uint8_t>(cmp[i] >= worst);
      if (bad) return false;
    }
    return true;
  }

  /// Whether cell `b` follows cell `a` (cell_bytes of each) in the global
  /// order (`strict`: not equal): a fragment's tiles follow each other.
  bool follows(const std::vector<std::vector<std::byte>>& a, const std::vector<std::vector<std::byte>>& b,
               bool strict) const {
    return in_global_order(edge_columns(a, b).cols, 2, strict);
  }

private:
  /// Whether cells `b - 1` to `e` are in the global order (`strict`: no
  /// two equal) where the schema has two integral dimensions of one type
  /// and the cells lie in one space tile: then their order is their
  /// coordinates' in the cell order, checked with the tile in one pass
  /// without a branch a pair (an X layer's int64 rows and columns: the
  /// general check's passes took a sixth of a whole read of one fragment).
  /// None where that does not hold: the general check decides.
  std::optional<bool> in_order_in_one_tile(const std::vector<coord_column>& cols, std::size_t b, std::size_t e,
                                           bool strict) const {
    if (dims_.size() != 2 || dims_[0].type.value != dims_[1].type.value) return std::nullopt;
    std::optional<bool> verdict;
    format::visit_coordinate_type(dims_[0].type.value, [&]<class T>() {
      if constexpr (std::is_integral_v<T>) {
        const std::size_t major = cell_row_ ? 0 : 1, minor = 1 - major;
        auto at = [](const std::byte* v, std::size_t i) { return codec::load_le<T>(v + i * sizeof(T)); };
        const auto u = [](T x) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(x)); };
        const std::byte* const v0 = cols[major].values;
        const std::byte* const v1 = cols[minor].values;
        T x0 = at(v0, b - 1), x1 = at(v1, b - 1);
        const auto t0 = order_.interval_of(major, x0), t1 = order_.interval_of(minor, x1);
        if (!t0 || !t1) return;
        const std::uint64_t s0 = t0->start, w0 = t0->span, s1 = t1->start, w1 = t1->span;
        const unsigned equal_is_bad = strict;
        unsigned bad = 0, outside = 0;
        for (std::size_t i = b; i < e; ++i) {
          const T y0 = at(v0, i), y1 = at(v1, i);
          outside |= unsigned{u(y0) - s0 > w0} | unsigned{u(y1) - s1 > w1};
          bad |= unsigned{x0 > y0} | (unsigned{x0 == y0} & (unsigned{x1 > y1} | (unsigned{x1 == y1} & equal_is_bad)));
          x0 = y0;
          x1 = y1;
        }
        if (!outside) verdict = bad == 0;
      }
    });
    return verdict;
  }

  /// Two cells side by side (`a`, then `b`: cell_bytes of each), for
  /// in_global_order.
  struct cell_pair {
    std::vector<std::vector<std::byte>> values;
    std::vector<var_part> parts;
    std::vector<coord_column> cols;
  };
  cell_pair edge_columns(const std::vector<std::vector<std::byte>>& a, const std::vector<std::vector<std::byte>>& b) const {
    const std::size_t nd = dims_.size();
    cell_pair out{std::vector<std::vector<std::byte>>(nd), std::vector<var_part>(nd), std::vector<coord_column>(nd)};
    for (std::size_t d = 0; d < nd; ++d) {
      if (text(d)) {
        auto& part = out.parts[d];
        part.bytes.assign(a[d].begin(), a[d].end());
        part.bytes.insert(part.bytes.end(), b[d].begin(), b[d].end());
        part.starts = {0, a[d].size()};
        out.cols[d] = coord_column::of(part);
        continue;
      }
      out.values[d] = a[d];
      out.values[d].insert(out.values[d].end(), b[d].begin(), b[d].end());
      out.cols[d].values = out.values[d].data();
    }
    return out;
  }

  bool text(std::size_t d) const { return dims_[d].is_var(); }
  std::size_t size(std::size_t d) const { return format::datatype_size(dims_[d].type.value); }

  const std::vector<format::Dimension>& dims_;
  global_order order_;
  bool tile_row_, cell_row_;
};

} // namespace tilefmt::array::detail
