// tilefmt — the fields of a fragment, as both the reader and the writer see
// them: which schema field, where it sits in the footer's per-field arrays,
// its type and filters, and the names of its data files.
//
// The footer's per-field arrays are ordered attributes, `__coords`,
// dimensions, then the fields TileDB adds (`__timestamps`, v14;
// `__delete_timestamps`, `__delete_condition_index`, v15). Before format 5
// they hold attributes and `__coords` only, and a sparse fragment's
// dimensions all live in the `__coords` file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/data_files.hpp"
#include "tilefmt/format/fragment_metadata.hpp"

namespace tilefmt::array {

/// A field as a fragment stores it.
struct field_info {
  std::string name;
  format::FieldKind kind = format::FieldKind::attribute;
  std::size_t index = 0;         // attribute or dimension number
  std::size_t footer_index = 0;  // position in the footer's per-field arrays
  format::Datatype type = format::Datatype::INT32;
  std::uint32_t cell_val_num = 1;
  bool nullable = false;
  const format::FilterPipeline* filters = nullptr;
  /// A dimension of a sparse fragment before format 5: its coordinates are
  /// in the `__coords` file, each tile holding every dimension
  /// (footer_index is then the `__coords` slot).
  bool in_coords_file = false;

  bool var() const noexcept { return cell_val_num == format::var_num; }
  bool is_dimension() const noexcept { return kind == format::FieldKind::dimension; }
  bool is_attribute() const noexcept { return kind == format::FieldKind::attribute; }
  /// One of the fields TileDB adds to fragments (uint64 per cell).
  bool special() const noexcept { return !is_attribute() && !is_dimension() && kind != format::FieldKind::coords; }
  /// Bytes per cell in the fixed file (an offset for var-size fields).
  std::size_t cell_size() const noexcept { return var() ? 8 : cell_val_num * format::datatype_size(type); }

  /// The name of one of its data files in a fragment of format `version`.
  std::string file_name(std::uint32_t version, format::DataFile which = format::DataFile::fixed) const {
    if (in_coords_file) return format::data_file_name(version, format::FieldKind::coords, 0, name, which);
    return format::data_file_name(version, kind, index, name, which);
  }
};

/// Attribute `i` of `schema`, in a fragment of format `version` (nullable
/// attributes exist from format 7).
inline field_info attribute_field(const format::ArraySchema& schema, std::size_t i, std::uint32_t version) {
  const auto& a = schema.attributes.value.at(i);
  field_info f;
  f.name = a.name.value;
  f.kind = format::FieldKind::attribute;
  f.index = i;
  f.footer_index = i;
  f.type = a.type;
  f.cell_val_num = a.cell_val_num;
  f.nullable = version >= 7 && a.nullable.value;
  f.filters = &a.filters;
  return f;
}

/// Dimension `d` of `schema` as a sparse fragment of format `version`
/// stores it. A dimension without filters of its own takes the schema's
/// coords filters (as TileDB does when it loads a schema).
inline field_info dimension_field(const format::ArraySchema& schema, std::size_t d, std::uint32_t version) {
  const auto& dim = schema.domain.dimensions.value.at(d);
  const std::size_t num_attributes = schema.attributes.size();
  field_info f;
  f.name = dim.name.value;
  f.kind = format::FieldKind::dimension;
  f.index = d;
  f.footer_index = num_attributes + 1 + d;
  f.type = dim.type.value;
  f.cell_val_num = dim.is_var() ? format::var_num : 1u;
  f.filters = &schema.dimension_filters(d);
  if (version < 5) {
    f.footer_index = num_attributes;
    f.in_coords_file = true;
  }
  return f;
}

/// The fields TileDB adds, as a fragment with these footer flags stores them.
inline std::vector<field_info> special_fields(const format::ArraySchema& schema, const format::FragmentContext& ctx) {
  std::vector<field_info> out;
  std::size_t at = ctx.num_attributes + 1 + ctx.dims.size();
  auto add = [&](const char* name, format::FieldKind kind) {
    field_info f;
    f.name = name;
    f.kind = kind;
    f.footer_index = at++;
    f.type = format::Datatype::UINT64;
    f.filters = &schema.coords_filters;
    out.push_back(std::move(f));
  };
  if (ctx.has_timestamps) add("__timestamps", format::FieldKind::timestamps);
  if (ctx.has_delete_meta) {
    add("__delete_timestamps", format::FieldKind::delete_timestamps);
    add("__delete_condition_index", format::FieldKind::delete_condition_index);
  }
  return out;
}

/// The fields a fragment stores: attributes, then (sparse) dimensions.
inline std::vector<field_info> fragment_fields(const format::ArraySchema& schema, std::uint32_t version, bool dense) {
  std::vector<field_info> out;
  for (std::size_t i = 0; i < schema.attributes.size(); ++i) out.push_back(attribute_field(schema, i, version));
  if (!dense)
    for (std::size_t d = 0; d < schema.domain.dimensions.size(); ++d) out.push_back(dimension_field(schema, d, version));
  return out;
}

} // namespace tilefmt::array
