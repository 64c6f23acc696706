// tilefmt._core: schemas and attributes from the dicts tilefmt/_write.py
// builds (the form _core.Array.schema() returns), for creating arrays and
// evolving their schemas.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tilefmt/array/write/dimension_labels.hpp"
#include "tilefmt/format/array_schema.hpp"

#include "filters.hpp"
#include "query_args.hpp"

namespace tilefmt_python {

namespace nb = nanobind;
namespace tf = tilefmt::format;

inline tf::Datatype datatype_of_name(const std::string& name) {
  for (std::uint8_t i = 0; tf::codec_enum_valid(static_cast<tf::Datatype>(i)); ++i)
    if (tf::codec_enum_name(static_cast<tf::Datatype>(i)) == name) return static_cast<tf::Datatype>(i);
  throw std::invalid_argument("tilefmt: unknown datatype \"" + name + "\"");
}

inline tf::Layout layout_of_name(const std::string& s) {
  if (s == "row-major") return tf::Layout::ROW_MAJOR;
  if (s == "col-major") return tf::Layout::COL_MAJOR;
  if (s == "hilbert") return tf::Layout::HILBERT;
  throw std::invalid_argument("tilefmt: unknown order \"" + s + "\" (row-major, col-major or hilbert)");
}

/// An attribute from the dict tilefmt/_write.py builds.
inline tf::Attribute attribute_of(const nb::dict& x) {
  tf::attribute_options a;
  a.name = nb::cast<std::string>(x["name"]);
  a.type = datatype_of_name(nb::cast<std::string>(x["type"]));
  const auto cvn = nb::cast<std::uint32_t>(x["cell_val_num"]);
  a.cell_val_num = cvn == 0 ? tf::var_num : cvn;
  a.nullable = nb::cast<bool>(x["nullable"]);
  a.filters = pipeline_of(nb::cast<nb::list>(x["filters"]));
  if (!x["fill"].is_none()) a.fill_value = from_bytes(nb::cast<nb::bytes>(x["fill"]));
  auto attr = tf::make_attribute(std::move(a));
  if (x.contains("enumeration")) attr.enumeration_name.value.value = nb::cast<std::string>(x["enumeration"]);
  return attr;
}

/// The enumerations of the schema dict tilefmt/_write.py builds ("enums").
inline std::vector<tf::Enumeration> enumerations_of(const nb::dict& d) {
  std::vector<tf::Enumeration> out;
  if (!d.contains("enums")) return out;
  for (nb::handle h : nb::cast<nb::list>(d["enums"])) {
    auto x = nb::cast<nb::dict>(h);
    tf::Enumeration e;
    e.name.value = nb::cast<std::string>(x["name"]);
    e.type = datatype_of_name(nb::cast<std::string>(x["type"]));
    const auto cvn = nb::cast<std::uint32_t>(x["cell_val_num"]);
    e.cell_val_num = cvn == 0 ? tf::var_num : cvn;
    e.ordered = nb::cast<bool>(x["ordered"]);
    e.data.value = from_bytes(nb::cast<nb::bytes>(x["data"]));
    if (e.is_var()) e.offsets.value.value = from_bytes(nb::cast<nb::bytes>(x["offsets"]));
    out.push_back(std::move(e));
  }
  return out;
}

/// The dimension labels of the schema dict tilefmt/_write.py builds
/// ("dim_labels"), to make with the array.
inline std::vector<tilefmt::array::dimension_label_options> dimension_labels_of(const nb::dict& d) {
  std::vector<tilefmt::array::dimension_label_options> out;
  if (!d.contains("dim_labels")) return out;
  for (nb::handle h : nb::cast<nb::list>(d["dim_labels"])) {
    auto x = nb::cast<nb::dict>(h);
    tilefmt::array::dimension_label_options o;
    o.dimension = nb::cast<std::uint32_t>(x["dim_index"]);
    o.name = nb::cast<std::string>(x["name"]);
    const auto order = nb::cast<std::string>(x["order"]);
    if (order != "increasing" && order != "decreasing")
      throw std::invalid_argument("tilefmt: dimension label \"" + o.name + "\": order is \"increasing\" or \"decreasing\"");
    o.order = order == "increasing" ? tf::DataOrder::INCREASING : tf::DataOrder::DECREASING;
    o.type = datatype_of_name(nb::cast<std::string>(x["type"]));
    o.filters = pipeline_of(nb::cast<nb::list>(x["filters"]));
    if (!x["tile"].is_none()) o.tile_extent = from_bytes(nb::cast<nb::bytes>(x["tile"]));
    out.push_back(std::move(o));
  }
  return out;
}

/// A schema from the dict tilefmt/_array.py builds (the form schema() returns).
inline tf::ArraySchema schema_of(const nb::dict& d) {
  tf::array_schema_options o;
  o.type = nb::cast<bool>(d["sparse"]) ? tf::ArrayType::SPARSE : tf::ArrayType::DENSE;
  o.cell_order = layout_of_name(nb::cast<std::string>(d["cell_order"]));
  o.tile_order = layout_of_name(nb::cast<std::string>(d["tile_order"]));
  o.capacity = nb::cast<std::uint64_t>(d["capacity"]);
  o.allows_dups = nb::cast<bool>(d["allows_duplicates"]);
  for (nb::handle h : nb::cast<nb::list>(d["dims"])) {
    auto x = nb::cast<nb::dict>(h);
    tf::Dimension dim;
    if (nb::cast<bool>(x["var"])) {
      dim = tf::make_string_dimension(nb::cast<std::string>(x["name"]));
    } else {
      dim.name.value = nb::cast<std::string>(x["name"]);
      dim.type.value = datatype_of_name(nb::cast<std::string>(x["type"]));
      dim.cell_val_num.value = 1;
      dim.domain.value = from_bytes(nb::cast<nb::bytes>(x["domain"]));
      dim.domain_size.value = dim.domain.size();
      if (x["tile"].is_none()) {
        dim.null_tile_extent = 1;
      } else {
        dim.null_tile_extent = 0;
        dim.tile_extent.value = from_bytes(nb::cast<nb::bytes>(x["tile"]));
      }
    }
    dim.filters.value = pipeline_of(nb::cast<nb::list>(x["filters"]));
    o.dimensions.push_back(std::move(dim));
  }
  for (nb::handle h : nb::cast<nb::list>(d["attrs"])) o.attributes.push_back(attribute_of(nb::cast<nb::dict>(h)));
  auto s = tf::make_array_schema(std::move(o));
  // The schema's own pipelines where given (else TileDB's defaults).
  auto given = [&](const char* key) { return d.contains(key) && !d[key].is_none(); };
  if (given("coords_filters")) s.coords_filters = pipeline_of(nb::cast<nb::list>(d["coords_filters"]));
  if (given("offsets_filters")) s.offsets_filters = pipeline_of(nb::cast<nb::list>(d["offsets_filters"]));
  if (given("validity_filters")) s.validity_filters.value = pipeline_of(nb::cast<nb::list>(d["validity_filters"]));
  return s;
}

} // namespace tilefmt_python
