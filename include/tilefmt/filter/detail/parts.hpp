// tilefmt — helpers shared by the stages whose metadata is a list of part
// lengths (byteshuffle, bitshuffle) or a list of windows (bit width
// reduction, positive delta).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

namespace tilefmt::filter::detail {

/// Writes `u32 count | u32 length...` for the given lengths into the stage's
/// metadata scratch and returns it.
inline bytes_view write_part_lengths(scratch& buf, const std::vector<std::uint32_t>& lengths) {
  auto out = scratch::sized(buf.metadata, 4 + 4 * lengths.size());
  codec::store_le<std::uint32_t>(out.data(), static_cast<std::uint32_t>(lengths.size()));
  codec::store_le_array(out.data() + 4, lengths.data(), lengths.size());
  return out;
}

/// Reads `u32 count | u32 length...` from the front of the metadata, checks
/// the lengths add up to the data's size, and returns the bytes it used.
inline std::size_t read_part_lengths(format::FilterType type, bytes_view md, std::size_t data_size,
                                     std::vector<std::uint32_t>& lengths) {
  codec::reader r(md);
  try {
    std::uint32_t n = r.read<std::uint32_t>();
    if (n > r.remaining() / 4) r.fail_short(std::size_t{n} * 4);
    lengths.resize(n);
    codec::load_le_array(r.take(std::size_t{n} * 4), lengths.data(), n);
  } catch (format_error& e) {
    e.prepend_field(std::string(format::codec_enum_name(type)) + " filter metadata");
    throw;
  }
  std::uint64_t total = 0;
  for (auto l : lengths) total += l;
  if (total != data_size)
    corrupt(type, "parts add up to " + std::to_string(total) + " bytes, the data has " + std::to_string(data_size));
  return r.offset();
}

/// TileDB's windows over one part: a window size of min(part, max window)
/// rounded down to whole values, the last window shorter. TileDB divides by
/// a zero window size for a part shorter than one value; such a part is
/// treated here as a single window (it is stored raw either way).
struct window_plan {
  std::size_t window_size;
  std::size_t count;
};
inline window_plan plan_windows(std::size_t part_size, std::size_t max_window, std::size_t value_size) {
  std::size_t ws = std::min(part_size, max_window) / value_size * value_size;
  if (part_size == 0) return {0, 0};
  if (ws == 0) return {part_size, 1};
  return {ws, part_size / ws + (part_size % ws != 0 ? 1 : 0)};
}

} // namespace tilefmt::filter::detail
