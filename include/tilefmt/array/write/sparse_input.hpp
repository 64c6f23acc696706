// tilefmt — what the two sparse writers' implementations share: the cells
// they hold until written (pending_cells), the coordinates set_coords()
// gives (checked here), the schemas they write, and the cell count the
// calls before a write agree on.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/write/cells_api.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"
#include "tilefmt/array/write/schema_rules.hpp"
#include "tilefmt/format/print.hpp"

namespace tilefmt::array::detail {

/// One field's cells as a writer was given them.
struct pending_cells {
  bool set = false;
  std::vector<std::byte> bytes;        // little-endian values
  std::vector<std::uint64_t> offsets;  // var: where each cell starts, in values
  std::size_t value_size = 0;
  std::vector<std::uint8_t> validity;
  tile_encoder encoder;
  bool encoded = false;  // sparse_writer: an attribute's tiles, encoded when it was set

  /// A copy of a fixed-size field's cells.
  static pending_cells fixed(std::span<const std::byte> bytes, std::size_t value_size,
                             std::span<const std::uint8_t> validity, tile_encoder encoder) {
    return {true, {bytes.begin(), bytes.end()}, {}, value_size, {validity.begin(), validity.end()}, std::move(encoder)};
  }
  /// A copy of a var-size field's cells.
  static pending_cells var(std::span<const std::byte> values, std::span<const std::uint64_t> offsets,
                           std::size_t value_size, std::span<const std::uint8_t> validity) {
    return {true, {values.begin(), values.end()}, {offsets.begin(), offsets.end()}, value_size,
            {validity.begin(), validity.end()}, {}};
  }
};

/// The coordinates and checks both sparse writers take. `Writer` has `b_`
/// (its fragment_builder), `cells_` (the cell count the calls so far agree
/// on), `coordinates_(d)` (where dimension d's cells go), and
/// `check_writable(who)` (throws when the writer takes no more cells);
/// `coordinates_changing()` runs before coordinates are replaced.
template <class Writer>
class sparse_input : public coordinate_sink {
public:
  /// A fixed-size dimension's coordinates as little-endian bytes of
  /// `value_size` (floating point or not, as the caller's type was).
  void put_coords(std::string_view dimension, std::size_t value_size, bool is_float_type,
                  std::span<const std::byte> bytes) override {
    self().check_writable("set_coords");
    const auto& dims = self().schema().domain.dimensions.value;
    const std::size_t d = dimension_index(dimension);
    const format::Datatype type = dims[d].type.value;
    const bool is_float = type == format::Datatype::FLOAT32 || type == format::Datatype::FLOAT64;
    if (dims[d].is_var() || format::datatype_size(type) != value_size || is_float != is_float_type)
      throw std::invalid_argument(self().b_.message("set_coords: dimension \"" + dims[d].name.value + "\" holds " +
                                                    std::string(format::codec_enum_name(type)) + " coordinates"));
    take_cells(bytes.size() / value_size, "set_coords: dimension \"" + dims[d].name.value + "\"");
    self().coordinates_changing();
    auto& p = self().coordinates_(d) = pending_cells{};
    p.bytes.assign(bytes.begin(), bytes.end());
    p.set = true;
  }
  /// A string dimension's coordinates.
  void put_coords(std::string_view dimension, const std::vector<std::string>& coords) override {
    self().check_writable("set_coords");
    const std::size_t d = dimension_index(dimension);
    const auto& dim = self().schema().domain.dimensions.value[d];
    if (!dim.is_var())
      throw std::invalid_argument(self().b_.message("set_coords: dimension \"" + dim.name.value + "\" holds " +
                                                    std::string(format::codec_enum_name(dim.type.value)) +
                                                    " coordinates, not strings"));
    take_cells(coords.size(), "set_coords: dimension \"" + dim.name.value + "\"");
    self().coordinates_changing();
    auto& p = self().coordinates_(d) = pending_cells{};
    p.value_size = 1;
    for (const auto& c : coords) {
      p.offsets.push_back(p.bytes.size());
      for (char ch : c) p.bytes.push_back(static_cast<std::byte>(ch));
    }
    p.set = true;
  }

protected:
  /// The schemas the sparse writers write: refused with the writer's name.
  static void check_sparse_schema(const fragment_builder& b) {
    const auto& s = b.schema();
    check_schema(s);
    if (s.capacity == 0) throw std::invalid_argument(b.message("the schema's capacity is 0"));
    for (const auto& d : s.domain.dimensions)
      if (d.is_var() ? d.type.value != format::Datatype::STRING_ASCII : !format::visit_coordinate_type(d.type.value, []<class>() {}))
        throw std::invalid_argument(b.message("dimension \"" + d.name.value + "\" has type " +
                                              std::string(format::codec_enum_name(d.type.value)) +
                                              "; this writer writes integer, float, date, time and "
                                              "var-size STRING_ASCII dimensions"));
  }

  /// Refuses a write (`who`: "commit", "submit") before every dimension
  /// has coordinates and every attribute cells (TileDB writes them all).
  void check_every_field_set(const std::string& who, const std::vector<pending_cells>& coords,
                             const std::vector<pending_cells>& attrs) const {
    const auto& s = self().schema();
    for (std::size_t d = 0; d < coords.size(); ++d)
      if (!coords[d].set)
        throw std::invalid_argument(self().b_.message(who + ": dimension \"" + s.domain.dimensions[d].name.value +
                                                      "\" has no coordinates"));
    for (std::size_t i = 0; i < attrs.size(); ++i)
      if (!attrs[i].set)
        throw std::invalid_argument(self().b_.message(who + ": attribute \"" + s.attributes[i].name.value +
                                                      "\" has no cells (TileDB writes every attribute)"));
  }

  /// Refuses a coordinate outside its dimension's domain, or NaN, as TileDB
  /// does: `n` cells of `coords`, numbered from `first` in messages.
  void check_domain(const std::vector<pending_cells>& coords, std::size_t n, std::uint64_t first = 0) const {
    const auto& dims = self().schema().domain.dimensions.value;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto& dim = dims[d];
      if (dim.is_var()) continue;
      format::visit_coordinate_type(dim.type.value, [&]<class T>() {
        auto [lo, hi] = dim.template domain_as<T>();
        for (std::size_t c = 0; c < n; ++c) {
          const T v = codec::load_le<T>(coords[d].bytes.data() + c * sizeof(T));
          // The message is made only for a refused cell: this runs on every coordinate.
          auto who = [&] {
            return "coordinate " + std::to_string(first + c) + " of dimension \"" + dim.name.value + "\"";
          };
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(v)) throw std::invalid_argument(self().b_.message(who() + " is NaN"));
          }
          if (v < lo || v > hi)
            throw std::invalid_argument(self().b_.message(who() + " is " + std::to_string(v) + ", outside the domain [" +
                                                          std::to_string(lo) + ", " + std::to_string(hi) + "]"));
        }
      });
    }
  }

  std::size_t dimension_index(std::string_view dimension) const {
    const auto& dims = self().schema().domain.dimensions.value;
    std::size_t d = 0;
    while (d < dims.size() && dims[d].name.value != dimension) ++d;
    if (d == dims.size())
      throw std::invalid_argument(
          self().b_.message(std::string("set_coords: the array has no dimension \"").append(dimension).append("\"")));
    return d;
  }

  /// The cell count: the first call sets it, the others must agree.
  void take_cells(std::uint64_t n, const std::string& who) {
    auto& cells = self().cells_;
    if (cells && *cells != n)
      throw std::invalid_argument(self().b_.message(who + " has " + std::to_string(n) + " cells, earlier calls " +
                                                    std::to_string(*cells)));
    cells = n;
  }

private:
  Writer& self() { return static_cast<Writer&>(*this); }
  const Writer& self() const { return static_cast<const Writer&>(*this); }
};

} // namespace tilefmt::array::detail
