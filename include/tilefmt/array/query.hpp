// tilefmt — reading a region of an array with TileDB's semantics, across
// its fragments:
//
//   auto arr = array::open("path/to/array");
//   auto r = arr.query().subarray({{1, 4}, {2, 3}}).attributes({"a", "s"}).layout(array::query_layout::row_major).read();
//   array::column<std::int32_t> a = r.get<std::int32_t>("a");      // one value per cell of the region
//   array::var_column<char> s = r.get_var<char>("s");               // offsets + characters
//
// Dense arrays: every cell of the subarray holds the value of the newest
// fragment (in the order array_reader::fragments() lists them, oldest
// first) whose non-empty domain covers it, else the attribute's fill value
// (and fill validity). An attribute the winning fragment's schema does not
// have (added later by schema evolution) reads as its fill value. Only
// tiles that hold a cell some fragment wins are read.
//
// Layouts: row-major and column-major over the subarray, and global order
// (the schema's tile order over the space tiles the subarray touches, then
// its cell order inside each).
//
// Not yet: sparse arrays, several ranges per dimension, query conditions,
// aggregates, consolidated fragments read at a timestamp inside their range;
// each is refused with std::invalid_argument naming it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/array.hpp"
#include "tilefmt/array/column.hpp"
#include "tilefmt/array/dense_grid.hpp"

namespace tilefmt::array {

/// The order of a query's result cells.
enum class query_layout {
  row_major,     ///< over the subarray, the last dimension fastest (C order)
  col_major,     ///< over the subarray, the first dimension fastest (Fortran order)
  global_order,  ///< the schema's tile order over the space tiles, then its cell order
};

/// The cells a query returned, one column per attribute. Values are kept as
/// the little-endian bytes TileDB stores; get<T> and get_var<T> convert.
class query_result {
public:
  /// Cells in the result (every attribute has this many).
  std::uint64_t cell_num() const noexcept { return cells_; }

  /// Attribute names, in the order the query asked for them.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& f : fields_) out.push_back(f.name);
    return out;
  }

  /// A fixed-size attribute's values (cell_val_num per cell).
  template <class T>
  column<T> get(std::string_view name) const {
    const auto& f = at(name);
    if (f.var) throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" is var-size: use get_var");
    check_type<T>(f);
    column<T> out(f.values.size() / sizeof(T));
    codec::load_le_array(f.values.data(), out.data(), out.size());
    return out;
  }

  /// A var-size attribute's cells: offsets (in elements of T) and values.
  template <class T>
  var_column<T> get_var(std::string_view name) const {
    const auto& f = at(name);
    if (!f.var) throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" is fixed-size: use get");
    check_type<T>(f);
    var_column<T> out;
    out.offsets.resize(f.offsets.size());
    for (std::size_t i = 0; i < f.offsets.size(); ++i) out.offsets[i] = f.offsets[i] / sizeof(T);
    out.values.resize(f.values.size() / sizeof(T));
    codec::load_le_array(f.values.data(), out.values.data(), out.values.size());
    return out;
  }

  /// A nullable attribute's validity, a byte per cell (0: null).
  const std::vector<std::uint8_t>& validity(std::string_view name) const {
    const auto& f = at(name);
    if (!f.nullable) throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" is not nullable");
    return f.validity;
  }

  /// The values as stored: little-endian bytes, cells back to back.
  const std::vector<std::byte>& bytes(std::string_view name) const { return at(name).values; }
  /// A var-size attribute's byte offsets into bytes(name), one per cell.
  const std::vector<std::uint64_t>& byte_offsets(std::string_view name) const { return at(name).offsets; }

private:
  friend class query;

  struct field {
    std::string name;
    format::Datatype type = format::Datatype::INT32;
    bool var = false, nullable = false;
    std::vector<std::byte> values;
    std::vector<std::uint64_t> offsets;   // var: where each cell starts in `values`
    std::vector<std::uint8_t> validity;   // nullable
  };

  const field& at(std::string_view name) const {
    for (const auto& f : fields_)
      if (f.name == name) return f;
    throw std::invalid_argument("tilefmt: query result has no attribute \"" + std::string(name) + "\"");
  }
  template <class T>
  static void check_type(const field& f) {
    if (sizeof(T) != format::datatype_size(f.type))
      throw std::invalid_argument("tilefmt: query result: \"" + f.name + "\" holds " +
                                  std::string(format::codec_enum_name(f.type)) + " values, not values of " +
                                  std::to_string(sizeof(T)) + " bytes");
  }

  std::vector<field> fields_;
  std::uint64_t cells_ = 0;
};

namespace detail {

/// An inclusive box of cells, per dimension as offsets from the domain's
/// lower bound (dense_grid's coordinates).
struct cell_box {
  std::vector<std::uint64_t> lo, hi;
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
  result_order(const cell_box& s, query_layout layout, const format::ArraySchema& schema) : s_(s), layout_(layout) {
    const std::size_t nd = s.dims();
    widths_.resize(nd);
    std::uint64_t n = 1;
    for (std::size_t d = 0; d < nd; ++d) {
      widths_[d] = s.hi[d] - s.lo[d] + 1;
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

  /// The result index of the cell at offsets `x` (inside the subarray).
  std::uint64_t index(std::span<const std::uint64_t> x) const {
    const std::size_t nd = x.size();
    if (layout_ != query_layout::global_order) {
      std::uint64_t idx = 0;
      for (std::size_t d = 0; d < nd; ++d) idx += (x[d] - s_.lo[d]) * strides_[d];
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
  cell_box s_;
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
/// cells of subarray `s`, visiting only those tiles.
template <class F>
void for_each_tile_part(const dense_grid& g, const cell_box& s, F&& f) {
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

/// Calls f(x) for every cell x (offsets per dimension) of `b`, the last
/// dimension fastest.
template <class F>
void for_each_cell(const cell_box& b, F&& f) {
  const std::size_t nd = b.dims();
  std::vector<std::uint64_t> x = b.lo;
  for (;;) {
    f(std::span<const std::uint64_t>(x));
    std::size_t d = nd;
    while (d > 0) {
      --d;
      if (x[d] < b.hi[d]) {
        ++x[d];
        break;
      }
      x[d] = b.lo[d];
      if (d == 0) return;
    }
  }
}

} // namespace detail

/// A read of a region of an array: built by array_reader::query(), run by
/// read(). Holds a reference to the array, which must outlive it. read() is
/// const: one query may run on several threads at once.
class query {
public:
  explicit query(const array_reader& arr) : arr_(&arr) {}

  /// One inclusive range [lo, hi] per dimension, in the schema's order.
  /// Without it the whole domain is read.
  query& subarray(std::vector<std::pair<std::int64_t, std::int64_t>> ranges) {
    ranges_ = std::move(ranges);
    return *this;
  }
  /// The attributes to return, in this order; without it, all of them.
  query& attributes(std::vector<std::string> names) {
    names_ = std::move(names);
    return *this;
  }
  query& layout(query_layout l) {
    layout_ = l;
    return *this;
  }

  query_result read() const {
    const auto& schema = arr_->schema();
    if (schema.is_sparse())
      throw std::invalid_argument("tilefmt: query: sparse arrays are not supported yet (read their fragments)");
    const detail::cell_box s = subarray_box(schema);
    const detail::result_order order(s, layout_, schema);
    check_size(schema, order.cell_num());
    const std::size_t n = static_cast<std::size_t>(order.cell_num());

    // Which fragment each cell comes from: the newest that wrote it.
    constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    const auto& frags = arr_->fragments();
    std::vector<std::optional<dense_grid>> grids(frags.size());
    std::vector<std::uint32_t> winner(n, none);
    for (std::size_t k = 0; k < frags.size(); ++k) {
      const auto& f = frags[k];
      check_fragment(f);
      if (f.footer().null_non_empty_domain) continue;
      grids[k].emplace(dense_grid::of_region(f.schema(), f.non_empty_domain()));
      detail::for_each_tile_part(*grids[k], s, [&](const detail::tile_part& p) {
        detail::for_each_cell(p.cells, [&](std::span<const std::uint64_t> x) {
          winner[static_cast<std::size_t>(order.index(x))] = static_cast<std::uint32_t>(k);
        });
      });
    }

    query_result out;
    out.cells_ = order.cell_num();
    for (const auto& name : selected(schema)) {
      const auto& attr = attribute(schema, name);
      query_result::field r;
      r.name = name;
      r.type = attr.type;
      r.var = attr.is_var();
      r.nullable = attr.nullable.value;
      const std::vector<std::byte> fill = attr.fill();
      if (r.nullable) r.validity.assign(n, attr.fill_value_validity.value);
      if (!r.var) {
        r.values.resize(n * fill.size());
        for (std::size_t c = 0; c < n; ++c)
          if (winner[c] == none) std::memcpy(r.values.data() + c * fill.size(), fill.data(), fill.size());
      }
      // Var-size cells are gathered at the end from the tiles they are in.
      std::vector<std::span<const std::byte>> var_cells(r.var ? n : 0, std::span<const std::byte>(fill));
      std::deque<tile_data> kept;
      for (std::size_t k = 0; k < frags.size(); ++k) {
        if (!grids[k]) continue;
        const auto& frag = frags[k];
        const bool has = has_attribute(frag.schema(), name);
        const auto& g = *grids[k];
        const bool cell_row = g.cell_order() != format::Layout::COL_MAJOR;
        std::optional<field_info> fi;
        if (has) fi = frag.field(name);
        std::vector<std::pair<std::size_t, std::size_t>> cells;  // (result cell, cell of the tile) this fragment wins
        detail::for_each_tile_part(g, s, [&](const detail::tile_part& p) {
          cells.clear();
          std::vector<std::uint64_t> in(p.cells.dims());
          detail::for_each_cell(p.cells, [&](std::span<const std::uint64_t> x) {
            const auto c = static_cast<std::size_t>(order.index(x));
            if (winner[c] != k) return;
            for (std::size_t d = 0; d < in.size(); ++d) in[d] = x[d] - p.tile_lo[d];
            cells.emplace_back(c, static_cast<std::size_t>(detail::ravel(in, g.extents(), cell_row)));
          });
          if (cells.empty()) return;  // newer fragments cover this tile's part: not read
          const tile_data* t = nullptr;
          if (has) {
            kept.push_back(frag.read_tile(*fi, static_cast<std::size_t>(p.tile)));
            t = &kept.back();
          }
          for (const auto& [c, i] : cells) {
            if (!t) {  // the fragment's schema predates the attribute
              if (!r.var) std::memcpy(r.values.data() + c * fill.size(), fill.data(), fill.size());
              continue;
            }
            if (r.var) {
              var_cells[c] = detail::var_cell(t->values, t->offsets, i);
            } else {
              if ((i + 1) * fill.size() > t->values.size())
                throw format_error("a tile of fragment " + frag.name().str() + ", field " + name +
                                       " holds fewer cells than its space tile",
                                   0);
              std::memcpy(r.values.data() + c * fill.size(), t->values.data() + i * fill.size(), fill.size());
            }
            if (r.nullable) r.validity[c] = t->validity.at(i);
          }
          if (!r.var && t) kept.pop_back();  // fixed values are copied already
        });
        if (!r.var) kept.clear();
      }
      if (r.var) {
        r.offsets.resize(n);
        std::size_t total = 0;
        for (std::size_t c = 0; c < n; ++c) {
          r.offsets[c] = total;
          total += var_cells[c].size();
        }
        r.values.resize(total);
        for (std::size_t c = 0; c < n; ++c)
          if (!var_cells[c].empty())
            std::memcpy(r.values.data() + r.offsets[c], var_cells[c].data(), var_cells[c].size());
      }
      out.fields_.push_back(std::move(r));
    }
    return out;
  }

private:
  detail::cell_box subarray_box(const format::ArraySchema& schema) const {
    const auto& dims = schema.domain.dimensions.value;
    if (!ranges_.empty() && ranges_.size() != dims.size())
      throw std::invalid_argument("tilefmt: query: the subarray has " + std::to_string(ranges_.size()) +
                                  " ranges, the array " + std::to_string(dims.size()) + " dimensions");
    detail::cell_box b;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto& dim = dims[d];
      const bool integral = filter::with_integer_type(dim.type.value, [&]<class T>() {
        const auto [lo, hi] = dim.domain_as<T>();
        if (ranges_.empty()) {
          b.lo.push_back(0);
          b.hi.push_back(dense_grid::distance(lo, hi));
          return;
        }
        const auto [a, z] = ranges_[d];
        const std::string who = "tilefmt: query: range [" + std::to_string(a) + ", " + std::to_string(z) +
                                "] of dimension \"" + dim.name.value + "\"";
        if (a > z) throw std::invalid_argument(who + " is empty (lo > hi)");
        if (!fits<T>(a) || !fits<T>(z) || static_cast<T>(a) < lo || static_cast<T>(z) > hi)
          throw std::invalid_argument(who + " is outside the domain [" + std::to_string(lo) + ", " +
                                      std::to_string(hi) + "]");
        b.lo.push_back(dense_grid::distance(lo, static_cast<T>(a)));
        b.hi.push_back(dense_grid::distance(lo, static_cast<T>(z)));
      });
      if (!integral)
        throw std::invalid_argument("tilefmt: query: dimension \"" + dim.name.value + "\" of a dense array is not " +
                                    "an integer, date or time dimension");
    }
    return b;
  }

  /// The result and the bookkeeping (a fragment index per cell, var-size
  /// cells' offsets and references) must fit open_options::max_allocation,
  /// checked before anything is allocated. Larger regions are read in parts.
  void check_size(const format::ArraySchema& schema, std::uint64_t cells) const {
    std::uint64_t per_cell = sizeof(std::uint32_t);
    for (const auto& name : selected(schema)) {
      const auto& a = attribute(schema, name);
      per_cell += a.is_var() ? sizeof(std::uint64_t) + sizeof(std::span<const std::byte>) : a.cell_size();
      if (a.nullable.value) per_cell += 1;
    }
    const std::uint64_t limit = arr_->options().max_allocation;
    if (cells > limit / per_cell)
      throw std::invalid_argument("tilefmt: query: the subarray has " + std::to_string(cells) + " cells of " +
                                  std::to_string(per_cell) + " bytes, more than the " + std::to_string(limit) +
                                  " bytes open_options::max_allocation allows one read");
  }

  template <class T>
  static bool fits(std::int64_t v) {
    if constexpr (std::is_signed_v<T>)
      return v >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
             v <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
    else
      return v >= 0 && static_cast<std::uint64_t>(v) <= std::numeric_limits<T>::max();
  }

  void check_fragment(const fragment& f) const {
    if (!f.dense())
      throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() +
                                  " of a dense array is sparse; not supported yet");
    const auto& opt = arr_->options();
    if (f.has_timestamps() && (f.timestamp_start() < opt.timestamp_start || f.timestamp_end() > opt.timestamp_end))
      throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() +
                                  " was consolidated with timestamps and the array is opened inside its time "
                                  "range; reading per-cell timestamps is not supported yet");
  }

  std::vector<std::string> selected(const format::ArraySchema& schema) const {
    if (!names_.empty()) return names_;
    std::vector<std::string> out;
    for (const auto& a : schema.attributes.value) out.push_back(a.name.value);
    return out;
  }
  static const format::Attribute& attribute(const format::ArraySchema& schema, const std::string& name) {
    for (const auto& a : schema.attributes.value)
      if (a.name.value == name) return a;
    throw std::invalid_argument("tilefmt: query: the array has no attribute \"" + name + "\"");
  }
  static bool has_attribute(const format::ArraySchema& schema, const std::string& name) {
    for (const auto& a : schema.attributes.value)
      if (a.name.value == name) return true;
    return false;
  }

  const array_reader* arr_;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges_;
  std::vector<std::string> names_;
  query_layout layout_ = query_layout::row_major;
};

inline query array_reader::query() const { return array::query(*this); }

} // namespace tilefmt::array
