// tilefmt — the cells of a dense tile outside its fragment's non-empty
// domain: TileDB stores whole space tiles, and those cells read as the
// attribute's fill value (and fill validity).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/column.hpp"
#include "tilefmt/codec/error.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// Sets the fixed-size cells of `values` (cells of `cell_size` bytes) that
/// `written` marks false to `attr`'s fill value.
inline void fill_fixed_cells(const format::Attribute& attr, std::size_t cell_size, const std::vector<bool>& written,
                             std::span<std::byte> values) {
  const std::vector<std::byte> fill = attr.fill();
  if (fill.size() != cell_size)
    throw format_error("fill value of " + attr.name.value + " has " + std::to_string(fill.size()) +
                           " bytes, a cell " + std::to_string(cell_size),
                       0);
  for (std::size_t c = 0; c < written.size(); ++c)
    if (!written[c]) std::memcpy(values.data() + c * cell_size, fill.data(), cell_size);
}

/// The same for a var-size tile (`values` and its cells' `offsets`, rebuilt),
/// and for the validity of a nullable one.
inline void fill_var_cells(const format::Attribute& attr, const std::vector<bool>& written,
                           column<std::byte>& values, std::vector<std::uint64_t>& offsets) {
  const std::vector<std::byte> fill = attr.fill();
  column<std::byte> out;
  std::vector<std::uint64_t> out_offsets(written.size());
  for (std::size_t c = 0; c < written.size(); ++c) {
    out_offsets[c] = out.size();
    const auto cell = written[c] ? var_cell(values, offsets, c) : std::span<const std::byte>(fill);
    out.insert(out.end(), cell.begin(), cell.end());
  }
  values = std::move(out);
  offsets = std::move(out_offsets);
}

inline void fill_validity(const format::Attribute& attr, const std::vector<bool>& written,
                          std::vector<std::uint8_t>& validity) {
  for (std::size_t c = 0; c < written.size(); ++c)
    if (!written[c]) validity[c] = attr.fill_value_validity.value;
}

} // namespace tilefmt::array::detail
