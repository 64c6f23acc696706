// tilefmt — which of a tile's cells lie in one dimension's ranges: the test
// every sparse read makes of the tiles its subarray meets but does not
// cover, made without a test a cell where the coordinates allow (a tile
// inside one range, keys in order found by binary search, keys out of
// order against a bitmap of many ranges).
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
      // Four named pairs (an array of four stayed in memory: a store and a
      // load a cell, half of the test's time).
      auto at = [&](std::size_t i) { return codec::load_le<T>(c.values + i * sizeof(T)); };
      T lo0 = at(0), lo1 = lo0, lo2 = lo0, lo3 = lo0, hi0 = lo0, hi1 = lo0, hi2 = lo0, hi3 = lo0;
      std::size_t i = 0;
      for (; i + 4 <= n; i += 4) {
        const T a = at(i), b = at(i + 1), d = at(i + 2), e = at(i + 3);
        lo0 = a < lo0 ? a : lo0, hi0 = a > hi0 ? a : hi0;
        lo1 = b < lo1 ? b : lo1, hi1 = b > hi1 ? b : hi1;
        lo2 = d < lo2 ? d : lo2, hi2 = d > hi2 ? d : hi2;
        lo3 = e < lo3 ? e : lo3, hi3 = e > hi3 ? e : hi3;
      }
      for (; i < n; ++i) {
        const T a = at(i);
        lo0 = a < lo0 ? a : lo0, hi0 = a > hi0 ? a : hi0;
      }
      seen = {order_key(std::min(std::min(lo0, lo1), std::min(lo2, lo3))),
              order_key(std::max(std::max(hi0, hi1), std::max(hi2, hi3)))};
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
    // (A chunk at a time: a dimension out of order, as a row-major tile's
    // columns, is told in the first.)
    bool sorted = true;
    for (std::size_t b = 1; b < n && sorted; b += 256)
      for (std::size_t i = b, e = std::min(n, b + 256); i < e; ++i) sorted &= key(i) >= key(i - 1);
    if (sorted && ranges.indexed()) return ranges.clear_outside_sorted(key, n, in);
    if (ranges.has_bitmap()) return ranges.clear_outside_bitmap(key, n, in);
    for (std::size_t i = 0; i < n; ++i)
      if (in[i]) in[i] = cursor.contains(key(i));
  });
}

} // namespace tilefmt::array::detail
