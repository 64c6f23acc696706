// tilefmt — a dense read's coordinates (query::coordinates(true)): they
// follow from the subarray and the layout alone, as TileDB computes them
// for a dense query with coordinate buffers, so no tile is read for them.
//
// A dimension's ranges are put end to end, and the result is their cross
// product: in row-major order the last dimension changes fastest, in
// column-major the first. Global order (along the space tiles) is not
// offered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/read/query_result.hpp"
#include "tilefmt/array/read/subarray.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array::detail {

/// Each dimension's width in a dense read of `sub`: the sum of its ranges'
/// widths.
inline std::vector<std::uint64_t> dense_widths(const subarray& sub) {
  std::vector<std::uint64_t> width(sub.dim_num(), 0);
  for (std::size_t d = 0; d < sub.dim_num(); ++d)
    for (const auto& r : sub.dim(d).ranges) width[d] += r.hi - r.lo + 1;
  return width;
}

inline std::uint64_t cell_count(const std::vector<std::uint64_t>& widths) {
  std::uint64_t cells = 1;
  for (const std::uint64_t w : widths) cells *= w;
  return cells;
}

/// The cells a dense read of `sub` returns.
inline std::uint64_t dense_cell_count(const subarray& sub) { return cell_count(dense_widths(sub)); }

/// Refuses a layout dense coordinates are not made in.
inline void check_coordinates_layout(query_layout layout) {
  if (layout != query_layout::row_major && layout != query_layout::col_major)
    throw std::invalid_argument("tilefmt: query: a dense array's coordinates are returned in row-major and "
                                "column-major layouts only");
}

/// A column per dimension of `schema`: the coordinates of the `cells`
/// cells a dense read of `sub` in `layout` returns, in its order.
inline std::vector<result_field> dense_coordinates(const format::ArraySchema& schema, const subarray& sub,
                                                   query_layout layout, std::uint64_t cells) {
  check_coordinates_layout(layout);
  const auto& dims = schema.domain.dimensions.value;
  const std::size_t nd = dims.size();
  const std::vector<std::uint64_t> width = dense_widths(sub);
  if (cell_count(width) != cells)
    throw std::logic_error("tilefmt: query: the dense read returned " + std::to_string(cells) + " cells, not " +
                           std::to_string(cell_count(width)));
  std::vector<result_field> out;
  for (std::size_t d = 0; d < nd; ++d) {
    // Each value of dimension d repeats `inner` times in a row, and the
    // whole sequence of its values `outer` times.
    std::uint64_t inner = 1, outer = 1;
    for (std::size_t e = 0; e < nd; ++e) {
      if (e == d) continue;
      const bool faster = layout == query_layout::row_major ? e > d : e < d;
      (faster ? inner : outer) *= width[e];
    }
    result_field f;
    f.name = dims[d].name.value;
    f.type = dims[d].type.value;
    const bool integral = format::visit_integer_type(f.type, [&]<class T>() {
      f.values.resize(cells * sizeof(T));
      std::byte* p = f.values.data();
      for (std::uint64_t o = 0; o < outer; ++o)
        for (const auto& r : sub.dim(d).ranges)
          for (std::uint64_t k = r.lo;; ++k) {
            const T v = from_order_key<T>(k);
            for (std::uint64_t i = 0; i < inner; ++i, p += sizeof(T)) codec::store_le<T>(p, v);
            if (k == r.hi) break;
          }
    });
    if (!integral) throw std::logic_error("tilefmt: query: dense dimension " + f.name + " is not an integer");
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace tilefmt::array::detail
