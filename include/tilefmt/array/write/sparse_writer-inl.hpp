// tilefmt — sparse_writer's implementation (write/sparse_writer.hpp
// declares it): the cells' global order, data tiles and R-tree. Left out of
// programs built with TILEFMT_COMPILED.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
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
#include "tilefmt/array/support/gather_cells.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"
#include "tilefmt/array/write/sparse_input.hpp"
#include "tilefmt/array/write/sparse_writer.hpp"

namespace tilefmt::array {

namespace detail {

/// The R-tree above a sparse fragment's data tiles, given each tile's MBR
/// (`level`): levels of `shape.rtree.fanout` MBRs grouped into one, root
/// first (RTree::build_tree); the non-empty domain is their union.
inline void finish_rtree(const format::ArraySchema& schema, std::vector<format::MBR> level, fragment_shape& shape) {
  const auto& dims = schema.domain.dimensions.value;
  const std::size_t fanout = shape.rtree.fanout;
  auto unite = [&](const std::vector<format::MBR>& mbrs, std::size_t begin, std::size_t end) {
    format::MBR out = mbrs[begin];
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_var()) {
        auto [lo, hi] = out.ranges[d].as_strings();
        for (std::size_t m = begin + 1; m < end; ++m) {
          auto [l, h] = mbrs[m].ranges[d].as_strings();
          lo = std::min(lo, l);
          hi = std::max(hi, h);
        }
        out.ranges[d] = format::var_range(std::string(lo), std::string(hi));
        continue;
      }
      format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
        auto [lo, hi] = out.ranges[d].as<T>();
        for (std::size_t m = begin + 1; m < end; ++m) {
          auto [l, h] = mbrs[m].ranges[d].as<T>();
          lo = std::min(lo, l);
          hi = std::max(hi, h);
        }
        out.ranges[d] = format::fixed_range<T>(lo, hi);
      });
    }
    return out;
  };
  std::vector<std::vector<format::MBR>> levels{level};
  while (levels.back().size() > 1) {
    const auto& below = levels.back();
    std::vector<format::MBR> up;
    for (std::size_t i = 0; i < below.size(); i += fanout) up.push_back(unite(below, i, std::min(i + fanout, below.size())));
    levels.push_back(std::move(up));
  }
  shape.non_empty_domain = unite(level, 0, level.size());
  for (auto it = levels.rbegin(); it != levels.rend(); ++it) shape.rtree.levels.value.push_back({{std::move(*it)}});
}

class sparse_writer_impl final : public sparse_input<sparse_writer_impl> {
public:
  void encode_threads(unsigned n) override { b_.set_threads(n); }
  sparse_writer_impl(const fs::path& root, const write_options& opt)
      : b_(root, "sparse_writer", true, opt.storage, opt.encryption_key) {
    check_sparse_schema(b_);
    const auto& s = b_.schema();
    coords_.resize(s.domain.dimensions.size());
    attrs_.resize(s.attributes.size());
  }

  const format::ArraySchema& schema() const noexcept { return b_.schema(); }
  const std::string& schema_name() const noexcept { return b_.schema_name(); }
  /// Cells given so far (by the first set or set_coords call).
  std::uint64_t cell_num() const noexcept { return cells_.value_or(0); }

  /// Sorts the cells, writes the fragment: data files,
  /// `__fragment_metadata.tdb`, then the commit marker. Returns the
  /// fragment's name. A fragment commits once.
  std::string commit(const write_options& opt = {}) {
    if (b_.committed()) throw std::logic_error(b_.message("commit: already committed"));
    const auto& s = schema();
    const auto& dims = s.domain.dimensions.value;
    check_every_field_set("commit", coords_, attrs_);
    const std::size_t n = static_cast<std::size_t>(cell_num());
    if (n == 0) throw std::invalid_argument(b_.message("commit: no cells (TileDB writes no fragment)"));

    sort_cells();
    const std::vector<std::uint64_t>& order = *order_;
    // A consolidation keeps every version of a cell, with its timestamp.
    if (maybe_duplicates_ && !s.allows_dups.value && special_.empty()) check_duplicates(order);
    const std::vector<std::uint64_t> tiles = data_tiles();

    // Each data tile's MBR along the fixed-size dimensions, taken from the
    // tile's gathered coordinates by the thread encoding it.
    std::vector<std::vector<format::Range1D>> mbrs(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto spec = b_.dimension_spec(d);
      if (!spec.var()) {
        mbrs[d].resize(tiles.size());
        const auto gather = permuted(coords_[d].bytes, spec.cell_size(), order);
        auto& ranges = mbrs[d];
        const format::Datatype type = dims[d].type.value;
        b_.encode_fixed(
            b_.dimension_tiles(d), spec,
            [&](std::size_t t, std::vector<std::byte>& scratch) {
              const auto cells = gather(t, scratch);
              format::visit_coordinate_type(type, [&]<class T>() {
                T lo = codec::load_le<T>(cells.data()), hi = lo;
                for (std::size_t c = 1; c < cells.size() / sizeof(T); ++c) {
                  const T v = codec::load_le<T>(cells.data() + c * sizeof(T));
                  lo = std::min(lo, v);
                  hi = std::max(hi, v);
                }
                ranges[t] = format::fixed_range<T>(lo, hi);
              });
              return cells;
            },
            {}, {});
        continue;
      }
      if (spec.var()) {
        std::vector<std::byte> values;
        std::vector<std::uint64_t> offsets;
        offsets.reserve(n);
        for (std::size_t c : order) {
          const auto str = coord_string(d, c);
          offsets.push_back(values.size());
          for (char ch : str) values.push_back(static_cast<std::byte>(ch));
        }
        b_.encode_var(b_.dimension_tiles(d), spec, values, offsets, 1, {});
      }
    }
    for (std::size_t i = 0; i < attrs_.size(); ++i) {
      const auto spec = b_.attribute_spec(i);
      const auto& a = attrs_[i];
      if (a.encoded) continue;
      std::vector<std::uint8_t> validity;
      if (!a.validity.empty())
        for (std::size_t c : order) validity.push_back(a.validity[c]);
      if (spec.var()) {
        std::vector<std::byte> values;
        std::vector<std::uint64_t> offsets;
        offsets.reserve(n);
        for (std::size_t c : order) {
          const auto cell = detail::var_cell(a.bytes, a.offsets, c, a.value_size);
          offsets.push_back(values.size() / a.value_size);
          values.insert(values.end(), cell.begin(), cell.end());
        }
        b_.encode_var(b_.attribute_tiles(i), spec, values, offsets, a.value_size, validity);
      } else {
        b_.encode_fixed(b_.attribute_tiles(i), spec, permuted(a.bytes, spec.cell_size(), order), validity, a.encoder);
      }
    }

    if (!special_.empty()) {
      std::vector<std::vector<std::uint64_t>> sorted(special_.size());
      for (std::size_t k = 0; k < special_.size(); ++k)
        for (std::size_t c : order) sorted[k].push_back(special_[k][c]);
      if (sorted.size() == 1) b_.set_special(sorted[0]);
      else b_.set_special(sorted[0], sorted[1], sorted[2]);
    }

    detail::fragment_shape shape;
    shape.dense = false;
    shape.processed_conditions = processed_conditions_;
    shape.sparse_tile_num = tiles.size();
    shape.last_tile_cell_num = tiles.back();
    build_rtree(order, tiles, std::move(mbrs), shape);
    return b_.commit(opt, shape);
  }

private:
  friend class array::sparse_writer;
  friend struct rewrite_access;
    friend class sparse_input<sparse_writer_impl>;
    using pending = detail::pending_cells;

  void check_writable(const char* who) const {
    if (b_.committed()) throw std::logic_error(b_.message(std::string(who) + ": the fragment is already committed"));
  }
  pending& coordinates_(std::size_t d) { return coords_[d]; }

  /// The cells' global order (and the data tiles), once every dimension
  /// has its coordinates. Refuses coordinates outside the domain.
  void sort_cells() {
    if (order_) return;
    bool dups = true;
    auto order = cells_in_global_order(dups);
    order_ = std::move(order);
    maybe_duplicates_ = dups;
    b_.set_tiles(data_tiles());
  }

  /// Data tiles of `capacity` cells in global order; the last one short.
  std::vector<std::uint64_t> data_tiles() const {
    const std::uint64_t n = cell_num(), cap = schema().capacity;
    std::vector<std::uint64_t> tiles(static_cast<std::size_t>((n + cap - 1) / cap), cap);
    tiles.back() = n - (tiles.size() - 1) * cap;
    return tiles;
  }

  /// New coordinates after attributes were encoded in the order of the old
  /// ones cannot be written.
  void coordinates_changing() {
    if (!order_) return;
    throw std::logic_error(b_.message("set_coords: attributes set after every dimension's coordinates are encoded in "
                                      "their order as they are set; set the coordinates once, first"));
  }

  /// A fixed-size dimension's coordinates as little-endian bytes.
  void put_coord_bytes(std::size_t d, std::vector<std::byte> bytes) {
    coordinates_changing();
    const std::size_t size = format::datatype_size(schema().domain.dimensions.value[d].type.value);
    take_cells(bytes.size() / size, "set_coords");
    coords_[d] = pending{};
    coords_[d].bytes = std::move(bytes);
    coords_[d].set = true;
  }

  /// Coordinate `c` of string dimension `d`.
  std::string_view coord_string(std::size_t d, std::size_t c) const {
    const auto& p = coords_[d];
    const std::size_t b = static_cast<std::size_t>(p.offsets[c]);
    const std::size_t e = c + 1 < p.offsets.size() ? static_cast<std::size_t>(p.offsets[c + 1]) : p.bytes.size();
    return {reinterpret_cast<const char*>(p.bytes.data()) + b, e - b};
  }

  void put_fixed(std::string_view name, std::size_t value_size, std::size_t n, std::span<const std::byte> bytes,
                 std::span<const std::uint8_t> validity, const detail::tile_encoder& encoder) override {
    const auto [i, cells] = b_.checks().fixed_attribute(name, value_size, n, validity, cells_);
    take_cells(cells, std::string("set: attribute \"") + std::string(name) + "\"");
    // With every dimension's coordinates given, the cells' order is known:
    // the attribute is encoded now, straight from the caller's cells, and
    // not kept (a copy of every attribute until commit() was most of a
    // write's memory). Coordinates the sort refuses are reported by
    // commit(), as before.
    bool sorted = cells != 0;
    for (const auto& c : coords_) sorted = sorted && c.set;
    if (sorted) {
      try {
        sort_cells();
      } catch (const std::invalid_argument&) {
        sorted = false;
      }
    }
    if (sorted) {
      const auto& order = *order_;
      const auto spec = b_.attribute_spec(i);
      std::vector<std::uint8_t> valid;
      if (!validity.empty()) {
        valid.resize(order.size());
        detail::gather_cells(reinterpret_cast<std::byte*>(valid.data()), reinterpret_cast<const std::byte*>(validity.data()),
                             1, order.data(), order.size());
      }
      b_.encode_fixed(b_.attribute_tiles(i), spec, permuted(bytes, spec.cell_size(), order), valid, encoder);
      attrs_[i] = pending{};
      attrs_[i].set = attrs_[i].encoded = true;
      return;
    }
    attrs_[i] = pending::fixed(bytes, value_size, validity, encoder);
  }

  void put_var(std::string_view name, std::size_t value_size, std::span<const std::byte> values,
               std::span<const std::uint64_t> offsets, std::span<const std::uint8_t> validity) override {
    const std::size_t i = b_.checks().var_attribute(name, value_size, values, offsets, validity, cells_);
    take_cells(offsets.size(), std::string("set_var: attribute \"") + std::string(name) + "\"");
    attrs_[i] = pending::var(values, offsets, value_size, validity);
  }

  /// The cells' positions in TileDB's global order (model/global_order.hpp),
  /// after refusing coordinates TileDB refuses (outside the domain, NaN).
  /// `maybe_duplicates` is cleared when no two cells have the same
  /// coordinates.
  std::vector<std::uint64_t> cells_in_global_order(bool& maybe_duplicates) const {
    check_domain(coords_, static_cast<std::size_t>(cell_num()));
    const std::size_t nd = schema().domain.dimensions.size(), n = static_cast<std::size_t>(cell_num());
    const auto column = [&](std::size_t d) { return coords_[d].bytes.data(); };
    if (auto order = detail::global_order::packed(schema(), n, column, b_.threads(), maybe_duplicates))
      return std::move(*order);
    maybe_duplicates = true;
    auto order = detail::global_order::for_writing(schema());
    auto text = [&](std::size_t d, std::size_t c) { return coord_string(d, c); };
    for (std::size_t d = 0; d < nd; ++d) order.add_column(d, n, column(d), [&](std::size_t c) { return text(d, c); });
    if (order.hilbert()) order.compute_hilbert(text);
    std::vector<std::uint64_t> out(n);
    std::iota(out.begin(), out.end(), std::uint64_t{0});
    std::stable_sort(out.begin(), out.end(), [&](std::uint64_t a, std::uint64_t b) { return order.less(a, b); });
    return out;
  }



  /// "Duplicate coordinates (c0, c1) are not allowed", as TileDB says it
  /// when cells next to each other in global order have the same bytes.
  void check_duplicates(const std::vector<std::uint64_t>& order) const {
    const auto& dims = schema().domain.dimensions.value;
    for (std::size_t k = 1; k < order.size(); ++k) {
      bool same = true;
      for (std::size_t d = 0; d < dims.size() && same; ++d) {
        if (dims[d].is_var()) {
          same = coord_string(d, order[k]) == coord_string(d, order[k - 1]);
          continue;
        }
        const std::size_t size = format::datatype_size(dims[d].type.value);
        same = std::memcmp(coords_[d].bytes.data() + order[k] * size, coords_[d].bytes.data() + order[k - 1] * size,
                           size) == 0;
      }
      if (!same) continue;
      std::string c;
      for (std::size_t d = 0; d < dims.size(); ++d) {
        if (dims[d].is_var()) {
          c += (d ? ", " : "") + std::string(coord_string(d, order[k]));
          continue;
        }
        format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
          c += (d ? ", " : "") + std::to_string(codec::load_le<T>(coords_[d].bytes.data() + order[k] * sizeof(T)));
        });
      }
      throw std::invalid_argument(b_.message("Duplicate coordinates (" + c +
                                             ") are not allowed (the schema does not allow duplicates)"));
    }
  }

  /// A fixed-size field's tiles in global order, each gathered by the
  /// thread encoding it (no copy of the whole field).
  detail::tile_cells permuted(std::span<const std::byte> bytes, std::size_t cell_size,
                              const std::vector<std::uint64_t>& order) const {
    return [bytes, cell_size, &order, this](std::size_t t, std::vector<std::byte>& scratch) {
      const std::uint64_t cap = schema().capacity;
      const std::size_t first = static_cast<std::size_t>(t * cap);
      const std::size_t cells = std::min(order.size() - first, static_cast<std::size_t>(cap));
      scratch.resize(cells * cell_size);
      detail::gather_cells(scratch.data(), bytes.data(), cell_size, order.data() + first, cells);
      return std::span<const std::byte>(scratch);
    };
  }

  /// One MBR per data tile (per dimension, the least and greatest
  /// coordinate), and the R-tree above them (detail::finish_rtree).
  /// `mbrs[d]` has the data tiles' ranges along each fixed-size dimension d.
  void build_rtree(const std::vector<std::uint64_t>& order, const std::vector<std::uint64_t>& tiles,
                   std::vector<std::vector<format::Range1D>> mbrs, detail::fragment_shape& shape) const {
    const auto& dims = schema().domain.dimensions.value;
    std::vector<format::MBR> level(tiles.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (!mbrs[d].empty()) {
        for (std::size_t t = 0; t < tiles.size(); ++t) level[t].ranges.push_back(std::move(mbrs[d][t]));
        continue;
      }
      if (dims[d].is_var()) {
        std::size_t at = 0;
        for (std::size_t t = 0; t < tiles.size(); ++t) {
          std::string_view lo = coord_string(d, order[at]), hi = lo;
          for (std::size_t c = at; c < at + tiles[t]; ++c) {
            const auto v = coord_string(d, order[c]);
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
          level[t].ranges.push_back(format::var_range(lo, hi));
          at += static_cast<std::size_t>(tiles[t]);
        }
        continue;
      }
      format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
        std::size_t at = 0;
        for (std::size_t t = 0; t < tiles.size(); ++t) {
          T lo = codec::load_le<T>(coords_[d].bytes.data() + order[at] * sizeof(T)), hi = lo;
          for (std::size_t c = at; c < at + tiles[t]; ++c) {
            const T v = codec::load_le<T>(coords_[d].bytes.data() + order[c] * sizeof(T));
            lo = std::min(lo, v);
            hi = std::max(hi, v);
          }
          level[t].ranges.push_back(format::fixed_range<T>(lo, hi));
          at += static_cast<std::size_t>(tiles[t]);
        }
      });
    }
    detail::finish_rtree(schema(), std::move(level), shape);
  }

  detail::fragment_builder b_;
  std::optional<std::uint64_t> cells_;
  std::vector<pending> coords_, attrs_;
  /// Per cell, in the order given: timestamps, then delete timestamps and
  /// delete condition indices (a consolidation's special fields), or none.
  std::vector<std::vector<std::uint64_t>> special_;
  std::vector<std::string> processed_conditions_;
  /// The cells' global order, once sorted, and whether two cells may have
  /// the same coordinates (checked at commit, where a consolidation's
  /// duplicates are known to be wanted).
  std::optional<std::vector<std::uint64_t>> order_;
  bool maybe_duplicates_ = true;
};

TILEFMT_FUNC std::unique_ptr<coordinate_sink> make_sparse_writer(const fs::path& root, const write_options& opt) {
  return std::make_unique<sparse_writer_impl>(root, opt);
}

} // namespace detail

TILEFMT_FUNC detail::sparse_writer_impl& sparse_writer::impl() const {
  return static_cast<detail::sparse_writer_impl&>(*impl_);
}

TILEFMT_FUNC const format::ArraySchema& sparse_writer::schema() const noexcept { return impl().schema(); }
TILEFMT_FUNC const std::string& sparse_writer::schema_name() const noexcept { return impl().schema_name(); }
TILEFMT_FUNC std::uint64_t sparse_writer::cell_num() const noexcept { return impl().cell_num(); }
TILEFMT_FUNC std::string sparse_writer::commit(const write_options& opt) { return impl().commit(opt); }

} // namespace tilefmt::array
