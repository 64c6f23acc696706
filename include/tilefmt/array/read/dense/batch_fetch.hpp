// tilefmt — the dense reader's batches of tiles, and their stored bytes
// fetched ahead of the threads that decode them.
//
// The dense passes (reader.hpp) walk each fragment's tiles in batches
// (geometry.hpp: for_each_tile_batch) and decode a batch on the array's
// threads. On an object store a batch's tiles are one or a few ranged
// requests, and each waits for the store's first byte: fetched one after
// another, a read of eight fragments is as many waits as batches. Here the
// batches of all the fragments a pass reads are fetched ahead, up to
// open_options::io_concurrency at once, while the oldest fetched batch is
// decoded: batches are still decoded one at a time and in order, so the
// passes keep their one-writer-per-cell rule, and what waits for the
// network is only ever the next batch. At most that many batches' stored
// bytes are held beside the result.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <future>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/dense_grid.hpp"
#include "tilefmt/array/read/dense/geometry.hpp"
#include "tilefmt/array/read/read_plan.hpp"
#include "tilefmt/array/support/function_ref.hpp"
#include "tilefmt/array/support/parallel.hpp"

namespace tilefmt::array::detail {

/// The fragments the query reads: each one's grid (none: it wrote nothing)
/// and non-empty domain, and for each the domains of the newer ones.
struct fragment_boxes {
  std::vector<std::optional<dense_grid>> grids;
  std::vector<domain_box> domains;
  std::vector<std::vector<const domain_box*>> newer;  // [k]: the domains of fragments after k
};

/// The stored bytes of a batch's tiles, per field (fetch_batch).
struct batch_fetch {
  std::vector<std::pair<std::string, fetched_tiles>> fields;
  /// Field `name`'s tiles, or null: read each tile on its own.
  const fetched_tiles* of(const std::string& name) const {
    for (const auto& [n, t] : fields)
      if (n == name) return &t;
    return nullptr;
  }
};

/// The tiles of `batch` a pass reads from fragment `k` (those with a part
/// the plan does not skip that no newer fragment covers), fetched together
/// when the array's storage prefers few requests (fetched_tiles.hpp), for
/// each field in `names` the fragment has, `requests` reads at once;
/// elsewhere nothing, and each tile is read as it is decoded.
inline batch_fetch fetch_batch(const read_plan& plan, const fragment& frag, const fragment_boxes& fb, std::size_t k,
                               const std::vector<tile_work>& batch, const std::vector<cell_box>& boxes,
                               const result_order& order, std::span<const std::string> names, unsigned requests) {
  batch_fetch out;
  if (!plan.arr.storage().prefers_merged_reads()) return out;
  std::vector<char> needed(batch.size(), 0);
  parallel_for(batch.size(), plan.arr.options().threads, [&](std::size_t w) {
    std::vector<won_run> runs;
    for (const auto& [b, p] : batch[w].parts) {
      if (plan.skips(p.tile_lo)) continue;
      won_runs(p, boxes[b], order, *fb.grids[k], fb.newer[k], runs);
      if (!runs.empty()) {
        needed[w] = 1;
        return;
      }
    }
  });
  std::vector<std::size_t> tiles;
  for (std::size_t w = 0; w < batch.size(); ++w)
    if (needed[w]) tiles.push_back(static_cast<std::size_t>(batch[w].tile));
  for (const auto& name : names)
    if (has_attribute(frag.schema(), name)) out.fields.emplace_back(name, frag.fetch_tiles(frag.field(name), tiles, requests));
  return out;
}

/// Calls decode(k, batch, fetched) for every batch of tiles of every
/// fragment in `ks` (in that order, each fragment's batches in
/// for_each_tile_batch's order), with the stored bytes of fields `names`
/// fetched ahead where the storage prefers few requests: batches are
/// fetched while the oldest is decoded, with no more requests in flight
/// than open_options::io_concurrency allows (requests_in_flight): each
/// batch's reads a few at a time (no more than the decoding threads), as
/// many batches as that leaves room for. Elsewhere tiles are read as they
/// are decoded, and nothing runs ahead.
inline void for_each_fetched_batch(
    const read_plan& plan, const fragment_boxes& fb, std::span<const std::size_t> ks, const std::vector<cell_box>& boxes,
    const result_order& order, std::span<const std::string> names,
    function_ref<void(std::size_t, const std::vector<tile_work>&, const batch_fetch&)> decode) {
  const auto& frags = plan.arr.fragments();
  const auto& opt = plan.arr.options();
  if (!plan.arr.storage().prefers_merged_reads()) {
    for (const std::size_t k : ks)
      for_each_tile_batch(*fb.grids[k], boxes, opt.threads,
                          [&](const std::vector<tile_work>& batch) { decode(k, batch, batch_fetch{}); });
    return;
  }
  struct pending {
    std::size_t k;
    std::vector<tile_work> batch;
    std::future<batch_fetch> fetched;
  };
  // A deque keeps its elements in place as it grows at the back and
  // shrinks at the front: each fetch refers to its own element. On an
  // error the futures left are waited for as the deque goes.
  std::deque<pending> ahead;
  const unsigned requests = requests_in_flight(opt, plan.arr.storage(), thread_count(opt.threads));
  const unsigned per_batch = std::min(requests, thread_count(opt.threads));
  const std::size_t window = std::max(1u, requests / per_batch);
  auto decode_oldest = [&] {
    const batch_fetch fetched = ahead.front().fetched.get();
    decode(ahead.front().k, ahead.front().batch, fetched);
    ahead.pop_front();
  };
  for (const std::size_t k : ks)
    for_each_tile_batch(*fb.grids[k], boxes, opt.threads, [&](const std::vector<tile_work>& batch) {
      auto& p = ahead.emplace_back(pending{k, batch, {}});
      // async|deferred: where no thread can be started, the fetch runs
      // when its batch is decoded (and always without threads, where
      // std::async would wait for a thread that never starts).
      p.fetched = std::async(threads_available ? std::launch::async | std::launch::deferred : std::launch::deferred,
                             [&plan, &frags, &fb, &boxes, &order, names, per_batch, &p] {
                               return fetch_batch(plan, frags[p.k], fb, p.k, p.batch, boxes, order, names, per_batch);
                             });
      if (ahead.size() >= window) decode_oldest();
    });
  while (!ahead.empty()) decode_oldest();
}

} // namespace tilefmt::array::detail
