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
// Dense arrays (detail/dense_read.hpp): every cell of the subarray holds the
// value of the newest fragment that wrote it, else the attribute's fill
// value (and fill validity). Sparse arrays (detail/sparse_read.hpp): every
// cell of every fragment inside the subarray, with its coordinates; without
// duplicates allowed, the newest of equal coordinates. Each reader's header
// gives TileDB's rules for the layouts and for several ranges.
//
// Conditions (where(), array/condition.hpp) keep the cells that satisfy
// them; delete commits remove the cells they delete from the fragments
// written before them.
//
// Aggregates (aggregate(), count(); array/aggregate.hpp) summarise the
// cells a query selects.
//
// A current domain (format 22) bounds reads: ranges outside it are refused
// and sparse reads without ranges stay inside it, as in TileDB.
//
// Update commits are read as TileDB reads them: as delete commits of their
// condition (detail/delete_commits.hpp). Refused with std::invalid_argument:
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

#include "tilefmt/array/aggregate.hpp"
#include "tilefmt/array/array.hpp"
#include "tilefmt/array/condition.hpp"
#include "tilefmt/array/detail/batches.hpp"
#include "tilefmt/array/detail/compiled.hpp"
#include "tilefmt/array/detail/dense_aggregate.hpp"
#include "tilefmt/array/detail/dense_read.hpp"
#include "tilefmt/array/detail/sparse_read.hpp"
#include "tilefmt/array/detail/subarray.hpp"
#include "tilefmt/array/query_result.hpp"

namespace tilefmt::array {

class query_batches;

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
  /// Whether dense aggregates take whole tiles from the metadata stored
  /// with them, as TileDB does (the default). false aggregates every cell
  /// instead: slower, independent of the stored metadata (for arrays whose
  /// metadata is in doubt), and different from TileDB's answers in tiles
  /// written only in part (see aggregate()).
  query& use_tile_metadata(bool use) {
    tile_metadata_ = use;
    return *this;
  }
  /// Only cells that satisfy `c` (array/condition.hpp); in dense arrays the
  /// others read as fill values, as in TileDB.
  query& where(condition c) {
    where_ = std::move(c);
    return *this;
  }

#ifdef TILEFMT_DECLARE_ONLY
  query_result read() const;
#else
  TILEFMT_EMIT
  query_result read() const {
    auto out = run(selected(arr_->schema()));
    return query_result(std::move(out.fields), out.cells);
  }
#endif

  /// The result in parts of about `bytes` each, in the layout's order
  /// (TileDB's incomplete queries), for results larger than memory:
  ///
  ///   auto parts = arr.query().layout(array::query_layout::row_major).batches(64 << 20);
  ///   while (auto part = parts.next()) use(*part);
  ///
  /// A part's size counts the reader's bookkeeping too, and var-size
  /// values at the average size of those read so far. See
  /// detail/batches.hpp for where the subarray is cut.
  query_batches batches(std::uint64_t bytes) const;

  /// Aggregates over the cells the query selects (array/aggregate.hpp
  /// gives TileDB's rules): `{{aggregate_op::sum, "a"}, {aggregate_op::count,
  /// ""}}`. In dense arrays, space tiles the subarray covers whole and only
  /// one fragment wrote are answered from the metadata stored with them, as
  /// TileDB answers them, without reading their cells
  /// (detail/dense_aggregate.hpp).
  std::vector<aggregate_value> aggregate(const std::vector<std::pair<aggregate_op, std::string>>& what) const {
    const auto& schema = arr_->schema();
    const bool dense = !schema.is_sparse();
    std::vector<detail::aggregator> aggs;
    std::vector<std::string> names;
    bool fixed = true;  // every field fixed-size: dense cells fold straight from the tiles
    for (const auto& [op, field] : what) {
      detail::aggregate_field f;
      if (op != aggregate_op::count) {
        const auto& a = attribute(field);
        f = {field, a.type, a.is_var(), a.nullable.value, a.cell_val_num};
        fixed = fixed && !a.is_var();
        if (std::find(names.begin(), names.end(), field) == names.end()) names.push_back(field);
      }
      aggs.emplace_back(op, std::move(f), dense);
    }
    const detail::subarray sub(schema, ranges_);
    const auto split = dense && tile_metadata_ ? detail::aggregate_split::of(*arr_, sub) : std::nullopt;
    if (dense && fixed && !where_)
      fold_tiles(aggs, sub, split ? &*split : nullptr);
    else if (!split)
      add_read(aggs, what, run(names, sub, true, {}, sparse_answered(aggs, what)));
    else
      aggregate_tiles(aggs, what, *split);
    std::vector<aggregate_value> values;
    for (const auto& a : aggs) values.push_back(a.value());
    return values;
  }
  aggregate_value aggregate(aggregate_op op, const std::string& field = {}) const {
    return aggregate({{op, field}}).front();
  }
  /// The number of cells the query selects.
  std::uint64_t count() const { return std::get<std::uint64_t>(aggregate(aggregate_op::count)); }

private:
  friend class query_batches;

  /// Dense aggregates of fixed-size fields without a condition, folded
  /// from the tiles (detail::fold_dense) without a result: the whole tiles
  /// one fragment wrote (`split`, if any) from their metadata, where it
  /// answers, the rest from their cells.
  void fold_tiles(std::vector<detail::aggregator>& aggs, const detail::subarray& sub,
                  const detail::aggregate_split* split) const {
    // Folds `sub` into the aggregates `which`, leaving out the tiles `skip` names.
    auto fold = [&](const std::vector<std::size_t>& which, const detail::subarray& part,
                    std::function<bool(std::span<const std::uint64_t>)> skip) {
      std::vector<detail::aggregator> sinks;
      for (std::size_t a : which) sinks.push_back(aggs[a].empty_copy());
      // Row-major: the order does not matter to a fold, and global order
      // would keep a count per space tile.
      detail::read_plan plan{*arr_, part, query_layout::row_major, {}, nullptr, true, std::move(skip), &sinks, {}};
      (void)detail::fold_dense(plan);
      for (std::size_t i = 0; i < which.size(); ++i) aggs[which[i]].merge(sinks[i]);
    };
    std::vector<std::size_t> fields;  // the aggregates of a field
    for (std::size_t a = 0; a < aggs.size(); ++a)
      if (aggs[a].op() != aggregate_op::count) fields.push_back(a);
    std::uint64_t cells = 0;  // COUNT: every cell of the subarray
    std::vector<std::uint8_t> skip;
    if (split) {
      skip.assign(split->tile_num(), 0);
      for (std::size_t n = 0; n < split->tile_num(); ++n) {
        const auto& src = split->tile_source(n);
        auto [part, part_cells] = split->part(n);
        cells += part_cells;
        if (!src.frag) continue;
        skip[n] = 1;
        std::vector<std::size_t> unanswered;
        for (std::size_t a : fields) {
          const auto md = stored_for(aggs[a], aggs[a].field_name(), *src.frag, src.tile);
          if (md)
            aggs[a].add_tile(*md);
          else
            unanswered.push_back(a);
        }
        if (!unanswered.empty()) fold(unanswered, part, {});
      }
    } else {
      cells = 1;
      bool over = false;
      for (std::size_t d = 0; d < sub.dim_num(); ++d) {
        std::uint64_t w = 0;
        for (const auto& r : sub.dim(d).ranges)
          over = over || r.hi - r.lo == std::numeric_limits<std::uint64_t>::max() ||
                 __builtin_add_overflow(w, r.hi - r.lo + 1, &w);
        over = over || __builtin_mul_overflow(cells, w, &cells);
      }
      if (over) throw std::invalid_argument("tilefmt: query: the subarray has more than 2^64 cells");
    }
    for (auto& a : aggs)
      if (a.op() == aggregate_op::count) a.add_cells(nullptr, cells);
    if (fields.empty() || (split && std::find(skip.begin(), skip.end(), std::uint8_t{0}) == skip.end())) return;
    fold(fields, sub, !split ? std::function<bool(std::span<const std::uint64_t>)>{}
                             : [&](std::span<const std::uint64_t> tile_lo) {
                                 const auto n = split->index_of(tile_lo);
                                 return n && skip[*n] != 0;
                               });
  }

  /// Aggregates over the tiles of `split`: the whole tiles one fragment
  /// wrote from their metadata, the others from one read that leaves those
  /// out. With a condition, a tile's metadata answers only when none of its
  /// cells fails it: each qualifying tile is read on its own then.
  void aggregate_tiles(std::vector<detail::aggregator>& aggs,
                       const std::vector<std::pair<aggregate_op, std::string>>& what,
                       const detail::aggregate_split& split) const {
    std::vector<std::string> names;  // the fields of the aggregates that need cells
    for (const auto& [op, field] : what)
      if (op != aggregate_op::count && std::find(names.begin(), names.end(), field) == names.end())
        names.push_back(field);
    // COUNT counts every cell of the subarray: the tiles' parts added up.
    std::uint64_t cells = 0;
    std::vector<std::uint8_t> skip(split.tile_num(), 0);
    std::vector<std::optional<tile_summary>> md(aggs.size());
    for (std::size_t n = 0; n < split.tile_num(); ++n) {
      const auto& src = split.tile_source(n);
      auto [part, part_cells] = split.part(n);
      cells += part_cells;
      if (!src.frag) continue;
      skip[n] = 1;
      std::vector<std::string> read_names;  // fields the metadata does not answer for
      for (std::size_t a = 0; a < aggs.size(); ++a) {
        if (aggs[a].op() == aggregate_op::count) continue;
        md[a] = stored_for(aggs[a], what[a].second, *src.frag, src.tile);
        if ((!md[a] || where_) && std::find(read_names.begin(), read_names.end(), what[a].second) == read_names.end())
          read_names.push_back(what[a].second);
      }
      if (read_names.empty()) {
        for (std::size_t a = 0; a < aggs.size(); ++a)
          if (md[a]) aggs[a].add_tile(*md[a]);
        continue;
      }
      const auto out = run(read_names, part, true);
      // The metadata answers when the condition filtered none of the cells
      // the fragment wrote (TileDB does not test the others).
      for (std::size_t c = 0; c < out.failed.size(); ++c)
        if (out.failed[c] && (out.unwritten.empty() || !out.unwritten[c])) {
          std::fill(md.begin(), md.end(), std::nullopt);
          break;
        }
      add_cells(aggs, out, md, false);
    }
    for (auto& a : aggs)
      if (a.op() == aggregate_op::count) a.add_cells(nullptr, cells);
    if (std::find(skip.begin(), skip.end(), std::uint8_t{0}) == skip.end()) return;
    // The other tiles: one read of the subarray, the tiles above left out.
    const auto out = run(names, split.subarray_of(), true, [&](std::span<const std::uint64_t> tile_lo) {
      const auto n = split.index_of(tile_lo);
      return n && skip[*n] != 0;
    });
    add_cells(aggs, out, {}, false);
  }

  const format::Attribute& attribute(const std::string& name) const {
    for (const auto& a : arr_->schema().attributes.value)
      if (a.name.value == name) return a;
    throw std::invalid_argument("tilefmt: query: the array has no attribute \"" + name + "\"");
  }

  /// Feeds a read's cells to the aggregates, or a tile's metadata to those
  /// `md` answers.
  static void add_cells(std::vector<detail::aggregator>& aggs, const detail::read_output& out,
                        const std::vector<std::optional<tile_summary>>& md, bool count = true) {
    for (std::size_t a = 0; a < aggs.size(); ++a) {
      if (!count && aggs[a].op() == aggregate_op::count) continue;
      if (a < md.size() && md[a]) {
        aggs[a].add_tile(*md[a]);
        continue;
      }
      const detail::result_field* f = nullptr;
      if (aggs[a].op() != aggregate_op::count)
        for (const auto& x : out.fields)
          if (x.name == aggs[a].field_name()) f = &x;
      // Cells of fragments that predate the field are left out as unwritten ones.
      const std::vector<std::uint8_t>* left_out = &out.unwritten;
      std::vector<std::uint8_t> merged;
      for (const auto& [name, predating] : out.predating)
        if (f && name == f->name) {
          merged = predating;
          for (std::size_t c = 0; c < out.unwritten.size(); ++c) merged[c] |= out.unwritten[c];
          left_out = &merged;
        }
      aggs[a].add_cells(f, out.cells, &out.failed, left_out);
    }
  }

  /// Feeds a read's cells to the aggregates; in sparse arrays, the tiles
  /// all of whose cells the read holds from their metadata where it answers
  /// (TileDB's readers do: the tile's bitmap full and, in global order, the
  /// whole tile merged), their cells left out.
  void add_read(std::vector<detail::aggregator>& aggs, const std::vector<std::pair<aggregate_op, std::string>>& what,
                const detail::read_output& out) const {
    if (!tile_metadata_ || out.whole_tiles.empty()) return add_cells(aggs, out, {});
    const auto& frags = arr_->fragments();
    for (std::size_t a = 0; a < aggs.size(); ++a) {
      std::vector<std::uint8_t> answered;  // the cells of tiles the metadata answered for
      if (aggs[a].op() != aggregate_op::count)
        for (const auto& w : out.whole_tiles) {
          const auto md = stored_for(aggs[a], what[a].second, frags[w.frag], static_cast<std::size_t>(w.tile));
          if (!md) continue;
          aggs[a].add_tile(*md);
          answered.resize(static_cast<std::size_t>(out.cells), 0);
          for (const auto& [first, count] : w.runs)
            std::fill_n(answered.begin() + static_cast<std::ptrdiff_t>(first), count, std::uint8_t{1});
        }
      const detail::result_field* f = nullptr;
      if (aggs[a].op() != aggregate_op::count)
        for (const auto& x : out.fields)
          if (x.name == aggs[a].field_name()) f = &x;
      aggs[a].add_cells(f, out.cells, &out.failed, &answered);
    }
  }

  /// For the sparse reader (read_plan::answered): whether the metadata of
  /// a whole tile answers every aggregate of attribute `name`, as add_read
  /// takes them, so that the tile need not be read.
  std::function<bool(const fragment&, std::uint64_t, const std::string&)> sparse_answered(
      const std::vector<detail::aggregator>& aggs, const std::vector<std::pair<aggregate_op, std::string>>& what) const {
    if (!tile_metadata_ || !arr_->schema().is_sparse()) return {};
    return [&aggs, &what](const fragment& frag, std::uint64_t tile, const std::string& name) {
      bool any = false;
      for (std::size_t a = 0; a < aggs.size(); ++a) {
        if (aggs[a].op() == aggregate_op::count || what[a].second != name) continue;
        if (!stored_for(aggs[a], name, frag, static_cast<std::size_t>(tile))) return false;
        any = true;
      }
      return any;
    };
  }

  /// The metadata `frag` stored for its tile `tile`, if it answers aggregate
  /// `agg` of attribute `name` (detail/dense_aggregate.hpp says when).
  static std::optional<tile_summary> stored_for(const detail::aggregator& agg, const std::string& name,
                                                const fragment& frag, std::size_t tile) {
    if (agg.op() == aggregate_op::count || !detail::has_attribute(frag.schema(), name)) return std::nullopt;
    const auto f = frag.field(name);
    using D = format::Datatype;
    if ((f.type == D::CHAR || f.type == D::STRING_ASCII) && !f.var() && f.nullable && frag.format_version() <= 20)
      return std::nullopt;
    auto md = frag.tile_metadata(name, tile);
    if (!md || !agg.tile_answers(*md)) return std::nullopt;
    return md;
  }

  /// Reads attributes `names` (and, for sparse arrays, the coordinates).
  detail::read_output run(std::vector<std::string> names) const {
    return run(std::move(names), detail::subarray(arr_->schema(), ranges_));
  }
  /// The same, over `sub` instead of the query's ranges; `aggregating`:
  /// for aggregates (dense reads mark the cells no fragment wrote, and
  /// leave the space tiles `skip_tile` names unread).
  detail::read_output run(std::vector<std::string> names, const detail::subarray& sub, bool aggregating = false,
                          std::function<bool(std::span<const std::uint64_t>)> skip_tile = {},
                          std::function<bool(const fragment&, std::uint64_t, const std::string&)> answered = {}) const {
    const auto& schema = arr_->schema();
    std::optional<detail::condition_eval> where;
    if (where_)
      where.emplace(detail::resolve_labels(where_->node(), where_->labels(), schema,
                                           [&](const std::string& name) { return arr_->enumeration(name); }),
                    schema);
    detail::read_plan plan{*arr_,       sub, layout_, std::move(names), where ? &*where : nullptr,
                           aggregating, std::move(skip_tile), nullptr, std::move(answered)};
    for (const auto& name : plan.names) (void)plan.attribute(name);
    return schema.is_sparse() ? detail::read_sparse(plan) : detail::read_dense(plan);
  }

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
};

/// A query read in parts (query::batches).
class query_batches {
public:
  /// The next part of the result, or nullopt once all is read.
  std::optional<query_result> next() {
    while (auto slab = cutter_.next(std::max<std::uint64_t>(1, bytes_ / per_cell_))) {
      auto out = query_.run(names_, *slab);
      if (out.cells == 0) continue;
      std::uint64_t size = 0;
      for (const auto& f : out.fields) size += f.values.size() + 8 * f.offsets.size() + f.validity.size();
      per_cell_ = std::max<std::uint64_t>(1, size / out.cells) + overhead_;
      return query_result(std::move(out.fields), out.cells);
    }
    return std::nullopt;
  }

private:
  friend class query;
  query_batches(query q, std::uint64_t bytes)
      : query_(std::move(q)),
        names_(query_.selected(query_.arr_->schema())),
        cutter_(*query_.arr_, detail::subarray(query_.arr_->schema(), query_.ranges_), query_.layout_),
        bytes_(bytes) {
    // A first estimate of a cell's bytes: fixed-size values as declared,
    // var-size ones at 16 bytes and their offset; and the reader's own per
    // cell (dense: a byte for the condition's outcome, and for global order
    // the cell's place; sparse: each cell's fragment, tile, position and
    // keys).
    const auto& schema = query_.arr_->schema();
    if (schema.is_sparse())
      overhead_ = 48 + 8 * schema.domain.dimensions.value.size();
    else
      overhead_ = (query_.where_ ? 1 : 0) + (query_.layout_ == query_layout::global_order ? 8 : 0);
    per_cell_ = overhead_;
    if (schema.is_sparse())
      for (const auto& d : schema.domain.dimensions.value) per_cell_ += d.is_var() ? 24 : d.coord_size();
    for (const auto& name : names_)
      if (const auto* a = schema.attribute(name))
        per_cell_ += (a->is_var() ? 24 : a->cell_size()) + (a->nullable.value ? 1 : 0);
    per_cell_ = std::max<std::uint64_t>(1, per_cell_);
  }

  query query_;
  std::vector<std::string> names_;
  detail::slab_cutter cutter_;
  std::uint64_t bytes_, per_cell_ = 1, overhead_ = 0;
};

inline query_batches query::batches(std::uint64_t bytes) const { return query_batches(*this, bytes); }

inline query array_reader::query() const { return array::query(*this); }

} // namespace tilefmt::array
