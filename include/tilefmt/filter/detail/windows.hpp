// tilefmt — what BIT_WIDTH_REDUCTION and POSITIVE_DELTA share: both cut
// each part into windows of at most `max_window_size` bytes (whole values;
// plan_windows in parts.hpp), compute on the integer type of the field, and
// store one window header per window before the earlier metadata.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tilefmt/filter/detail/parts.hpp"

namespace tilefmt::filter::detail {

/// Calls f.template operator()<T>() with the integer type a windowed filter
/// computes on for datatype `t`, and returns whether the filter is active:
/// integers of `MinBytes` bytes or more (positive delta takes 1-byte ones,
/// BLOB, BOOL and GEOM as uint8; bit-width reduction starts at 2), dates and
/// times as int64 from format version 20. Every other type passes through
/// (tiledb/sm/filter/bit_width_reduction_filter.cc, positive_delta_filter.cc).
template <std::size_t MinBytes, class F>
bool with_window_value_type(format::Datatype t, std::uint32_t version, F&& f) {
  using D = format::Datatype;
  const bool bytes = t == D::BLOB || t == D::BOOL || t == D::GEOM_WKB || t == D::GEOM_WKT;
  const bool dates = (format::is_datetime(t) || format::is_time(t)) && version >= 20;
  if (!format::is_integer(t) && !bytes && !dates) return false;
  if (format::datatype_size(t) < MinBytes) return false;
  // format::visit_integer_type maps these types to the same C++ types TileDB uses.
  return format::visit_integer_type(t, [&]<class T>() {
    if constexpr (sizeof(T) >= MinBytes) f.template operator()<T>();
  });
}

/// Calls f(window bytes, window size) for TileDB's windows over every part,
/// in order.
template <class F>
void for_each_window(const part_list& parts, std::size_t max_window, std::size_t value_size, F&& f) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const bytes_view part = parts[i];
    const window_plan plan = plan_windows(part.size(), max_window, value_size);
    for (std::size_t w = 0; w < plan.count; ++w) {
      const std::size_t begin = w * plan.window_size;
      f(part.data() + begin, std::min(plan.window_size, part.size() - begin));
    }
  }
}

/// Checks that the windows of a filter's metadata cover `expected` bytes
/// (what the metadata or the data says), as the first thing reverse does
/// with untrusted window headers.
template <class Windows>
void check_window_total(format::FilterType filter, const Windows& windows, std::uint64_t expected,
                        const char* expected_from) {
  std::uint64_t sum = 0;
  for (const auto& w : windows) sum += w.length;
  if (sum != expected) {
    std::string msg = "windows add up to ";
    msg += std::to_string(sum);
    msg += " bytes, ";
    msg += expected_from;
    msg += ' ';
    msg += std::to_string(expected);
    corrupt(filter, msg);
  }
}

} // namespace tilefmt::filter::detail
