// What the filter tests share: a tile's values as bytes, a hand-built tile
// of one chunk, and the round trip every filter test makes through both
// the compile-time and the runtime pipeline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/runtime_pipeline.hpp"
#include "tilefmt/format/tile.hpp"

#include "../support/testing.hpp"

namespace tilefmt::testing {

template <class T>
std::vector<std::byte> bytes_of_values(const std::vector<T>& v) {
  auto b = std::as_bytes(std::span(v));
  return {b.begin(), b.end()};
}

/// A serialized tile of one chunk with the given metadata and data.
inline std::vector<std::byte> one_chunk(std::uint32_t original, const std::vector<std::byte>& md,
                                        const std::vector<std::byte>& data) {
  format::Tile t;
  t.chunks.value.push_back(format::Chunk{original, {}, {}, md, data});
  return codec::encode(t);
}

struct both_ways_options {
  std::uint32_t version = tilefmt::format::written_version;
  std::uint32_t cell_val_num = 1;
  bool chunking = true;
};

/// Encodes `values` with P, decodes them back through P and through the
/// runtime pipeline P's descriptor builds, which must also encode the same
/// bytes. Returns the tile.
template <class P, class T>
std::vector<std::byte> check_both_ways(const std::vector<T>& values, format::Datatype type, both_ways_options o = {}) {
  auto tile = P::template encode<T>(
      values, {.chunking = o.chunking, .version = o.version, .cell_val_num = o.cell_val_num, .datatype = type});
  std::vector<T> back(values.size());
  P::template decode_into<T>(tile, std::span(back), {.version = o.version, .cell_val_num = o.cell_val_num, .datatype = type});
  CHECK(bytes_of_values(back) == bytes_of_values(values));
  filter::runtime_pipeline rp(P::descriptor(o.version, o.chunking), type, o.version);
  const std::size_t cell_size = sizeof(T) * o.cell_val_num;
  CHECK(rp.decode(tile, rp.context(cell_size)) == bytes_of_values(values));
  CHECK(rp.encode(std::as_bytes(std::span(values)), rp.context(cell_size)) == tile);
  return tile;
}

} // namespace tilefmt::testing
