// tilefmt — which of a tile's cells lie in one dimension's ranges: the test
// every sparse read makes of the tiles its subarray meets but does not
// cover, made without a test a cell where the coordinates allow (a tile
// inside one range, keys in order found by binary search).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/read/subarray.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// Clears `in[i]` for each of the `n` cells whose coordinate of dimension
/// `dim` is in none of `ranges`. `c`: the tile's coordinates of `dim`, as
/// fixed-size values (`c.values`) or, on a string dimension, cells
/// (`c.at(i)`, a string_view).
template <class Column>
void keep_inside(const dimension_ranges& ranges, const format::Dimension& dim, const Column& c, std::size_t n,
                 std::uint8_t* in) {
  dimension_ranges::cursor cursor(ranges);
  if (dim.is_var()) {
    if (ranges.covers_all_text()) return;  // no key to compare (a whole read)
    // Keys in order (the tiles of a 1-D string dimension, its first
    // dimension's row-major) lie between the first and the last: one
    // comparison a cell for the order spares the two of each test.
    bool sorted = true;
    for (std::size_t i = 1; i < n && sorted; ++i) sorted = c.at(i - 1) <= c.at(i);
    if (n != 0 && sorted && ranges.covers_text(c.at(0), c.at(n - 1))) return;
    // Points or ranges within sorted keys: two binary searches a range
    // (200 keys of 10^6: a memcmp a cell was a third of the read).
    if (sorted && ranges.indexed())
      return ranges.clear_outside_sorted([&](std::size_t i) -> std::string_view { return c.at(i); }, n, in);
    for (std::size_t i = 0; i < n; ++i)
      if (in[i]) in[i] = cursor.contains_text(c.at(i));
    return;
  }
  format::visit_coordinate_type(dim.type.value, [&]<class T>() {
    auto key = [&](std::size_t i) { return order_key(codec::load_le<T>(c.values + i * sizeof(T))); };
    // Most tiles lie inside one range (the MBR said so, or a large box):
    // a pass for the least and greatest key, without a branch a cell,
    // spares the test of each. Integers are compared as they are, four
    // at a time (no key made a cell: a fifth of a whole matrix's read).
    if (n == 0) return;
    key_range seen{key(0), key(0)};
    if constexpr (std::is_integral_v<T>) {
      T lo[4], hi[4];
      std::fill_n(lo, 4, codec::load_le<T>(c.values));
      std::fill_n(hi, 4, lo[0]);
      std::size_t i = 0;
      for (; i + 4 <= n; i += 4)
        for (std::size_t j = 0; j < 4; ++j) {
          const T v = codec::load_le<T>(c.values + (i + j) * sizeof(T));
          lo[j] = v < lo[j] ? v : lo[j];
          hi[j] = v > hi[j] ? v : hi[j];
        }
      for (; i < n; ++i) {
        const T v = codec::load_le<T>(c.values + i * sizeof(T));
        lo[0] = v < lo[0] ? v : lo[0];
        hi[0] = v > hi[0] ? v : hi[0];
      }
      seen = {order_key(*std::min_element(lo, lo + 4)), order_key(*std::max_element(hi, hi + 4))};
    } else {
      for (std::size_t i = 1; i < n; ++i) {
        const auto k = key(i);
        seen.lo = k < seen.lo ? k : seen.lo;
        seen.hi = k > seen.hi ? k : seen.hi;
      }
    }
    if (ranges.covers(seen)) return;
    // Keys in order (the first dimension of a row-major tile): a binary
    // search a range rather than a test a cell.
    bool sorted = true;
    for (std::size_t i = 1; i < n; ++i) sorted &= key(i) >= key(i - 1);
    if (sorted && ranges.indexed()) return ranges.clear_outside_sorted(key, n, in);
    for (std::size_t i = 0; i < n; ++i)
      if (in[i]) in[i] = cursor.contains(key(i));
  });
}

} // namespace tilefmt::array::detail
