// tilefmt — set_coords(), which the two sparse writers (sparse_writer,
// which sorts the cells it is given, and global_order_writer, which takes
// them already in the global order in several submissions) add to the
// set() calls of cells_api.hpp: typed coordinates as little-endian bytes
// for the writer's implementation (coordinate_sink), which checks them
// (write/sparse_input.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tilefmt/array/write/cells_api.hpp"

namespace tilefmt::array::detail {

/// set_coords(); `Writer` passes the coordinates to its implementation
/// (`sink()`, a coordinate_sink).
template <class Writer>
class coordinates_api : public cells_api<Writer> {
public:
  /// Sets a dimension's coordinates, one per cell. T must be the
  /// dimension's type (an integer of its size, float or double).
  template <class T>
  Writer& set_coords(std::string_view dimension, std::span<const T> coords) {
    static_assert(codec::wire_scalar<T>, "tilefmt::array: set_coords(): coordinates are numbers");
    std::vector<std::byte> copy;
    self().sink().put_coords(dimension, sizeof(T), std::is_floating_point_v<T>, le_bytes(coords, copy));
    return self();
  }
  template <class T>
  Writer& set_coords(std::string_view dimension, const std::vector<T>& coords) {
    return set_coords<T>(dimension, std::span<const T>(coords));
  }
  /// Sets a string (var-size STRING_ASCII) dimension's coordinates, one per
  /// cell; they sort byte by byte.
  Writer& set_coords(std::string_view dimension, const std::vector<std::string>& coords) {
    self().sink().put_coords(dimension, coords);
    return self();
  }

private:
  Writer& self() { return static_cast<Writer&>(*this); }
};

} // namespace tilefmt::array::detail
