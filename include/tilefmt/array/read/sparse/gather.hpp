// tilefmt — the attributes of a sparse result, gathered from the tiles its
// cells come from: each tile read once (fetched ahead together where the
// storage prefers few requests), on the array's threads, each result cell
// written by the thread that reads its tile; fixed-size values decode
// straight into the result where the runs allow. Both sparse readers
// gather through it once they know which cells the result holds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/read/sparse/runs.hpp"
#include "tilefmt/array/support/parallel.hpp"

namespace tilefmt::array::detail {

class sparse_gather {
public:
  explicit sparse_gather(const read_plan& plan) : plan_(plan) {}

  /// The whole tile of a field in tile `tile` of fragment `frag` that the
  /// reader holds already (a var-size attribute its condition read, in
  /// sparse_one_range), if any.
  using held_tiles = std::function<const tile_data*(std::uint32_t frag, std::uint64_t tile, const std::string& name)>;
  /// Fields a reader assembled already (sparse_one_range's fixed-size attributes
  /// that its condition read), taken as they are by read_attributes.
  using ready_fields = std::map<std::string, result_field, std::less<>>;
  /// (fragment, tile) pairs.
  using tile_list = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

  /// Fields `names`' tiles `tiles` ((fragment, tile) pairs) of the
  /// fragments that have them, per field and fragment, when the array's
  /// storage prefers few requests (fetched_tiles.hpp); else none. Every
  /// field's and fragment's runs are requested together: on an object store
  /// each request waits for the first byte, so the wait is paid once, not
  /// once per fragment and field. No more requests are in flight than
  /// open_options::io_concurrency allows (requests_in_flight).
  std::vector<std::map<std::uint32_t, fetched_tiles>> fetch_ahead(const tile_list& tiles,
                                                                  std::span<const std::string> names) const {
    return fetch_each(names, std::vector<const tile_list*>(names.size(), &tiles));
  }
  /// fetch_ahead of field names[n]'s tiles *tiles[n], for every n at once.
  std::vector<std::map<std::uint32_t, fetched_tiles>> fetch_each(std::span<const std::string> names,
                                                                 const std::vector<const tile_list*>& tiles) const {
    std::vector<std::map<std::uint32_t, fetched_tiles>> out(names.size());
    if (!plan_.arr.storage().prefers_merged_reads()) return out;
    std::vector<std::map<std::uint32_t, std::vector<std::size_t>>> by_fragment(names.size());
    for (std::size_t n = 0; n < names.size(); ++n)
      for (const auto& [k, t] : *tiles[n]) by_fragment[n][k].push_back(static_cast<std::size_t>(t));
    const auto& frags = plan_.arr.fragments();
    struct job {
      std::size_t field;
      std::uint32_t frag;
      const std::vector<std::size_t>* tiles;
    };
    std::vector<job> jobs;
    for (std::size_t n = 0; n < names.size(); ++n) {
      const bool attribute = plan_.schema().attribute(names[n]) != nullptr;  // else a dimension, in every fragment
      for (const auto& [k, list] : by_fragment[n])
        if (!attribute || has_attribute(frags[k].schema(), names[n])) jobs.push_back({n, k, &list});
    }
    if (jobs.empty()) return out;
    const auto& opt = plan_.arr.options();
    const unsigned requests = requests_in_flight(opt, plan_.arr.storage(), thread_count(opt.threads));
    // Jobs at once, and each job's runs at once: together within `requests`.
    const auto at_once = static_cast<unsigned>(std::min<std::size_t>(requests, jobs.size()));
    const unsigned per_job = std::max(1u, requests / at_once);
    std::vector<fetched_tiles> fetched(jobs.size());
    parallel_for(jobs.size(), at_once, [&](std::size_t j) {
      const auto& f = frags[jobs[j].frag];
      fetched[j] = f.fetch_tiles(f.field(names[jobs[j].field]), *jobs[j].tiles, per_job);
    });
    for (std::size_t j = 0; j < jobs.size(); ++j) out[jobs[j].field].emplace(jobs[j].frag, std::move(fetched[j]));
    return out;
  }
  static const fetched_tiles* ahead_of(const std::map<std::uint32_t, fetched_tiles>& ahead, std::uint32_t k) {
    const auto it = ahead.find(k);
    return it == ahead.end() ? nullptr : &it->second;
  }

  /// For aggregates: the tiles of `groups` all of whose cells are in the
  /// result.
  std::vector<read_output::whole_tile> whole_tiles(const run_groups& groups) const {
    std::vector<read_output::whole_tile> out;
    if (!plan_.aggregating) return out;
    const auto& frags = plan_.arr.fragments();
    std::vector<tile_run> scratch;
    for (std::size_t j = 0; j < groups.size(); ++j) {
      if (groups.cells(j) != frags[groups.frag(j)].tile_cells(static_cast<std::size_t>(groups.tile(j)))) continue;
      read_output::whole_tile w{groups.frag(j), groups.tile(j), {}};
      for (const auto& r : groups.runs(j, scratch)) w.runs.emplace_back(r.out, r.count);
      out.push_back(std::move(w));
    }
    return out;
  }

  /// Appends each attribute's field of an `n`-cell result made of the runs
  /// of `groups`: each tile read once, on the array's threads, and
  /// each result cell written by the thread that reads its tile. Tiles
  /// `held` has are taken from it, fields `ready` has as they are. With
  /// `whole` (the groups of runs are read_output::whole_tiles when they
  /// cover their tile), a whole tile the plan's aggregates answer from its
  /// metadata (read_plan::answered) is not read: its cells keep zero bytes,
  /// which the aggregates leave out.
  void read_attributes(std::vector<result_field>& out, std::size_t n, const run_groups& groups,
                       bool whole = false, const held_tiles& held = {}, ready_fields* ready = nullptr) const {
    const auto& frags = plan_.arr.fragments();
    // Which groups are whole tiles (every cell in the result).
    std::vector<std::uint8_t> full(groups.size(), 0);
    if (whole && plan_.aggregating && plan_.answered)
      for (std::size_t j = 0; j < groups.size(); ++j)
        full[j] = groups.cells(j) == frags[groups.frag(j)].tile_cells(static_cast<std::size_t>(groups.tile(j)));
    // Each field's tiles to read (not answered from metadata, not held, not
    // ready), all fields' fetched together.
    std::vector<tile_list> to_read(plan_.names.size());
    if (plan_.arr.storage().prefers_merged_reads())
      for (std::size_t i = 0; i < plan_.names.size(); ++i) {
        const auto& name = plan_.names[i];
        if (ready && ready->count(name)) continue;
        for (std::size_t j = 0; j < groups.size(); ++j) {
          const std::uint32_t f = groups.frag(j);
          const std::uint64_t t = groups.tile(j);
          if (full[j] && plan_.answered(frags[f], t, name)) continue;
          if (held && held(f, t, name)) continue;
          to_read[i].emplace_back(f, t);
        }
      }
    std::vector<const tile_list*> lists;
    for (const auto& l : to_read) lists.push_back(&l);
    auto aheads = fetch_each(plan_.names, lists);
    for (std::size_t i = 0; i < plan_.names.size(); ++i) {
      const auto& name = plan_.names[i];
      if (ready) {
        if (const auto it = ready->find(name); it != ready->end()) {
          out.push_back(std::move(it->second));
          continue;
        }
      }
      const auto& attr = plan_.attribute(name);
      result_field r = plan_.attribute_field(name);
      const std::vector<std::byte> fill = attr.fill();
      const std::size_t size = fill.size();
      if (r.nullable) r.validity.assign(n, attr.fill_value_validity.value);
      if (!r.var) r.values.resize(n * size);
      column<std::span<const std::byte>> var_cells(r.var ? n : 0, std::span<const std::byte>(fill));
      std::vector<std::optional<tile_data>> kept(r.var ? groups.size() : 0);  // var-size cells point into these
      // Released with its field: the stored bytes are decoded below.
      const auto ahead = std::move(aheads[i]);
      parallel_for(groups.size(), threads(), [&](std::size_t j) {
        const std::uint32_t f = groups.frag(j);
        const std::uint64_t tile = groups.tile(j);
        const auto& frag = frags[f];
        if (full[j] && plan_.answered(frag, tile, name)) return;
        std::optional<tile_data> read;
        const tile_data* t = held ? held(f, tile, name) : nullptr;
        // Kept by each thread from tile to tile (a fresh vector a tile
        // faulted its pages in every time), the runs made a bounded number
        // at a time: a tile of fragments merged cell by cell has a run a
        // cell, and a scratch as large as its tile stayed with each of the
        // pool's threads (29 MB at two threads).
        thread_local std::vector<tile_run> scratch;
        const std::size_t tile_cells = frag.tile_cells(static_cast<std::size_t>(tile));
        run_groups::run_cursor from;
        // Beyond this many runs, read_values_unbuffered reads the tile whole.
        const std::size_t limit = std::max<std::size_t>(run_batch, tile_cells / short_run + 1);
        std::span<const tile_run> group_runs = groups.next_runs(j, from, scratch, limit);
        if (!t && !r.var && !r.nullable && has_attribute(frag.schema(), name) && from.done &&
            read_values_unbuffered(frag, tile, name, group_runs, r.values.data(), size, ahead_of(ahead, f)))
          return;
        if (!t && has_attribute(frag.schema(), name)) {
          read = frag.read_tile(frag.field(name), static_cast<std::size_t>(tile), ahead_of(ahead, f));
          t = &*read;
        }
        for (;;) {
          for (const tile_run& run : group_runs) {
            if (!t) {  // the fragment's schema predates the attribute: its fill value
              if (!r.var)
                for (std::size_t c = run.out; c < run.out + run.count; ++c)
                  std::memcpy(r.values.data() + c * size, fill.data(), size);
              continue;
            }
            const std::size_t span = run.covered();
            const std::size_t have = r.var ? t->offsets.size() : t->values.size() / size;
            if (run.pos + span > have || (r.nullable && run.pos + span > t->validity.size()))
              throw format_error("a tile of fragment " + frag.name().str() + ", field " + name + " holds fewer cells " +
                                     "than its coordinates",
                                 0);
            if (!r.var) {
              copy_run_cells(r, *t, run, size);
              continue;
            }
            for (std::size_t k = 0, c = run.out; k < span; ++k)
              if (!run.select || run.select[k]) var_cells[c++] = var_cell(t->values, t->offsets, run.pos + k);
            if (r.nullable)
              copy_run(reinterpret_cast<std::byte*>(r.validity.data()) + run.out, t->validity.data(), run, 1);
          }
          if (from.done) break;
          group_runs = groups.next_runs(j, from, scratch, run_batch);
        }
        if (r.var && read) kept[j] = std::move(read);
      });
      if (r.var) store_var_cells(r, var_cells);
      out.push_back(std::move(r));
    }
  }

private:
  /// Fixed-size attribute `name`'s cells of `runs` (all from one tile of
  /// fragment `frag`) into `out` (cells of `size` bytes), without a tile
  /// buffer: straight into the result when the runs take the whole tile in
  /// its order to one stretch of it, else only the chunks that hold cells
  /// of the runs (fragment::read_cells_into). False, with nothing read, for
  /// runs that select cells (a condition's): their tile is read whole.
  bool read_values_unbuffered(const fragment& frag, std::uint64_t tile, const std::string& name,
                              std::span<const tile_run> runs, std::byte* out, std::size_t size,
                              const fetched_tiles* ahead) const {
    if (std::any_of(runs.begin(), runs.end(), [](const tile_run& r) { return r.select != nullptr; })) return false;
    const auto& field = frag.field(name);
    const std::uint64_t cells = frag.tile_cells(static_cast<std::size_t>(tile));
    // Whole: the runs follow each other in the tile and in the result.
    std::size_t next = 0;
    for (const auto& r : runs) {
      if (r.pos != next || r.out != runs.front().out + next) {
        next = 0;  // not in order, or a cell twice (ranges that overlap)
        break;
      }
      next += r.count;
    }
    if (next == cells && cells != 0) {
      frag.read_values_as_stored_into(field, static_cast<std::size_t>(tile),
                                      std::span(out + runs.front().out * size, static_cast<std::size_t>(cells) * size),
                                      ahead);
      return true;
    }
    // Runs of a cell or two over most of the tile (fragments merged cell by
    // cell): the tile decoded whole and copied from costs less than a piece
    // a run (measured: a merge of 4 fragments read 6% faster).
    if (runs.size() * short_run > cells && cells != 0) return false;
    for (const auto& r : runs)
      if (r.pos + r.count > cells)
        throw format_error("a tile of fragment " + frag.name().str() + ", field " + name + " holds fewer cells " +
                               "than its coordinates",
                           0);
    // Each run's cells to its place in the result (the fragment decodes only
    // the chunks that hold some, and a byte shuffle writes them there).
    std::vector<cell_copy> copies;
    copies.reserve(runs.size());
    for (const auto& r : runs) copies.push_back({r.pos, r.count, out + r.out * size});
    frag.read_cells_into(field, static_cast<std::size_t>(tile), copies, ahead);
    return true;
  }

  unsigned threads() const { return plan_.arr.options().threads; }

  /// Runs averaging fewer cells than this over a tile's cells are read from
  /// the whole tile decoded (read_values_unbuffered).
  static constexpr std::size_t short_run = 4;
  /// Runs made at a time where they are read from a decoded tile.
  static constexpr std::size_t run_batch = 4096;

  const read_plan& plan_;
};

} // namespace tilefmt::array::detail
