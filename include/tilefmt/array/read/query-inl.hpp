// tilefmt — the definitions of query.hpp's members: the dense and sparse
// readers and the aggregates, which programs built against the compiled
// component (codec/compiled.hpp) do not parse. Header-only programs get
// this file from query.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/read/array-inl.hpp"
#include "tilefmt/array/read/dense/aggregate.hpp"
#include "tilefmt/array/read/dense/coordinates.hpp"
#include "tilefmt/array/read/dense/reader.hpp"
#include "tilefmt/array/read/sparse/reader.hpp"
#include "tilefmt/array/read/query.hpp"

namespace tilefmt::array {

namespace detail {

/// A dense read's coordinates over `sub` put before `out`'s attributes.
inline void add_dense_coordinates(const format::ArraySchema& schema, const subarray& sub, query_layout layout,
                                  read_output& out) {
  auto coords = dense_coordinates(schema, sub, layout, out.cells);
  coords.insert(coords.end(), std::make_move_iterator(out.fields.begin()), std::make_move_iterator(out.fields.end()));
  out.fields = std::move(coords);
}

} // namespace detail

TILEFMT_FUNC query_result query::read() const {
  const auto& schema = arr_->schema();
  const detail::subarray sub(schema, ranges_);
  auto out = run(selected(schema), sub);
  if (coordinates_ && !schema.is_sparse()) detail::add_dense_coordinates(schema, sub, layout_, out);
  return query_result(std::move(out.fields), out.cells);
}

TILEFMT_FUNC std::uint64_t query::max_cells() const {
  const auto& schema = arr_->schema();
  const detail::subarray sub(schema, ranges_);
  if (!schema.is_sparse()) return detail::dense_cell_count(sub);
  const auto& dims = schema.domain.dimensions.value;
  std::uint64_t cells = 0;
  for (const auto& f : arr_->fragments()) {
    if (f.tile_num() == 0 || !detail::meets_subarray(sub, dims, f.non_empty_domain())) continue;
    const auto mbrs = f.mbrs();
    for (std::size_t t = 0; t < f.tile_num(); ++t)
      if (mbrs.size() <= t || detail::meets_subarray(sub, dims, mbrs[t])) cells += f.tile_cells(t);
  }
  return cells;
}

TILEFMT_FUNC std::vector<aggregate_value> query::aggregate(const std::vector<std::pair<aggregate_op, std::string>>& what) const {
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

/// Dense aggregates of fixed-size fields without a condition, folded
/// from the tiles (detail::fold_dense) without a result: the whole tiles
/// one fragment wrote (`split`, if any) from their metadata, where it
/// answers, the rest from their cells.
TILEFMT_FUNC void query::fold_tiles(std::vector<detail::aggregator>& aggs, const detail::subarray& sub,
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
TILEFMT_FUNC void query::aggregate_tiles(std::vector<detail::aggregator>& aggs,
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

TILEFMT_FUNC const format::Attribute& query::attribute(const std::string& name) const {
  for (const auto& a : arr_->schema().attributes.value)
    if (a.name.value == name) return a;
  throw std::invalid_argument("tilefmt: query: the array has no attribute \"" + name + "\"");
}

/// Feeds a read's cells to the aggregates, or a tile's metadata to those
/// `md` answers.
TILEFMT_FUNC void query::add_cells(std::vector<detail::aggregator>& aggs, const detail::read_output& out,
                                   const std::vector<std::optional<tile_summary>>& md, bool count) {
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
TILEFMT_FUNC void query::add_read(std::vector<detail::aggregator>& aggs, const std::vector<std::pair<aggregate_op, std::string>>& what,
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
TILEFMT_FUNC std::function<bool(const fragment&, std::uint64_t, const std::string&)> query::sparse_answered(
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
/// `agg` of attribute `name` (read/dense/aggregate.hpp says when).
TILEFMT_FUNC std::optional<tile_summary> query::stored_for(const detail::aggregator& agg, const std::string& name,
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
TILEFMT_FUNC detail::read_output query::run(std::vector<std::string> names) const {
  return run(std::move(names), detail::subarray(arr_->schema(), ranges_));
}
/// The same, over `sub` instead of the query's ranges; `aggregating`:
/// for aggregates (dense reads mark the cells no fragment wrote, and
/// leave the space tiles `skip_tile` names unread).
TILEFMT_FUNC detail::read_output query::run(std::vector<std::string> names, const detail::subarray& sub, bool aggregating,
                                          std::function<bool(std::span<const std::uint64_t>)> skip_tile,
                                          std::function<bool(const fragment&, std::uint64_t, const std::string&)> answered) const {
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

TILEFMT_FUNC std::optional<query_result> query_batches::next() {
  while (auto slab = cutter_.next(std::max<std::uint64_t>(1, bytes_ / per_cell_))) {
    auto out = query_.run(names_, *slab);
    if (out.cells == 0) continue;
    const auto& schema = query_.arr_->schema();
    if (query_.coordinates_ && !schema.is_sparse()) detail::add_dense_coordinates(schema, *slab, query_.layout_, out);
    std::uint64_t size = 0;
    for (const auto& f : out.fields) size += f.values.size() + 8 * f.offsets.size() + f.validity.size();
    per_cell_ = std::max<std::uint64_t>(1, size / out.cells) + overhead_;
    return query_result(std::move(out.fields), out.cells);
  }
  return std::nullopt;
}


TILEFMT_FUNC query_batches::query_batches(query q, std::uint64_t bytes)
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
  if (query_.coordinates_ && !schema.is_sparse()) detail::check_coordinates_layout(query_.layout_);
  if (schema.is_sparse())
    overhead_ = 48 + 8 * schema.domain.dimensions.value.size();
  else
    overhead_ = (query_.where_ ? 1 : 0) + (query_.layout_ == query_layout::global_order ? 8 : 0);
  per_cell_ = overhead_;
  if (schema.is_sparse() || query_.coordinates_)
    for (const auto& d : schema.domain.dimensions.value) per_cell_ += d.is_var() ? 24 : d.coord_size();
  for (const auto& name : names_)
    if (const auto* a = schema.attribute(name))
      per_cell_ += (a->is_var() ? 24 : a->cell_size()) + (a->nullable.value ? 1 : 0);
  per_cell_ = std::max<std::uint64_t>(1, per_cell_);
}

TILEFMT_FUNC query_batches query::batches(std::uint64_t bytes) const { return query_batches(*this, bytes); }

} // namespace tilefmt::array
