// The cells of the small sparse test arrays: int32 dimensions "r" and "c",
// one int32 attribute "v". Written a fragment at a time, read back as a
// list to compare with a model of the array.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/storage/backend.hpp"

namespace tilefmt::testing {

struct rc_cell {
  std::int32_t r, c, v;
  friend bool operator==(const rc_cell&, const rc_cell&) = default;
  friend auto operator<=>(const rc_cell&, const rc_cell&) = default;
};

/// Writes `cells` as one fragment of the array at `uri`, at timestamp `t`.
/// Creates the sparse array at `uri`: dimensions r and c over [1, side] in
/// tiles of `tile`, attribute v.
inline void create_rc_array(const std::shared_ptr<storage::backend>& st, const std::string& uri, std::int32_t side,
                            std::int32_t tile) {
  array::create(uri,
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 1, side, tile),
                                                          format::make_dimension<std::int32_t>("c", 1, side, tile)},
                                           .attributes = {format::make_attribute({.name = "v"})}}),
                {.storage = st});
}

inline void write_rc_cells(const std::shared_ptr<storage::backend>& st, const std::string& uri,
                           const std::vector<rc_cell>& cells, std::uint64_t t) {
  array::sparse_writer w(uri, st);
  std::vector<std::int32_t> r, c, v;
  for (const auto& x : cells) r.push_back(x.r), c.push_back(x.c), v.push_back(x.v);
  w.set_coords("r", r).set_coords("c", c).set("v", v);
  w.commit({.timestamp = t});
}

/// A result's cells, in its order.
inline std::vector<rc_cell> rc_cells_of(const array::query_result& res) {
  const auto r = res.get<std::int32_t>("r"), c = res.get<std::int32_t>("c"), v = res.get<std::int32_t>("v");
  std::vector<rc_cell> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back({r[i], c[i], v[i]});
  return out;
}

} // namespace tilefmt::testing
