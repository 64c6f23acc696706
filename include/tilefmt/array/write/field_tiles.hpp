// tilefmt — what a fragment writer keeps of each field while it writes: its
// encoded tiles (or the files they are streamed to), where each starts, and
// their tile metadata; and what the footer says of the fragment's extent.
// Tiles are appended to a field's data files with append_tile.
// The fragment builder fills these; fragment_metadata_file.hpp turns them
// into `__fragment_metadata.tdb`.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/write/tile_metadata.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/fragment_metadata.hpp"
#include "tilefmt/storage/backend.hpp"

namespace tilefmt::array::detail {

/// What a field whose tiles are streamed (fragment_builder::begin_stream)
/// keeps from tile to tile: its data files, open until the commit, and its
/// pipelines, built once.
struct field_stream {
  std::unique_ptr<storage::file_writer> file, var_file, validity_file;
  std::optional<filter::runtime_pipeline> pipeline, offsets_pipeline;
  filter::tile_context context, offsets_context;
  bool skip_offsets = false;
  std::vector<std::byte> tile, offsets_tile;  // each encoded tile, reused
};

/// One field's encoded tiles and their metadata.
struct field_tiles {
  bool set = false;
  // Data files are array::column buffers: huge pages where the system
  // allows, so that first touching hundreds of MiB of encoded tiles does
  // not take a page fault every 4 KiB.
  column<std::byte> file;                    // fixed tiles, or var offsets tiles, back to back (a<i>.tdb)
  std::vector<std::uint64_t> offsets;        // where each tile starts
  column<std::byte> var_file;                // var tiles (a<i>_var.tdb)
  std::vector<std::uint64_t> var_offsets;    // where each var tile starts
  std::vector<std::uint64_t> var_sizes;      // each var tile's unfiltered size
  std::vector<std::byte> validity_file;      // validity tiles (a<i>_validity.tdb)
  std::vector<std::uint64_t> validity_offsets;
  std::vector<tile_stats> stats;             // as stored: all-null tiles keep zero min/max
  /// Streamed: the tiles went to these files instead of the three above.
  std::unique_ptr<field_stream> stream;

  std::uint64_t file_size() const { return stream ? stream->file->size() : file.size(); }
  std::uint64_t var_file_size() const { return stream && stream->var_file ? stream->var_file->size() : var_file.size(); }
  std::uint64_t validity_file_size() const {
    return stream && stream->validity_file ? stream->validity_file->size() : validity_file.size();
  }
};

/// What the footer and R-tree say of a fragment's extent.
struct fragment_shape {
  bool dense = true;
  /// The commits (delete markers) already applied to the cells, as a
  /// consolidation records them.
  std::vector<std::string> processed_conditions;
  format::MBR non_empty_domain;
  format::RTree rtree;                      // dense: no levels
  std::uint64_t sparse_tile_num = 0;
  std::uint64_t last_tile_cell_num = 0;     // dense: the cells of a space tile
  /// Dense: written as TileDB's global-order writer writes (tile by tile),
  /// not its ordered dense writer, whose var min/max quirk
  /// (var_min_max_slots) it does not share.
  bool global_order = false;
};

/// Appends an encoded tile to a data file and records where it starts.
template <class File>
void append_tile(File& file, std::vector<std::uint64_t>& offsets, std::span<const std::byte> tile) {
  offsets.push_back(file.size());
  file.insert(file.end(), tile.begin(), tile.end());
}

/// The same for a file streamed to storage.
inline void append_tile(storage::file_writer& file, std::vector<std::uint64_t>& offsets, std::span<const std::byte> tile) {
  offsets.push_back(file.size());
  file.append(tile);
}

/// The same for a tile of a pipeline without filters, made of `cells` as
/// it goes to the file (filter::runtime_pipeline::unfiltered_pieces).
inline void append_unfiltered(storage::file_writer& file, std::vector<std::uint64_t>& offsets,
                              const filter::runtime_pipeline& rp, const filter::tile_context& ctx,
                              std::span<const std::byte> cells) {
  offsets.push_back(file.size());
  rp.unfiltered_pieces(cells, ctx, [&](std::span<const std::byte> b) { file.append(b); });
}

/// Makes room in a data file for what its remaining tiles will likely hold,
/// judged by the `done` of `total` tiles appended so far: one allocation of
/// about the final size instead of repeated doublings, each of which would
/// hold the old and the new buffer at once.
template <class File>
void reserve_file(File& file, std::size_t done, std::size_t total) {
  if (done == 0 || done >= total || file.empty()) return;
  const std::size_t want = file.size() / done * total + file.size() / done / 2 * (total - done);
  if (want > file.capacity()) file.reserve(want);
}

} // namespace tilefmt::array::detail
