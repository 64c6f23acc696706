// tilefmt — what both readers of a query (read/dense/reader.hpp, read/sparse/reader.hpp)
// are given and check first: the array, the subarray, the layout, the
// attributes asked for, and the fragments they may read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/array/read/aggregate.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/condition_eval.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/array/read/subarray.hpp"

namespace tilefmt::array::detail {

/// What a reader returns.
struct read_output {
  std::vector<result_field> fields;
  std::uint64_t cells = 0;
  /// Dense reads with a condition: 1 for the cells that failed it (they
  /// hold fill values), which aggregates leave out.
  std::vector<std::uint8_t> failed;
  /// Dense reads for aggregates (read_plan::aggregating) where some cell of
  /// the subarray was written by no fragment, or lies in a tile left
  /// unread (read_plan::skip_tile): 1 for those cells, which aggregates
  /// leave out (TileDB's leave out the cells no fragment wrote).
  std::vector<std::uint8_t> unwritten;
  /// Sparse reads for aggregates: the tiles every cell of which is in the
  /// result (TileDB answers aggregates over those from their metadata), and
  /// where their cells are (runs of result cells: first, count).
  struct whole_tile {
    std::uint32_t frag = 0;
    std::uint64_t tile = 0;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  };
  std::vector<whole_tile> whole_tiles;
  /// Dense reads for aggregates: per field (by name), 1 for the cells won
  /// by a fragment whose schema predates the field (added later by schema
  /// evolution). They read as the fill value, but TileDB's aggregates leave
  /// them out of all but COUNT (TileDB-Py 0.36.1: SUM and MEAN of the added
  /// attribute over the newer fragment's cells only, with or without a
  /// condition). Only fields some such fragment touches are listed.
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> predating{};
};

struct read_plan {
  const array_reader& arr;
  const subarray& sub;
  query_layout layout;
  std::vector<std::string> names;  // attributes, in the result's order
  const condition_eval* where = nullptr;  // the query's condition, if any
  bool aggregating = false;  // dense: mark the cells no fragment wrote (read_output::unwritten); sparse: whole tiles
  /// Dense reads for aggregates: the space tiles (by their first cell, as
  /// offsets from the domain's start) to leave unread; their cells are
  /// marked in read_output::unwritten, as no fragment's.
  std::function<bool(std::span<const std::uint64_t>)> skip_tile{};

  bool skips(std::span<const std::uint64_t> tile_lo) const { return skip_tile && skip_tile(tile_lo); }
  /// Dense folds (fold_dense): the aggregates the cells go into.
  std::vector<aggregator>* sinks = nullptr;
  /// Sparse reads for aggregates: whether tile `tile` of `frag`, when every
  /// cell of it is in the result (read_output::whole_tiles), has metadata
  /// that answers every aggregate of attribute `name`. Such tiles are left
  /// unread: their cells hold zero bytes, which the aggregates leave out.
  std::function<bool(const fragment& frag, std::uint64_t tile, const std::string& name)> answered{};

  const format::ArraySchema& schema() const { return arr.schema(); }

  const format::Attribute& attribute(const std::string& name) const {
    for (const auto& a : schema().attributes.value)
      if (a.name.value == name) return a;
    throw std::invalid_argument("tilefmt: query: the array has no attribute \"" + name + "\"");
  }

  /// An empty result field for attribute `name`.
  result_field attribute_field(const std::string& name) const {
    const auto& a = attribute(name);
    result_field r;
    r.name = name;
    r.type = a.type;
    r.var = a.is_var();
    r.nullable = a.nullable.value;
    return r;
  }

  /// The result and the bookkeeping of `cells` cells (`extra` bytes each
  /// besides the attributes' values) must fit open_options::max_allocation,
  /// checked before anything is allocated.
  void check_size(std::uint64_t cells, std::uint64_t extra) const {
    std::uint64_t per_cell = extra;
    for (const auto& name : names) {
      const auto& a = attribute(name);
      per_cell += a.is_var() ? sizeof(std::uint64_t) + 2 * sizeof(void*) : a.cell_size();
      if (a.nullable.value) per_cell += 1;
    }
    const std::uint64_t limit = arr.options().max_allocation;
    if (per_cell != 0 && cells > limit / per_cell)
      throw std::invalid_argument("tilefmt: query: the subarray has " + std::to_string(cells) + " cells of " +
                                  std::to_string(per_cell) + " bytes, more than the " + std::to_string(limit) +
                                  " bytes open_options::max_allocation allows one read");
  }

  /// Refuses what the readers do not read yet: the dense reader does not
  /// read per-cell timestamps.
  void check_fragment(const fragment& f) const {
    const auto& opt = arr.options();
    if (f.dense() && f.has_timestamps() &&
        (f.timestamp_start() < opt.timestamp_start || f.timestamp_end() > opt.timestamp_end))
      throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() +
                                  " was consolidated with timestamps and the array is opened inside its time "
                                  "range; reading per-cell timestamps is not supported yet");
  }
};

/// A var-size result field from its cells (views into the tiles read):
/// byte offsets, then the bytes back to back. Cells that lie one after the
/// other where they were read (a run of a tile's cells, as most reads take
/// them) are copied as one block: a cell of a few bytes copied alone cost
/// more than its bytes.
inline void store_var_cells(result_field& r, std::span<const std::span<const std::byte>> cells) {
  r.offsets.reserve(cells.size() + 1);  // room for the end offset Arrow's layout adds (arrow/columns.hpp)
  r.offsets.resize(cells.size());
  std::size_t total = 0;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    r.offsets[c] = total;
    total += cells[c].size();
  }
  r.values.resize(total);
  std::byte* to = r.values.data();
  for (std::size_t c = 0; c < cells.size();) {
    const std::byte* const from = cells[c].data();
    std::size_t bytes = cells[c].size();
    for (++c; c < cells.size() && cells[c].data() == from + bytes; ++c) bytes += cells[c].size();
    if (bytes != 0) std::memcpy(to, from, bytes);
    to += bytes;
  }
}

inline bool has_attribute(const format::ArraySchema& schema, const std::string& name) {
  for (const auto& a : schema.attributes.value)
    if (a.name.value == name) return true;
  return false;
}

} // namespace tilefmt::array::detail
