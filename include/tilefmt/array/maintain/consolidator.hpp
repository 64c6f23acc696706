// tilefmt — the cells of a consolidation and the fragment that holds them
// (array/maintain/consolidate.hpp is the interface): dense fragments merged by the
// query layer over whole tiles, sparse fragments concatenated with their
// timestamps. Written through the fragment writers' internals.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/delete_commits.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write/rewrite_access.hpp"
#include "tilefmt/array/write/sparse_writer.hpp"

namespace tilefmt::array::detail {

/// One field's cells as raw little-endian bytes: values, and for var-size
/// fields the byte offset of each cell; validity for nullable attributes.
struct raw_cells {
  std::vector<std::byte> values;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint8_t> validity;

  /// Appends cell `c` of `from`.
  void append(const raw_cells& from, std::size_t c, std::size_t cell_size, bool var) {
    if (var) {
      const std::size_t b = static_cast<std::size_t>(from.offsets[c]);
      const std::size_t e = c + 1 < from.offsets.size() ? static_cast<std::size_t>(from.offsets[c + 1]) : from.values.size();
      offsets.push_back(values.size());
      values.insert(values.end(), from.values.begin() + static_cast<std::ptrdiff_t>(b),
                    from.values.begin() + static_cast<std::ptrdiff_t>(e));
    } else {
      values.insert(values.end(), from.values.begin() + static_cast<std::ptrdiff_t>(c * cell_size),
                    from.values.begin() + static_cast<std::ptrdiff_t>((c + 1) * cell_size));
    }
    if (!from.validity.empty()) validity.push_back(from.validity[c]);
  }
  /// Appends `n` cells holding the attribute's fill value.
  void append_fill(const format::Attribute& a, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (a.is_var()) offsets.push_back(values.size());
      values.insert(values.end(), a.fill_value.value.begin(), a.fill_value.value.end());
      if (a.nullable.value) validity.push_back(a.fill_value_validity.value);
    }
  }
  /// The offsets in elements of `value_size` bytes, as set_var takes them.
  std::vector<std::uint64_t> element_offsets(std::size_t value_size) const {
    std::vector<std::uint64_t> out(offsets);
    for (auto& o : out) o /= value_size;
    return out;
  }
};

/// Every cell of one of a fragment's fields, tile after tile (storage
/// order), as raw bytes.
inline raw_cells read_cells(const fragment& frag, const std::string& name) {
  raw_cells out;
  const auto f = frag.field(name);
  for (std::size_t t = 0, n = frag.tile_num(); t < n; ++t) {
    const auto tile = frag.read_tile(f, t);
    const std::size_t count = static_cast<std::size_t>(frag.tile_cells(t));
    if (f.var())
      for (std::size_t c = 0; c < count; ++c) out.offsets.push_back(out.values.size() + tile.offsets.at(c));
    out.values.insert(out.values.end(), tile.values.begin(), tile.values.end());
    out.validity.insert(out.validity.end(), tile.validity.begin(), tile.validity.end());
  }
  return out;
}

struct consolidator {
  using ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

  /// The dense fragments `frags` (all of the array opened at their range)
  /// as one fragment over the union of their non-empty domains, written as
  /// TileDB's consolidation writes it: the union's whole space tiles, each
  /// cell the newest value or the fill value, the union as non-empty
  /// domain. Empty when the amplification check fails.
  static std::string dense(const array_reader& arr, const std::vector<const fragment*>& frags, double amplification,
                           const write_options& opt) {
    const auto& schema = arr.schema();
    const auto& dims = schema.domain.dimensions.value;
    const std::size_t nd = dims.size();
    ranges unite(nd), expanded(nd), clamped(nd);
    double sum_cells = 0;
    for (std::size_t i = 0; i < frags.size(); ++i) {
      const auto r = int_ranges(frags[i]->non_empty_domain(), dims);
      double cells = 1;
      for (std::size_t d = 0; d < nd; ++d) {
        if (i == 0) unite[d] = r[d];
        unite[d] = {std::min(unite[d].first, r[d].first), std::max(unite[d].second, r[d].second)};
        const auto e = to_tiles(dims[d], r[d]);
        cells *= static_cast<double>(e.second - e.first) + 1;
      }
      sum_cells += cells;
    }
    // FragmentConsolidator::are_consolidatable: the union's cells over the
    // fragments' tile-expanded cells.
    double union_cells = 1;
    for (std::size_t d = 0; d < nd; ++d) union_cells *= static_cast<double>(unite[d].second - unite[d].first) + 1;
    if (union_cells / sum_cells > amplification) return {};

    for (std::size_t d = 0; d < nd; ++d) {
      expanded[d] = to_tiles(dims[d], unite[d]);
      const auto dd = dense_dimension(dims[d]);
      clamped[d] = {expanded[d].first, std::min(expanded[d].second, dd.hi)};
    }
    const query_result cells = arr.query().subarray(clamped).layout(query_layout::row_major).read();

    dense_writer out = rewrite_access::dense_rewrite(arr.path(), expanded, unite, opt);
    rewrite_access::time_range(out, frags.front()->timestamp_start(), frags.back()->timestamp_end());
    // Where each cell of the tiles comes from in the row-major result, or
    // nowhere (past the domain: the fill value, as TileDB's reader gives).
    constexpr std::size_t outside = static_cast<std::size_t>(-1);
    std::vector<std::size_t> source(static_cast<std::size_t>(out.cell_num()));
    for (std::size_t i = 0; i < source.size(); ++i) {
      const auto c = out.cell_coordinates(i);
      std::size_t at = 0;
      for (std::size_t d = 0; d < nd && at != outside; ++d) {
        if (c[d] > clamped[d].second) at = outside;
        else at = at * static_cast<std::size_t>(clamped[d].second - clamped[d].first + 1) +
                  static_cast<std::size_t>(c[d] - clamped[d].first);
      }
      source[i] = at;
    }
    // The new fragment has the latest schema (as TileDB writes it), which
    // may name attributes added after the range read: fill values there.
    for (const auto& a : out.schema().attributes.value) {
      if (!schema.attribute(a.name.value)) {
        raw_cells fill;
        fill.append_fill(a, source.size());
        put(out, a, fill);
        continue;
      }
      raw_cells from{{cells.bytes(a.name.value).begin(), cells.bytes(a.name.value).end()}, {}, {}};
      if (a.is_var()) from.offsets.assign(cells.byte_offsets(a.name.value).begin(), cells.byte_offsets(a.name.value).end());
      if (a.nullable.value) from.validity = cells.validity(a.name.value);
      raw_cells tiles;
      const std::size_t value_size = format::datatype_size(a.type);
      const std::size_t cell_size = a.is_var() ? 0 : value_size * a.cell_val_num;
      for (std::size_t s : source) {
        if (s == outside) tiles.append_fill(a, 1);
        else tiles.append(from, s, cell_size, a.is_var());
      }
      put(out, a, tiles);
    }
    return out.commit(opt);
  }

  /// The sparse fragments `frags` as one fragment holding every cell of
  /// each with the time it was written (format 15 and later: TileDB keeps
  /// all versions of a cell, so that reads at earlier times still see
  /// theirs), equal coordinates newest first.
  ///
  /// Delete commits: with `purge`, or before format 16, the cells they
  /// delete are left out. Otherwise, when one is as new as the first
  /// fragment or a fragment holds delete metadata, every cell is kept with
  /// the time it was deleted and the index of the commit that deleted it
  /// (`__delete_timestamps`, `__delete_condition_index`), so that reads
  /// before the delete still see it (SparseIndexReaderBase's deletes
  /// consolidation). The new fragment lists every delete commit as
  /// processed.
  static std::string sparse_with_timestamps(const array_reader& arr, const std::vector<const fragment*>& frags,
                                            bool purge,
                                            const write_options& opt) {
    sparse_writer out(arr.path(), opt);
    const auto& schema = out.schema();
    const auto& dims = schema.domain.dimensions.value;
    const auto deletes = load_delete_commits(arr, arr.schema());
    bool delete_meta = false;
    if (!purge && schema.version.value >= 16) {
      for (const auto& d : deletes) delete_meta = delete_meta || d.timestamp >= frags.front()->timestamp_start();
      for (const auto* f : frags) delete_meta = delete_meta || f->has_delete_meta();
    }
    std::vector<raw_cells> dim_cells(dims.size()), attr_cells(schema.attributes.size());
    std::vector<std::uint64_t> times, deleted_at, deleted_by;
    std::vector<std::pair<std::size_t, std::size_t>> origin;  // (fragment, cell)
    for (std::size_t f = 0; f < frags.size(); ++f) {
      const fragment& frag = *frags[f];
      const auto [at, by] = deleted_cells(*frags[f], deletes);
      deleted_at.insert(deleted_at.end(), at.begin(), at.end());
      deleted_by.insert(deleted_by.end(), by.begin(), by.end());
      const std::size_t n = static_cast<std::size_t>(frag.cell_num());
      for (std::size_t d = 0; d < dims.size(); ++d) {
        const auto c = read_cells(frag, dims[d].name.value);
        for (std::size_t i = 0; i < n; ++i)
          dim_cells[d].append(c, i, format::datatype_size(dims[d].type.value), dims[d].is_var());
      }
      for (std::size_t a = 0; a < schema.attributes.size(); ++a) {
        const auto& attr = schema.attributes[a];
        if (!has_attribute(frag, attr.name.value)) {
          attr_cells[a].append_fill(attr, n);  // added by a later schema evolution
          continue;
        }
        const auto c = read_cells(frag, attr.name.value);
        for (std::size_t i = 0; i < n; ++i)
          attr_cells[a].append(c, i, format::datatype_size(attr.type) * attr.cell_val_num, attr.is_var());
      }
      if (frag.has_timestamps()) {
        const auto t = frag.read_timestamps();
        times.insert(times.end(), t.begin(), t.end());
      } else {
        times.insert(times.end(), n, frag.timestamp_start());
      }
      for (std::size_t i = 0; i < n; ++i) origin.emplace_back(f, i);
    }
    // The writer sorts into global order keeping ties as given: give equal
    // coordinates newest first (SparseGlobalOrderReader's timestamp
    // comparator: timestamp, then fragment, both descending). libtiledb 2.16
    // and earlier (formats up to 19) left the order of equal coordinates in
    // arrays with duplicates to their merge heap, which no rule of
    // timestamps reproduces: there the cells match TileDB's, not their order.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < times.size(); ++i)
      if (delete_meta || deleted_by[i] == none) order.push_back(i);  // purged: left out
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      if (times[x] != times[y]) return times[x] > times[y];
      return origin[x].first > origin[y].first;
    });
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const raw_cells c = permute(dim_cells[d], order, format::datatype_size(dims[d].type.value), dims[d].is_var());
      if (dims[d].is_var()) {
        std::vector<std::string> strings;
        for (std::size_t i = 0; i < order.size(); ++i) {
          const std::size_t b = static_cast<std::size_t>(c.offsets[i]);
          const std::size_t e = i + 1 < c.offsets.size() ? static_cast<std::size_t>(c.offsets[i + 1]) : c.values.size();
          strings.emplace_back(reinterpret_cast<const char*>(c.values.data()) + b, e - b);
        }
        out.set_coords(dims[d].name.value, strings);
      } else {
        rewrite_access::put_coords(out, d, c.values);
      }
    }
    for (std::size_t a = 0; a < schema.attributes.size(); ++a) {
      const auto& attr = schema.attributes[a];
      put(out, attr, permute(attr_cells[a], order, format::datatype_size(attr.type) * attr.cell_val_num, attr.is_var()));
    }
    std::vector<std::uint64_t> sorted_times, sorted_at, sorted_by;
    for (std::size_t i : order) {
      sorted_times.push_back(times[i]);
      sorted_at.push_back(deleted_at[i]);
      sorted_by.push_back(deleted_by[i]);
    }
    rewrite_access::cell_times(out, std::move(sorted_times));
    if (delete_meta) rewrite_access::cell_deletes(out, std::move(sorted_at), std::move(sorted_by));
    std::vector<std::string> applied;
    for (const auto& d : deletes) applied.push_back(d.marker);
    rewrite_access::processed_conditions(out, std::move(applied));
    rewrite_access::time_range(out, frags.front()->timestamp_start(), frags.back()->timestamp_end());
    return out.commit(opt);
  }

  /// The sparse fragments of an array older than format 15 as one fragment
  /// of the cells a read sees: the newest of equal coordinates, unless the
  /// array allows duplicates (TileDB keeps no timestamps there).
  static std::string sparse_merged(const array_reader& arr, const std::vector<const fragment*>& frags,
                                   const write_options& opt) {
    const query_result cells = arr.query().layout(query_layout::global_order).read();
    sparse_writer out(arr.path(), opt);
    const auto& schema = out.schema();
    const auto& dims = schema.domain.dimensions.value;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto& name = dims[d].name.value;
      if (dims[d].is_var()) {
        const auto v = cells.get_var<char>(name);
        std::vector<std::string> strings;
        for (std::size_t i = 0; i < v.offsets.size(); ++i) {
          const std::size_t e = i + 1 < v.offsets.size() ? v.offsets[i + 1] : v.values.size();
          strings.emplace_back(v.values.data() + v.offsets[i], e - v.offsets[i]);
        }
        out.set_coords(name, strings);
      } else {
        rewrite_access::put_coords(out, d, {cells.bytes(name).begin(), cells.bytes(name).end()});
      }
    }
    for (const auto& a : schema.attributes.value) {
      if (!arr.schema().attribute(a.name.value)) {  // added after the range read
        raw_cells fill;
        fill.append_fill(a, static_cast<std::size_t>(cells.cell_num()));
        put(out, a, fill);
        continue;
      }
      raw_cells c{{cells.bytes(a.name.value).begin(), cells.bytes(a.name.value).end()}, {}, {}};
      if (a.is_var()) c.offsets.assign(cells.byte_offsets(a.name.value).begin(), cells.byte_offsets(a.name.value).end());
      if (a.nullable.value) c.validity = cells.validity(a.name.value);
      put(out, a, c);
    }
    rewrite_access::time_range(out, frags.front()->timestamp_start(), frags.back()->timestamp_end());
    return out.commit(opt);
  }

private:
  static constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();

  /// For each cell of `f`: when it was deleted and by which of `deletes`
  /// (their index), or `none` twice. A commit deletes the cells written
  /// before it that fail the condition it keeps; the oldest such commit
  /// counts. Cells the fragment already records as deleted keep that
  /// record when it is older (its index translated through the markers).
  static std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>> deleted_cells(
      const fragment& f, const std::vector<delete_commit>& deletes) {
    const std::size_t n = static_cast<std::size_t>(f.cell_num());
    std::vector<std::uint64_t> at(n, none), by(n, none);
    if (deletes.empty() && !f.has_delete_meta()) return {at, by};
    const auto done = f.has_delete_meta() ? f.processed_conditions() : std::vector<std::string>{};
    std::size_t first = 0;
    for (std::size_t t = 0, tiles = f.tile_num(); t < tiles; ++t) {
      const std::size_t cells = static_cast<std::size_t>(f.tile_cells(t));
      std::map<std::string, tile_data, std::less<>> read;
      auto tile_of = [&](const std::string& name) -> const tile_data* {
        if (name != "__timestamps" && !has_attribute(f, name) && !has_dimension(f, name)) return nullptr;
        auto it = read.find(name);
        if (it == read.end()) it = read.emplace(name, f.read_tile(f.field(name), t)).first;
        return &it->second;
      };
      std::vector<std::uint64_t> positions(cells);
      std::iota(positions.begin(), positions.end(), std::uint64_t{0});
      for (std::size_t i = 0; i < deletes.size(); ++i) {
        const auto& del = deletes[i];
        if (del.timestamp < f.timestamp_start()) continue;
        if (std::find(done.begin(), done.end(), del.marker) != done.end()) continue;
        const auto keep = del.keep.evaluate(positions, tile_of);
        // Cells consolidated from writes after the commit stay.
        std::vector<std::uint64_t> written;
        if (f.has_timestamps() && del.timestamp <= f.timestamp_end()) {
          const auto& w = tile_of("__timestamps")->values;
          written.resize(cells);
          codec::load_le_array(w.data(), written.data(), std::min(cells, w.size() / 8));
        }
        for (std::size_t c = 0; c < cells; ++c)
          if (!keep[c] && (written.empty() || written[c] <= del.timestamp) && by[first + c] == none) {
            at[first + c] = del.timestamp;
            by[first + c] = i;
          }
      }
      first += cells;
    }
    if (f.has_delete_meta()) {
      const auto old_at = f.read_delete_timestamps();
      const auto old_by = f.read_delete_condition_index();
      for (std::size_t c = 0; c < n; ++c) {
        if (at[c] < old_at[c]) continue;
        at[c] = old_at[c];
        by[c] = none;
        if (old_by[c] != none && old_by[c] < done.size())
          for (std::size_t i = 0; i < deletes.size(); ++i)
            if (deletes[i].marker == done[static_cast<std::size_t>(old_by[c])]) by[c] = i;
      }
    }
    return {at, by};
  }

  static bool has_dimension(const fragment& f, const std::string& name) {
    for (const auto& d : f.schema().domain.dimensions.value)
      if (d.name.value == name) return true;
    return false;
  }

public:
  /// A dense dimension range expanded to whole space tiles.
  static std::pair<std::int64_t, std::int64_t> to_tiles(const format::Dimension& dim,
                                                        std::pair<std::int64_t, std::int64_t> r) {
    const auto dd = dense_dimension(dim);
    const std::int64_t ext = dd.extent;
    const std::int64_t lo = dd.lo + (r.first - dd.lo) / ext * ext;
    const std::int64_t hi = dd.lo + ((r.second - dd.lo) / ext + 1) * ext - 1;
    return {lo, hi};
  }

  /// A dense fragment's non-empty domain (integer dimensions).
  static ranges int_ranges(const format::MBR& m, const std::vector<format::Dimension>& dims) {
    ranges out;
    for (std::size_t d = 0; d < dims.size(); ++d)
      format::visit_integer_type(dims[d].type.value, [&]<class T>() {
        out.emplace_back(static_cast<std::int64_t>(codec::load_le<T>(m.ranges[d].bytes.data())),
                         static_cast<std::int64_t>(codec::load_le<T>(m.ranges[d].bytes.data() + sizeof(T))));
      });
    return out;
  }

private:
  static bool has_attribute(const fragment& f, const std::string& name) {
    for (const auto& a : f.schema().attributes.value)
      if (a.name.value == name) return true;
    return false;
  }

  static raw_cells permute(const raw_cells& c, const std::vector<std::size_t>& order, std::size_t cell_size, bool var) {
    raw_cells out;
    for (std::size_t i : order) out.append(c, i, cell_size, var);
    return out;
  }

  template <class Fragment>
  static void put(Fragment& out, const format::Attribute& a, const raw_cells& c) {
    const std::size_t value_size = format::datatype_size(a.type);
    if (a.is_var()) {
      const auto offsets = c.element_offsets(value_size);
      rewrite_access::put_var(out, a.name.value, value_size, c.values, offsets, c.validity);
    } else {
      rewrite_access::put_fixed(out, a.name.value, value_size, c.values.size() / value_size, c.values, c.validity);
    }
  }
};

} // namespace tilefmt::array::detail
