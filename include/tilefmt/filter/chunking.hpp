// tilefmt — how TileDB splits a tile into chunks before filtering
// (tiledb/sm/tile/tile.cc compute_chunk_size, tiledb/sm/filter/
// filter_pipeline.cc get_var_chunk_sizes and filter_chunks_forward).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

namespace tilefmt::filter {

/// TileDB's process-wide chunk size. A pipeline's stored max_chunk_size only
/// says whether chunking is on.
inline constexpr std::size_t max_tile_chunk_size = 65536;

/// One chunk of a tile: [offset, offset + size).
struct chunk_range {
  std::size_t offset;
  std::size_t size;
  friend bool operator==(const chunk_range&, const chunk_range&) = default;
};

/// The chunk size of a tile: min(64 KiB, tile size) rounded down to whole
/// cells, and at least one cell, so a chunk never splits a cell.
inline std::size_t chunk_size_for(std::size_t tile_size, std::size_t cell_size) {
  if (cell_size == 0) throw std::invalid_argument("tilefmt: cell size 0");
  std::size_t cs = std::min(max_tile_chunk_size, tile_size);
  cs = cs / cell_size * cell_size;
  cs = std::max(cs, cell_size);
  if (cs > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("tilefmt: chunk size exceeds uint32");
  return cs;
}

/// Chunks of a fixed-size tile (also offsets, validity and generic tiles).
/// With chunking off the whole tile is one chunk. An empty tile has no
/// chunks when chunking is on, and one empty chunk when it is off.
inline std::vector<chunk_range> fixed_chunks(std::size_t tile_size, std::size_t cell_size, bool chunking = true) {
  std::size_t cs = chunking ? chunk_size_for(tile_size, cell_size) : tile_size;
  if (tile_size == cs) return {{0, tile_size}};
  std::vector<chunk_range> out;
  std::size_t n = tile_size / cs;
  out.reserve(n + 1);
  for (std::size_t i = 0; i < n; ++i) out.push_back({i * cs, cs});
  if (tile_size % cs) out.push_back({n * cs, tile_size % cs});
  return out;
}

/// Chunks of a var-size data tile, from the cell offsets (relative to the
/// tile, one per cell): TileDB's heuristic that keeps cells whole, lets a
/// chunk grow to 1.5x the chunk size to take in a cell, and gives a cell
/// larger than a chunk a chunk of its own. When the last cell closes a
/// chunk, a final chunk of zero bytes follows, as TileDB writes it.
inline std::vector<chunk_range> var_chunks(std::size_t tile_size, std::span<const std::uint64_t> offsets,
                                           std::size_t datatype_size, bool chunking = true) {
  std::size_t cs = chunking ? chunk_size_for(tile_size, datatype_size) : tile_size;
  if (tile_size == cs) return {{0, tile_size}};
  const std::uint64_t min_size = cs / 2, max_size = cs + cs / 2;
  std::vector<std::uint64_t> starts{0};
  std::uint64_t current = 0;
  const std::size_t n = offsets.size();
  for (std::size_t c = 0; c < n; ++c) {
    if (offsets[c] > tile_size || (c + 1 < n && offsets[c + 1] < offsets[c]))
      throw std::invalid_argument("tilefmt: var tile offsets are not increasing within the tile");
    std::uint64_t cell = (c == n - 1 ? tile_size : offsets[c + 1]) - offsets[c];
    std::uint64_t grown = current + cell;
    if (grown <= cs) {
      current = grown;
    } else if (current <= min_size || grown <= max_size) {
      if (grown > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("tilefmt: chunk exceeds uint32");
      starts.push_back(offsets[c] + cell); // this cell closes the chunk
      current = 0;
    } else {
      starts.push_back(offsets[c]); // this cell opens a new chunk
      if (cell > cs) {
        if (cell > std::numeric_limits<std::uint32_t>::max()) throw std::length_error("tilefmt: chunk exceeds uint32");
        if (c != n - 1) starts.push_back(offsets[c] + cell);
        current = 0;
      } else {
        current = cell;
      }
    }
  }
  std::vector<chunk_range> out;
  out.reserve(starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::uint64_t end = i + 1 < starts.size() ? starts[i + 1] : tile_size;
    out.push_back({static_cast<std::size_t>(starts[i]), static_cast<std::size_t>(end - starts[i])});
  }
  return out;
}

} // namespace tilefmt::filter
