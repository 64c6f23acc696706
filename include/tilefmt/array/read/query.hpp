// tilefmt — reading a region of an array with TileDB's semantics, across
// its fragments:
//
//   auto arr = array::open("path/to/array");
//   auto r = arr.query().subarray({{1, 4}, {2, 3}}).attributes({"a", "s"}).layout(array::query_layout::row_major).read();
//   array::column<std::int32_t> a = r.get<std::int32_t>("a");      // one value per cell of the result
//   array::var_column<char> s = r.get_var<char>("s");               // offsets + characters
//
// Ranges are inclusive, one or more per dimension (add_range); without any,
// a dimension's whole domain is read. Ranges of a dense array must lie in
// its domain; those of a sparse array are cropped to it.
//
// Dense arrays (read/dense/reader.hpp): every cell of the subarray holds the
// value of the newest fragment that wrote it, else the attribute's fill
// value (and fill validity). Sparse arrays (read/sparse/reader.hpp): every
// cell of every fragment inside the subarray, with its coordinates; without
// duplicates allowed, the newest of equal coordinates. Each reader's header
// gives TileDB's rules for the layouts and for several ranges.
//
// Conditions (where(), array/model/condition.hpp) keep the cells that satisfy
// them; delete commits remove the cells they delete from the fragments
// written before them.
//
// Aggregates (aggregate(), count(); array/read/aggregate.hpp) summarise the
// cells a query selects.
//
// A current domain (format 22) bounds reads: ranges outside it are refused
// and sparse reads without ranges stay inside it, as in TileDB.
//
// Update commits are read as TileDB reads them: as delete commits of their
// condition (read/delete_commits.hpp). Refused with std::invalid_argument:
// dense fragments with per-cell timestamps read at a time inside their range
// (TileDB consolidates with timestamps in sparse arrays only, so none of its
// writers makes one).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/array/model/condition.hpp"
#include "tilefmt/array/read/aggregate.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/batches.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/array/read/subarray.hpp"
#include "tilefmt/codec/compiled.hpp"

namespace tilefmt::array {

class query_batches;

namespace detail {
class aggregate_split;
struct read_output;
} // namespace detail

/// A read of a region of an array: built by array_reader::query(), run by
/// read(). Holds a reference to the array, which must outlive it. read() is
/// const: one query may run on several threads at once.
class query {
public:
  explicit query(const array_reader& arr) : arr_(&arr) {}

  /// One inclusive range [lo, hi] per dimension, in the schema's order,
  /// replacing any ranges given before.
  query& subarray(const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
    ranges_.assign(ranges.size(), {});
    for (std::size_t d = 0; d < ranges.size(); ++d) ranges_[d].push_back({ranges[d].first, ranges[d].second});
    return *this;
  }

  /// Adds the inclusive range [lo, hi] to dimension `dim` (its index, or its
  /// name). The values must be exactly representable in the dimension's
  /// type; dates and times are their int64 counts.
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  query& add_range(std::size_t dim, T lo, T hi) {
    if (ranges_.size() <= dim) ranges_.resize(dim + 1);
    ranges_[dim].push_back({bound(lo), bound(hi)});
    return *this;
  }
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  query& add_range(std::string_view dim, T lo, T hi) {
    return add_range(dimension_index(dim), lo, hi);
  }
  /// Adds the inclusive range [lo, hi] to string dimension `dim` (strings
  /// compare bytewise, as in TileDB).
  query& add_range(std::size_t dim, std::string_view lo, std::string_view hi) {
    if (ranges_.size() <= dim) ranges_.resize(dim + 1);
    ranges_[dim].push_back({0, 0, true, std::string(lo), std::string(hi)});
    return *this;
  }
  query& add_range(std::string_view dim, std::string_view lo, std::string_view hi) {
    return add_range(dimension_index(dim), lo, hi);
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
  /// Dense arrays: whether the result holds each cell's coordinates too, a
  /// column per dimension before the attributes, as a sparse array's
  /// result does (row-major and column-major layouts; made from the
  /// subarray, read/dense/coordinates.hpp). Sparse results always do.
  query& coordinates(bool on) {
    coordinates_ = on;
    return *this;
  }
  /// Whether dense aggregates take whole tiles from the metadata stored
  /// with them, as TileDB does (the default). false aggregates every cell
  /// instead: slower, independent of the stored metadata (for arrays whose
  /// metadata is in doubt), and different from TileDB's answers in tiles
  /// written only in part (see aggregate()).
  query& use_tile_metadata(bool use) {
    tile_metadata_ = use;
    return *this;
  }
  /// Only cells that satisfy `c` (array/model/condition.hpp); in dense arrays the
  /// others read as fill values, as in TileDB.
  query& where(condition c) {
    where_ = std::move(c);
    return *this;
  }

  /// The cells of the query: its attributes (and a sparse array's
  /// coordinates) in its layout.
  query_result read() const;

  /// The fields read() returns, in its order: a sparse array's dimensions
  /// (a dense array's with coordinates(true)), then the attributes asked
  /// for (all of them by default).
  std::vector<std::string> fields() const {
    const auto& schema = arr_->schema();
    std::vector<std::string> out;
    if (schema.is_sparse() || coordinates_)
      for (const auto& d : schema.domain.dimensions.value) out.push_back(d.name.value);
    for (auto& a : selected(schema)) out.push_back(std::move(a));
    return out;
  }
  /// The array the query reads.
  const array_reader& reader() const noexcept { return *arr_; }

  /// The result in parts of about `bytes` each, in the layout's order
  /// (TileDB's incomplete queries), for results larger than memory:
  ///
  ///   auto parts = arr.query().layout(array::query_layout::row_major).batches(64 << 20);
  ///   while (auto part = parts.next()) use(*part);
  ///
  /// A part's size counts the reader's bookkeeping too, and var-size
  /// values at the average size of those read so far. See
  /// read/batches.hpp for where the subarray is cut.
  query_batches batches(std::uint64_t bytes) const;

  /// Aggregates over the cells the query selects (array/read/aggregate.hpp
  /// gives TileDB's rules): `{{aggregate_op::sum, "a"}, {aggregate_op::count,
  /// ""}}`. In dense arrays, space tiles the subarray covers whole and only
  /// one fragment wrote are answered from the metadata stored with them, as
  /// TileDB answers them, without reading their cells
  /// (read/dense/aggregate.hpp).
  std::vector<aggregate_value> aggregate(const std::vector<std::pair<aggregate_op, std::string>>& what) const;
  aggregate_value aggregate(aggregate_op op, const std::string& field = {}) const {
    return aggregate({{op, field}}).front();
  }
  /// The number of cells the query selects.
  std::uint64_t count() const { return std::get<std::uint64_t>(aggregate(aggregate_op::count)); }
  /// At least the number of cells read() returns, found without reading a
  /// tile: a dense read's subarray cells; for sparse arrays the cells of
  /// every tile whose bounding rectangle meets the subarray. (A cell inside
  /// two overlapping ranges of a row- or column-major sparse read, which
  /// TileDB returns twice, counts once.) For sizing buffers ahead.
  std::uint64_t max_cells() const;

private:
  friend class query_batches;

  void fold_tiles(std::vector<detail::aggregator>& aggs, const detail::subarray& sub,
                  const detail::aggregate_split* split) const;
  void aggregate_tiles(std::vector<detail::aggregator>& aggs,
                       const std::vector<std::pair<aggregate_op, std::string>>& what,
                       const detail::aggregate_split& split) const;
  const format::Attribute& attribute(const std::string& name) const;
  static void add_cells(std::vector<detail::aggregator>& aggs, const detail::read_output& out,
                        const std::vector<std::optional<tile_summary>>& md, bool count = true);
  void add_read(std::vector<detail::aggregator>& aggs, const std::vector<std::pair<aggregate_op, std::string>>& what,
                const detail::read_output& out) const;
  std::function<bool(const fragment&, std::uint64_t, const std::string&)> sparse_answered(
      const std::vector<detail::aggregator>& aggs, const std::vector<std::pair<aggregate_op, std::string>>& what) const;
  static std::optional<tile_summary> stored_for(const detail::aggregator& agg, const std::string& name,
                                                const fragment& frag, std::size_t tile);
  /// Reads attributes `names` (and, for sparse arrays, the coordinates).
  detail::read_output run(std::vector<std::string> names) const;
  /// The same, over `sub` instead of the query's ranges; `aggregating`:
  /// for aggregates (dense reads mark the cells no fragment wrote, and
  /// leave the space tiles `skip_tile` names unread).
  detail::read_output run(std::vector<std::string> names, const detail::subarray& sub, bool aggregating = false,
                          std::function<bool(std::span<const std::uint64_t>)> skip_tile = {},
                          std::function<bool(const fragment&, std::uint64_t, const std::string&)> answered = {}) const;

  template <class T>
  static detail::range_value bound(T v) {
    if constexpr (std::is_floating_point_v<T>)
      return static_cast<double>(v);
    else if constexpr (std::is_signed_v<T>)
      return static_cast<std::int64_t>(v);
    else
      return static_cast<std::uint64_t>(v);
  }

  std::size_t dimension_index(std::string_view name) const {
    const auto& dims = arr_->schema().domain.dimensions.value;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (dims[d].name.value == name) return d;
    throw std::invalid_argument("tilefmt: query: the array has no dimension \"" + std::string(name) + "\"");
  }

  std::vector<std::string> selected(const format::ArraySchema& schema) const {
    if (!names_.empty()) return names_;
    std::vector<std::string> out;
    for (const auto& a : schema.attributes.value) out.push_back(a.name.value);
    return out;
  }

  const array_reader* arr_;
  std::vector<std::vector<detail::user_range>> ranges_;
  std::vector<std::string> names_;
  query_layout layout_ = query_layout::row_major;
  std::optional<condition> where_;
  bool tile_metadata_ = true;
  bool coordinates_ = false;
};

/// A query read in parts (query::batches).
class query_batches {
public:
  /// The next part of the result, or nullopt once all is read.
  std::optional<query_result> next();

private:
  friend class query;
  query_batches(query q, std::uint64_t bytes);

  query query_;
  std::vector<std::string> names_;
  detail::slab_cutter cutter_;
  std::uint64_t bytes_, per_cell_ = 1, overhead_ = 0;
};

inline query array_reader::query() const { return array::query(*this); }

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/read/query-inl.hpp"
#endif
