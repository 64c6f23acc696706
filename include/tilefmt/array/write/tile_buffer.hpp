// tilefmt — the partly filled tile of one field that both global-order
// writers (global_order_writer, dense_global_order_writer) keep between
// submissions: cells are appended as they arrive and the tile is encoded
// when full, so that a tile's bytes do not depend on where submissions end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/array/model/field.hpp"
#include "tilefmt/array/write/sparse_input.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"

namespace tilefmt::array::detail {

/// One field's cells of the tile being filled; var-size fields: where each
/// cell starts, in bytes from the tile's start.
struct tile_buffer {
  std::vector<std::byte> bytes;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint8_t> validity;

  std::size_t byte_size() const noexcept { return bytes.size() + 8 * offsets.size() + validity.size(); }
  void clear() noexcept {
    bytes.clear();
    offsets.clear();
    validity.clear();
  }

  /// Appends cells [c, c + k) of a submission's cells `in` of field `f`.
  void append(const pending_cells& in, const field_info& f, std::size_t c, std::size_t k) {
    auto at = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i); };
    if (!in.validity.empty()) validity.insert(validity.end(), in.validity.begin() + at(c), in.validity.begin() + at(c + k));
    if (f.var()) {
      // Values of cells [c, c + k), their offsets rebased on the tile.
      for (std::size_t j = c; j < c + k; ++j) {
        const auto cell = var_cell(in.bytes, in.offsets, j, in.value_size);
        offsets.push_back(bytes.size());
        bytes.insert(bytes.end(), cell.begin(), cell.end());
      }
      return;
    }
    const std::size_t size = f.cell_size();
    bytes.insert(bytes.end(), in.bytes.begin() + at(c * size), in.bytes.begin() + at((c + k) * size));
  }
};

/// Encodes the tile each attribute's buffer holds (streaming: the builder's
/// last tile added), appends it to the attribute's files and empties the
/// buffers; `encoders[i]`: set<P>'s for attribute i, or none.
inline void stream_attribute_tiles(fragment_builder& b, std::vector<tile_buffer>& tiles,
                                   const std::vector<tile_encoder>& encoders) {
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    auto& t = tiles[i];
    const auto spec = b.attribute_spec(i);
    if (spec.var())
      b.stream_var(b.attribute_tiles(i), spec, t.bytes, t.offsets, t.validity);
    else
      b.stream_fixed(b.attribute_tiles(i), spec, t.bytes, t.validity, encoders[i]);
    t.clear();
  }
}

} // namespace tilefmt::array::detail
