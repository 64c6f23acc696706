// tilefmt — how an array is opened for reading.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "tilefmt/storage/backend.hpp"

namespace tilefmt::array {

struct open_options {
  /// AES-256-GCM key of an encrypted array (32 bytes), or empty.
  std::vector<std::uint8_t> encryption_key{};
  /// Open at [timestamp_start, timestamp_end] (ms since the epoch).
  std::uint64_t timestamp_start = 0;
  std::uint64_t timestamp_end = std::numeric_limits<std::uint64_t>::max();
  /// Open the array even when some fragments' metadata cannot be read;
  /// those are left out of fragments() and listed by damaged_fragments().
  bool skip_damaged_fragments = false;
  /// Skip checksum verification for speed.
  bool verify_checksums = true;
  /// Threads decoding the tiles of a column read or a query (0: one per
  /// core the process may use).
  unsigned threads = 0;
  /// Requests in flight at once (TileDB's vfs.s3.max_parallel_ops): while
  /// opening the array, each fragment's metadata; in a query, the tiles of
  /// all fragments and fields fetched together (a dense query's batches
  /// ahead of the decoding threads). 0: 16 where the
  /// storage is an object store, whose latency and not its CPU sets the
  /// time, and `threads` elsewhere (requests_in_flight).
  unsigned io_concurrency = 0;
  /// The most bytes one file, tile, decompressed part or whole-column read
  /// may claim. Anything larger is refused before it is allocated: a damaged
  /// or hostile array cannot make the reader allocate more than this at
  /// once. Columns larger than this are read tile by tile (read_tile).
  std::uint64_t max_allocation = std::uint64_t{4} << 30;
  /// The most of a tile's stored bytes a reader holds at once where the
  /// storage takes many small requests well (local files, memory): a tile
  /// stored in more is read a piece of about this size at a time, its
  /// chunks decoded as they come, so that each decoding thread holds about
  /// this much beside the result. Object stores read each tile whole, in one
  /// request.
  std::uint64_t tile_read_window = std::uint64_t{256} << 10;
  /// Where the array's files are; null: the local file system.
  std::shared_ptr<const storage::backend> storage{};
};

namespace detail {
/// The requests `opt` lets run at once on `storage` (open_options::io_concurrency).
inline unsigned requests_in_flight(const open_options& opt, const storage::backend& storage, unsigned cores) {
  if (opt.io_concurrency) return opt.io_concurrency;
  return storage.prefers_merged_reads() ? 16u : cores;
}
} // namespace detail

} // namespace tilefmt::array
