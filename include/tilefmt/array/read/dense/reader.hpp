// tilefmt — the dense reader of a query: for every cell of the subarray,
// the value of the newest fragment that wrote it, else the fill value.
//
// Fragments are taken oldest first (array_reader::fragments()); a fragment
// wins the cells of its non-empty domain that no newer fragment's covers.
// Those are found as runs of cells, without a per-cell record: along each
// run of a tile, the newer fragments' domains (boxes) that meet it are cut
// out. Then each fragment's tiles that hold a cell it won are read, once,
// and those cells copied. An attribute
// the winning fragment's schema does not have (added later by schema
// evolution) reads as its fill value. Every cell a fragment wins lies in
// its non-empty domain, so tiles are read as stored, without filling the
// cells outside it.
//
// Cells no fragment wrote hold fill values: when the subarray is not all
// inside some fragment's domain, the result starts filled. Cells that fail
// the query's condition read as fill values too (TileDB's rule for dense
// arrays): they are marked, and filled once the winners are copied.
//
// With several ranges per dimension the result is the grid of their
// cells: along each dimension the cells of its first range, then of its
// second, and so on (a cell in two overlapping ranges is there twice), in
// row-major or column-major order; global order takes a single range, as
// in TileDB.
//
// The cells' geometry (boxes, runs, which fragment wins a run, tiles in
// batches) is read/dense/geometry.hpp; this header reads and copies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/read/dense/batch_fetch.hpp"
#include "tilefmt/array/read/dense/geometry.hpp"
#include "tilefmt/array/read/dense/var_pieces.hpp"
#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/support/function_ref.hpp"
#include "tilefmt/array/support/parallel.hpp"
// fragment::read_values_in_chunks, a member template, is defined there
// (array.hpp leaves it out of programs built with TILEFMT_COMPILED).
#include "tilefmt/array/read/fragment-inl.hpp"

namespace tilefmt::array::detail {

/// Whether the fill values pass the query's condition (the cells no
/// fragment wrote hold them).
inline bool fill_passes(const read_plan& plan) {
  std::map<std::string, tile_data, std::less<>> fills;
  for (const auto& name : plan.where->field_names()) {
    const auto& a = plan.attribute(name);
    tile_data t;
    const auto fill = a.fill();
    t.values.assign(fill.begin(), fill.end());
    if (a.is_var()) t.offsets = {0};
    if (a.nullable.value) t.validity = {a.fill_value_validity.value};
    fills.emplace(name, std::move(t));
  }
  const std::uint64_t one[] = {0};
  return plan.where->evaluate(one, [&](const std::string& name) -> const tile_data* { return &fills.at(name); })[0] != 0;
}

/// Sets `failed` for the cells that fail the query's condition, tile by
/// tile on the array's threads; cells no fragment wrote are set before, as
/// the fill values fare.
inline void apply_condition(const read_plan& plan, const std::vector<fragment>& frags, const fragment_boxes& fb,
                            std::span<const std::size_t> written, const std::vector<cell_box>& boxes,
                            const result_order& order, std::vector<std::uint8_t>& failed) {
  for (const auto& name : plan.where->field_names())
    if (!has_attribute(plan.schema(), name))
      throw std::invalid_argument("tilefmt: query: conditions on the dimensions of dense arrays are not supported yet");
  const auto& names = plan.where->field_names();
  for_each_fetched_batch(plan, fb, written, boxes, order, names, [&](std::size_t k, const std::vector<tile_work>& batch,
                                                                     const batch_fetch& ahead) {
    const auto& g = *fb.grids[k];
    const std::size_t stride = tile_stride(g, order.run_dim());
    parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
      std::vector<won_run> runs;
      std::vector<std::size_t> result;    // result cells this fragment wins in the tile
      std::vector<std::uint64_t> in_tile;  // and where they are in it
      for (const auto& [b, p] : batch[w].parts) {
        if (plan.skips(p.tile_lo)) continue;
        won_runs(p, boxes[b], order, g, fb.newer[k], runs);
        for (const auto& r : runs)
          for (std::size_t j = 0; j < r.len; ++j) result.push_back(r.result + j), in_tile.push_back(r.tile + j * stride);
      }
      if (result.empty()) return;
      std::map<std::string, tile_data, std::less<>> read;
      auto tile_of = [&](const std::string& name) -> const tile_data* {
        if (!has_attribute(frags[k].schema(), name)) return nullptr;
        auto it = read.find(name);
        if (it == read.end()) {
          const auto tile = static_cast<std::size_t>(batch[w].tile);
          it = read.emplace(name, frags[k].read_tile_as_stored(frags[k].field(name), tile, ahead.of(name))).first;
        }
        return &it->second;
      };
      const auto pass = plan.where->evaluate(in_tile, tile_of);
      // Each result cell has one winner, in one of its tiles: no two threads write one cell.
      for (std::size_t x = 0; x < result.size(); ++x) failed[result[x]] = pass[x] ? 0 : 1;
    });
  });
}

/// Clears `unwritten` for the cells some fragment wins, on the array's
/// threads, without reading a tile.
inline void mark_written(const read_plan& plan, const std::vector<fragment>& frags, const fragment_boxes& fb,
                         const std::vector<cell_box>& boxes, const result_order& order,
                         std::vector<std::uint8_t>& unwritten) {
  for (std::size_t k = 0; k < frags.size(); ++k) {
    if (!fb.grids[k]) continue;
    for_each_tile_batch(*fb.grids[k], boxes, plan.arr.options().threads, [&](const std::vector<tile_work>& batch) {
      parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
        std::vector<won_run> runs;
        for (const auto& [b, p] : batch[w].parts) {
          if (plan.skips(p.tile_lo)) continue;  // left marked
          won_runs(p, boxes[b], order, *fb.grids[k], fb.newer[k], runs);
          // Each result cell has one winner, in one of its tiles: no two threads write one cell.
          for (const auto& r : runs) std::fill_n(unwritten.begin() + static_cast<std::ptrdiff_t>(r.result), r.len, 0);
        }
      });
    });
  }
}

/// A field of the result as the dense reader fills it: fixed-size values
/// in place; var-size cells as views (`var_cells`) into tiles kept in
/// `kept` until they are stored; which cells a fragment that predates the
/// attribute wrote (aggregates leave them out).
struct dense_field {
  result_field r;
  std::vector<std::byte> fill;
  std::vector<var_piece> pieces;  // var-size fields: the runs of cells, views into `kept`
  std::deque<tile_data> kept;
  std::vector<std::uint8_t> predating;
  // Var-size fields: whether a tile whose cells the result takes whole, in
  // order, is left to decode into its place at the end (its size is in the
  // fragment's metadata), and those tiles.
  bool defer_whole = false;
  struct deferred_tile {
    const fragment* frag;
    field_info field;
    std::size_t tile;
  };
  std::vector<deferred_tile> deferred;
};

/// Copies the cells fragment `frag` (index `k`) wins in `batch` of field
/// `f` into the result, reading each tile that holds one once, on the
/// array's threads.
inline void copy_won_cells(const read_plan& plan, const fragment& frag, std::size_t k, const fragment_boxes& fb,
                           const std::vector<cell_box>& boxes, const result_order& order,
                           const std::vector<tile_work>& batch, const batch_fetch& ahead, dense_field& f) {
  result_field& r = f.r;
  const std::span<const std::byte> fill(f.fill);
  std::vector<std::uint8_t>* predating = f.predating.empty() ? nullptr : &f.predating;
  const auto& g = *fb.grids[k];
  const bool has = has_attribute(frag.schema(), r.name);
  std::optional<field_info> fi;
  if (has) fi = frag.field(r.name);
  const std::size_t stride = tile_stride(g, order.run_dim()), size = fill.size();
  std::vector<std::optional<tile_data>> var_tiles(r.var ? batch.size() : 0);
  std::vector<std::vector<var_piece>> var_runs(r.var ? batch.size() : 0);
  // A whole tile left for later decodes in store_var_pieces, after this
  // pass has read the tiles the result takes in part. Where the batch has
  // no more tiles than threads, the two passes would each keep one thread
  // busy (a read of two tiles, one of them whole, decoded them one after
  // the other): every tile is read here then, side by side, and copied.
  const unsigned threads = thread_count(plan.arr.options().threads);
  const bool defer = f.defer_whole && (threads == 1 || batch.size() > threads);
  std::vector<std::optional<dense_field::deferred_tile>> later(defer ? batch.size() : 0);
  // Each result cell has one winner, in one of its tiles: no two threads write one cell.
  parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
    std::vector<won_run> runs;
    // Fixed-size fields without validity, and var-size ones that may leave
    // a whole tile for later, gather the runs of every part, then read the
    // tile once; others read the tile whole when a part first needs it.
    const bool plain = !r.var && !r.nullable;
    std::vector<won_run> plain_runs;
    std::optional<tile_data> t;
    auto take_runs = [&](const std::vector<won_run>& from) {
      if (!t) t = frag.read_tile_as_stored(*fi, static_cast<std::size_t>(batch[w].tile), ahead.of(r.name));
      const std::size_t cells = r.var ? t->offsets.size() : t->values.size() / size;
      for (const auto& run : from) {
        const std::size_t last = run.tile + (run.len - 1) * stride;
        if (last >= cells || (r.nullable && last >= t->validity.size()))
          throw format_error("a tile of fragment " + frag.name().str() + ", field " + r.name +
                                 " holds fewer cells than its space tile",
                             0);
        if (r.var) {
          var_runs[w].push_back({run.result, run.len, run.tile, stride, t->values, t->offsets});
        } else if (stride == 1) {
          std::memcpy(r.values.data() + run.result * size, t->values.data() + run.tile * size, run.len * size);
        } else {
          for (std::size_t j = 0; j < run.len; ++j)
            std::memcpy(r.values.data() + (run.result + j) * size, t->values.data() + (run.tile + j * stride) * size,
                        size);
        }
        if (r.nullable)
          for (std::size_t j = 0; j < run.len; ++j) r.validity[run.result + j] = t->validity[run.tile + j * stride];
      }
    };
    for (const auto& [b, p] : batch[w].parts) {
      if (plan.skips(p.tile_lo)) continue;
      won_runs(p, boxes[b], order, g, fb.newer[k], runs);
      if (runs.empty()) continue;  // newer fragments cover this part of the tile
      if (!has) {  // the fragment's schema predates the attribute
        // (Validity starts as the fill validity.)
        for (const auto& run : runs) {
          if (!r.var)
            for (std::size_t j = 0; j < run.len; ++j)
              std::memcpy(r.values.data() + (run.result + j) * size, fill.data(), size);
          if (predating)
            std::fill_n(predating->begin() + static_cast<std::ptrdiff_t>(run.result), run.len, std::uint8_t{1});
        }
        continue;
      }
      if (plain || defer) {
        plain_runs.insert(plain_runs.end(), runs.begin(), runs.end());
        continue;
      }
      take_runs(runs);
    }
    if (r.var && !plain_runs.empty()) {
      // A tile the result takes whole and in order, whose size the
      // metadata gives, is decoded into its place once every size is known.
      const auto tile = static_cast<std::size_t>(batch[w].tile);
      const std::uint64_t cells = frag.tile_cells(tile);
      const auto at = whole_tile_run(plain_runs, stride, cells);
      if (const auto bytes = at ? frag.var_tile_bytes(*fi, tile) : std::nullopt) {
        later[w] = dense_field::deferred_tile{&frag, *fi, tile};
        var_runs[w].push_back({*at, static_cast<std::size_t>(cells), 0, 1, {}, {}, w, *bytes});
      } else {
        take_runs(plain_runs);
      }
      plain_runs.clear();
    }
    if (!plain_runs.empty()) {
      const auto tile = static_cast<std::size_t>(batch[w].tile);
      const std::uint64_t cells = frag.tile_cells(tile);
      if (const auto at = whole_tile_run(plain_runs, stride, cells)) {
        // The tile decodes straight into the result: no tile buffer, no copy.
        frag.read_values_as_stored_into(*fi, tile,
                                        std::span(r.values.data() + *at * size, static_cast<std::size_t>(cells) * size),
                                        ahead.of(r.name));
      } else if (stride == 1) {
        // Only the chunks that hold cells of the runs, each run's cells
        // unfiltered straight to its place where the pipeline allows.
        std::vector<cell_copy> copies;
        copies.reserve(plain_runs.size());
        for (const auto& run : plain_runs) copies.push_back({run.tile, run.len, r.values.data() + run.result * size});
        frag.read_cells_into(*fi, tile, copies, ahead.of(r.name));
      } else {
        // A chunk at a time, only the chunks that hold cells of the runs.
        frag.read_values_in_chunks(
            *fi, tile, [&](std::size_t first, std::size_t last) { return runs_meet(plain_runs, stride, first, last); },
            [&](std::size_t first, std::span<const std::byte> values) {
              copy_runs_within(plain_runs, stride, first, values, size, r.values.data());
            },
            ahead.of(r.name));
      }
    }
    // Fixed-size values are copied; var-size cells point into the tile.
    if (r.var && t) var_tiles[w] = std::move(t);
  });
  // Moving a tile keeps its buffers where they are: the views stay valid.
  for (auto& t : var_tiles)
    if (t) f.kept.push_back(std::move(*t));
  for (auto& runs : var_runs)
    for (auto& piece : runs) {
      if (piece.deferred != var_piece::none) {
        f.deferred.push_back(*later[piece.deferred]);
        piece.deferred = f.deferred.size() - 1;
      }
      f.pieces.push_back(piece);
    }
}

/// What both dense passes (reading cells, folding them into aggregates)
/// start from: the subarray's boxes, the result's order, each fragment's
/// grid and domain, and whether some cell is written by no fragment.
struct dense_setup {
  std::vector<cell_box> boxes;
  std::optional<result_order> order;
  fragment_boxes fb;
  std::vector<std::size_t> written;  // fragments that wrote something
  bool unwritten = false;
  std::size_t cells = 0;

  explicit dense_setup(const read_plan& plan) {
    const auto& schema = plan.schema();
    for (std::size_t d = 0; d < plan.sub.dim_num(); ++d)
      if (!plan.sub.dim(d).integral)
        throw std::invalid_argument("tilefmt: query: dimension \"" + schema.domain.dimensions.value[d].name.value +
                                    "\" of a dense array is not an integer, date or time dimension");
    auto [b, widths] = dense_boxes(plan.sub);
    boxes = std::move(b);
    if (plan.layout == query_layout::global_order && boxes.size() > 1)
      throw std::invalid_argument("tilefmt: query: several ranges per dimension cannot be read in global order "
                                  "(TileDB refuses it too)");
    if (plan.layout == query_layout::unordered)
      throw std::invalid_argument("tilefmt: query: a dense array has no unordered layout (TileDB refuses it too)");
    // The size is checked before result_order allocates its bookkeeping (a
    // count per space tile, for global order): a damaged schema can declare
    // a domain of 2^64 cells in tiles of one.
    std::uint64_t n = 1;
    for (const auto w : widths) {
      if (w == 0 || n > std::numeric_limits<std::uint64_t>::max() / w)
        throw std::invalid_argument("tilefmt: query: the subarray has more than 2^64 cells");
      n *= w;
    }
    plan.check_size(plan.sinks ? 0 : n,
                    (plan.where ? 1 : 0) + (plan.layout == query_layout::global_order ? 8 : 0));
    order.emplace(widths, boxes.front(), plan.layout, schema);
    cells = static_cast<std::size_t>(order->cell_num());

    // Each fragment's grid and domain; the cells it wins are those of its
    // domain outside the newer ones' (won_runs).
    const auto& frags = plan.arr.fragments();
    fb.grids.resize(frags.size());
    fb.domains.resize(frags.size());
    fb.newer.resize(frags.size());
    for (std::size_t k = 0; k < frags.size(); ++k) {
      const auto& f = frags[k];
      plan.check_fragment(f);
      if (!f.dense())
        throw std::invalid_argument("tilefmt: query: fragment " + f.name().str() +
                                    " of a dense array is sparse; not supported yet");
      if (f.footer().null_non_empty_domain) continue;
      fb.grids[k].emplace(dense_grid::of_region(f.schema(), f.non_empty_domain()));
      auto& box = fb.domains[k];
      for (const auto& r : fb.grids[k]->ranges()) box.lo.push_back(r.from), box.hi.push_back(r.from + (r.width - 1));
      written.push_back(k);
    }
    for (std::size_t i = 0; i < written.size(); ++i)
      for (std::size_t j = i + 1; j < written.size(); ++j) fb.newer[written[i]].push_back(&fb.domains[written[j]]);
    // Cells no fragment wrote: none when each ND range lies in some fragment's domain.
    for (const auto& box : boxes)
      unwritten = unwritten || std::none_of(written.begin(), written.end(),
                                            [&](std::size_t k) { return fb.domains[k].holds(box); });
  }
};

/// Folds the cells of the subarray that fragments won into `plan.sinks`
/// (the aggregates of fixed-size attributes, without a condition) straight
/// from the tiles, on the array's threads: no result is materialised, and
/// the cells no fragment wrote and the tiles plan.skip_tile names are left
/// out. Returns the subarray's cell count.
inline std::uint64_t fold_dense(const read_plan& plan) {
  const dense_setup ds(plan);
  const auto& frags = plan.arr.fragments();
  const unsigned threads = plan.arr.options().threads;
  for (auto& agg : *plan.sinks) {
    if (agg.op() == aggregate_op::count) continue;
    const std::string& name = agg.field_name();
    const auto& attr = plan.attribute(name);
    const std::size_t size = attr.cell_size();
    std::vector<std::size_t> folded;  // the fragments whose cells are folded
    for (std::size_t k : ds.written) {
      const auto& frag = frags[k];
      const auto& g = *ds.fb.grids[k];
      // No result bounds the walk over the tiles, as it bounds reads: the
      // fragment must store the tiles its domain spans (a damaged domain
      // could span 2^64).
      if (g.tile_num() > frag.tile_num())
        throw format_error("fragment " + frag.name().str() + ": the non-empty domain spans " +
                               std::to_string(g.tile_num()) + " tiles, the fragment stores " +
                               std::to_string(frag.tile_num()),
                           0);
      // A fragment that predates the attribute reads as its fill value, but
      // TileDB's aggregates leave its cells out, as cells nobody wrote
      // (TileDB-Py 0.36.1 on arrays evolved by libtiledb 2.4 and 2.6: SUM and
      // MEAN of the added attribute over the newer fragment's cells only).
      if (has_attribute(frag.schema(), name)) folded.push_back(k);
    }
    std::mutex merge;
    const std::string names[] = {name};
    for_each_fetched_batch(
        plan, ds.fb, folded, ds.boxes, *ds.order, names,
        [&](std::size_t k, const std::vector<tile_work>& batch, const batch_fetch& ahead) {
        const auto& frag = frags[k];
        const auto& g = *ds.fb.grids[k];
        const std::size_t stride = tile_stride(g, ds.order->run_dim());
        const field_info fi = frag.field(name);
        parallel_for(batch.size(), threads, [&](std::size_t w) {
          std::vector<won_run> runs;
          std::optional<tile_data> t;
          aggregator local = agg.empty_copy();
          std::vector<std::byte> gathered;
          std::vector<std::uint8_t> gathered_validity;
          for (const auto& [b, p] : batch[w].parts) {
            if (plan.skips(p.tile_lo)) continue;
            won_runs(p, ds.boxes[b], *ds.order, g, ds.fb.newer[k], runs);
            if (runs.empty()) continue;
            if (!t) t = frag.read_tile_as_stored(fi, static_cast<std::size_t>(batch[w].tile), ahead.of(name));
            const std::size_t cells = t->values.size() / size;
            for (const auto& run : runs) {
              const std::size_t last = run.tile + (run.len - 1) * stride;
              if (last >= cells || (attr.nullable.value && last >= t->validity.size()))
                throw format_error("a tile of fragment " + frag.name().str() + ", field " + name +
                                       " holds fewer cells than its space tile",
                                   0);
              const std::byte* v = t->values.data() + run.tile * size;
              const std::uint8_t* valid = attr.nullable.value ? t->validity.data() + run.tile : nullptr;
              if (stride != 1) {  // gathered into a run of its own
                gathered.resize(run.len * size);
                for (std::size_t j = 0; j < run.len; ++j)
                  std::memcpy(gathered.data() + j * size, t->values.data() + (run.tile + j * stride) * size, size);
                v = gathered.data();
                if (valid) {
                  gathered_validity.resize(run.len);
                  for (std::size_t j = 0; j < run.len; ++j) gathered_validity[j] = t->validity[run.tile + j * stride];
                  valid = gathered_validity.data();
                }
              }
              local.add_fixed(v, valid, run.len);
            }
          }
          const std::lock_guard<std::mutex> lock(merge);
          agg.merge(local);
        });
      });
  }
  return ds.order->cell_num();
}

/// Reads a dense array's subarray: the result's fields and cell count.
inline read_output read_dense(const read_plan& plan) {
  const dense_setup ds(plan);
  const auto& boxes = ds.boxes;
  const auto& order = *ds.order;
  const auto& fb = ds.fb;
  const auto& written = ds.written;
  const bool unwritten = ds.unwritten;
  const std::size_t n = ds.cells;
  const auto& frags = plan.arr.fragments();

  std::vector<std::uint8_t> failed;
  if (plan.where) {
    // Unwritten cells hold fill values, which are tested too: every cell
    // starts as the fill values fare, and the cells fragments win are
    // tested with their values.
    failed.assign(n, unwritten && !fill_passes(plan) ? 1 : 0);
    apply_condition(plan, frags, fb, written, boxes, order, failed);
  }
  const bool any_failed = std::find(failed.begin(), failed.end(), std::uint8_t{1}) != failed.end();
  std::vector<std::uint8_t> unwritten_cells;
  if (plan.aggregating && (unwritten || plan.skip_tile)) {
    unwritten_cells.assign(n, 1);
    mark_written(plan, frags, fb, boxes, order, unwritten_cells);
  }

  std::vector<result_field> out;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> predating_fields;
  // On an object store the fields' tiles of a batch are fetched together,
  // one pass for all fields (a pass ends waiting on its last batch);
  // elsewhere a pass per field, so that only one field's var-size tiles
  // are held at once.
  const bool together = plan.arr.storage().prefers_merged_reads();
  for (std::size_t first = 0; first < plan.names.size();) {
    const std::size_t last = together ? plan.names.size() : first + 1;
    const std::span<const std::string> names(plan.names.data() + first, last - first);
    std::vector<dense_field> fields;
    fields.reserve(names.size());
    for (const auto& name : names) {
      const auto& attr = plan.attribute(name);
      auto& f = fields.emplace_back(dense_field{plan.attribute_field(name), attr.fill(), {}, {}, {}, false, {}});
      result_field& r = f.r;
      // (Tiles are left for later where nothing was fetched ahead for them,
      // and no cell of theirs can turn into the fill.)
      f.defer_whole = r.var && !r.nullable && !any_failed && !together;
      const std::size_t size = f.fill.size();
      if (r.nullable) r.validity.assign(n, attr.fill_value_validity.value);
      if (!r.var) {
        r.values.resize(n * size);
        if (unwritten)
          for (std::size_t c = 0; c < n; ++c) std::memcpy(r.values.data() + c * size, f.fill.data(), size);
      }
      // Var-size cells are put together at the end from the tiles they are in.
      if (plan.aggregating && std::any_of(written.begin(), written.end(),
                                          [&](std::size_t k) { return !has_attribute(frags[k].schema(), name); }))
        f.predating.assign(n, 0);
    }
    for_each_fetched_batch(plan, fb, written, boxes, order, names,
                           [&](std::size_t k, const std::vector<tile_work>& batch, const batch_fetch& ahead) {
                             for (auto& f : fields) copy_won_cells(plan, frags[k], k, fb, boxes, order, batch, ahead, f);
                           });
    for (auto& f : fields) {
      result_field& r = f.r;
      const std::size_t size = f.fill.size();
      const std::uint8_t fill_validity = plan.attribute(r.name).fill_value_validity.value;
      if (!f.predating.empty()) predating_fields.emplace_back(r.name, std::move(f.predating));
      // Cells that failed the condition read as fill values.
      if (any_failed)
        for (std::size_t c = 0; c < n; ++c) {
          if (!failed[c]) continue;
          if (!r.var) std::memcpy(r.values.data() + c * size, f.fill.data(), size);
          if (r.nullable) r.validity[c] = fill_validity;
        }
      if (r.var)
        store_var_pieces(r, std::move(f.pieces), n, f.fill,
                         any_failed ? std::span<const std::uint8_t>(failed) : std::span<const std::uint8_t>{},
                         plan.arr.options().threads,
                         [&](std::size_t d, std::span<std::byte> values, std::span<std::uint64_t> offsets) {
                           const auto& later = f.deferred[d];
                           later.frag->read_var_tile_into(later.field, later.tile, values, offsets);
                         },
                         plan.arr.options().max_allocation);
      out.push_back(std::move(r));
    }
    first = last;
  }
  return {std::move(out), order.cell_num(), std::move(failed), std::move(unwritten_cells), {},
          std::move(predating_fields)};
}

} // namespace tilefmt::array::detail
