// tilefmt — dimension labels made with an array (format 18 and later): the
// reference the array's schema holds (format::DimensionLabel) and the label
// array it names, a dense array beside the data in `__labels/l<k>` that maps
// each index of one dimension to a label, in increasing or decreasing order
// (tiledb/sm/array_schema/dimension_label.cc and ArraySchema::
// add_dimension_label). array::create makes both from
// write_options::dimension_labels; label values are written to the label
// array as to any dense array, and a read by label searches them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::array {

/// A label to create on one dimension of a new array.
struct dimension_label_options {
  /// Index of the labelled dimension (an integer, date or time dimension).
  std::uint32_t dimension = 0;
  /// The label's name: unique among the array's labels, attributes and dimensions.
  std::string name;
  /// How the labels run along the dimension (TileDB has no unordered labels yet).
  format::DataOrder order = format::DataOrder::INCREASING;
  /// A number, date or time type, or STRING_ASCII (a var-size label).
  format::Datatype type = format::Datatype::UINT64;
  /// The filters of the label array's `label` attribute.
  format::FilterPipeline filters{};
  /// The label array's tile extent (bytes of one value of the dimension's
  /// type); empty: the labelled dimension's.
  std::vector<std::byte> tile_extent{};
};

namespace detail {

/// Checks label `o` against `schema` (to which the labels before it were
/// added) as TileDB's add_dimension_label does.
inline void check_dimension_label(const format::ArraySchema& schema, const dimension_label_options& o) {
  const std::string who = "tilefmt: create: dimension label \"" + o.name + "\"";
  const auto& dims = schema.domain.dimensions.value;
  if (o.name.empty()) throw std::invalid_argument("tilefmt: create: a dimension label needs a name");
  if (o.dimension >= dims.size())
    throw std::invalid_argument(who + ": the array has no dimension " + std::to_string(o.dimension));
  const auto t = dims[o.dimension].type.value;
  if (!format::is_integer(t) && !format::is_datetime(t) && !format::is_time(t))
    throw std::invalid_argument(who + ": labels are made on integer, date and time dimensions, not " +
                                std::string(format::codec_enum_name(t)));
  if (o.order == format::DataOrder::UNORDERED)
    throw std::invalid_argument(who + ": unordered dimension labels are not supported (nor by TileDB)");
  const auto l = o.type;
  if (!format::is_integer(l) && !format::is_float(l) && !format::is_datetime(l) && !format::is_time(l) &&
      l != format::Datatype::STRING_ASCII)
    throw std::invalid_argument(who + ": labels are numbers, dates, times or ASCII strings, not " +
                                std::string(format::codec_enum_name(l)));
  if (!o.tile_extent.empty() && o.tile_extent.size() != format::datatype_size(t))
    throw std::invalid_argument(who + ": the tile extent is not one value of the dimension's type");
  for (const auto& a : schema.attributes.value)
    if (a.name.value == o.name) throw std::invalid_argument(who + ": an attribute has that name");
  for (const auto& d : dims)
    if (d.name.value == o.name) throw std::invalid_argument(who + ": a dimension has that name");
  for (const auto& d : schema.dimension_labels.value.value)
    if (d.name.value == o.name) throw std::invalid_argument(who + ": another label has that name");
}

/// The reference to label `o` the array's schema holds, its array in
/// `__labels/l<k>` (k: the labels before it).
inline format::DimensionLabel dimension_label_reference(const dimension_label_options& o, std::size_t k) {
  format::DimensionLabel r;
  r.dimension_index = o.dimension;
  r.name.value = o.name;
  r.relative_uri = true;
  r.uri.value = "__labels/l" + std::to_string(k);
  r.label_attr_name.value = "label";
  r.label_order = o.order;
  r.label_type = o.type;
  r.label_cell_val_num = o.type == format::Datatype::STRING_ASCII ? format::var_num : 1;
  r.is_external = false;
  return r;
}

/// The label array's schema, as TileDB makes it: dense, row-major, one
/// dimension "index" with the labelled dimension's type, domain and tile
/// extent (or the one given), and one attribute "label" in the labels' order.
inline format::ArraySchema label_array_schema(const format::ArraySchema& schema, const dimension_label_options& o) {
  format::Dimension index = schema.domain.dimensions.value.at(o.dimension);
  index.name.value = "index";
  index.filters.value = {};
  if (!o.tile_extent.empty()) {
    index.null_tile_extent = 0;
    index.tile_extent.value = o.tile_extent;
  }
  format::attribute_options a;
  a.name = "label";
  a.type = o.type;
  a.cell_val_num = o.type == format::Datatype::STRING_ASCII ? format::var_num : 1;
  a.filters = o.filters;
  format::array_schema_options s;
  s.type = format::ArrayType::DENSE;
  s.dimensions.push_back(std::move(index));
  s.attributes.push_back(format::make_attribute(std::move(a)));
  s.attributes.back().order.value = o.order;
  return format::make_array_schema(std::move(s));
}

} // namespace detail

} // namespace tilefmt::array
