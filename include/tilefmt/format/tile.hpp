// tilefmt — a filtered tile and its chunks (format_spec/tile.md,
// "Main Structure" and "Chunk Format").
#pragma once

#include <cstdint>
#include <vector>

#include "tilefmt/codec/codec.hpp"

namespace tilefmt::format {

/// One chunk: lengths, then the stacked filter metadata, then the filtered
/// bytes. `Bytes` is std::vector<std::byte> to own them, or
/// codec::le_span<std::byte> to point into the tile without copying.
template <class Bytes>
struct BasicChunk {
  std::uint32_t original_length;                               // unfiltered bytes of this chunk
  codec::count_of<"data", std::uint32_t> filtered_length;      // bytes of `data`
  codec::count_of<"metadata", std::uint32_t> metadata_length;  // bytes of `metadata`
  Bytes metadata;
  Bytes data;

  friend bool operator==(const BasicChunk&, const BasicChunk&) = default;
};

template <class Bytes>
struct BasicTile {
  codec::counted<std::uint64_t, std::vector<BasicChunk<Bytes>>> chunks;

  friend bool operator==(const BasicTile&, const BasicTile&) = default;
};

using Chunk = BasicChunk<std::vector<std::byte>>;
using ChunkView = BasicChunk<codec::le_span<std::byte>>;
using Tile = BasicTile<std::vector<std::byte>>;
using TileView = BasicTile<codec::le_span<std::byte>>;

} // namespace tilefmt::format
