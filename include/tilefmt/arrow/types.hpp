// tilefmt — how each TileDB field looks in Arrow.
//
//   TileDB                                   Arrow (format string)
//   INT8 ... UINT64, FLOAT32, FLOAT64        int8 ... uint64, float, double ("c" ... "L", "f", "g")
//   BOOL (a byte per value)                  boolean ("b", a bit per value)
//   DATETIME_SEC / MS / US / NS              timestamp without a time zone ("tss:" ... "tsn:")
//   DATETIME_DAY                             date32 ("tdD"; int64 days narrowed, checked)
//   TIME_SEC / MS / US / NS                  duration ("tDs" ... "tDn")
//   other DATETIME_* and TIME_* units        int64 ("l"): Arrow has no such unit
//   STRING_ASCII, STRING_UTF8, var-size      large_utf8 ("U")
//   CHAR, BLOB, GEOM_*, ANY, UTF-16/32 text  large_binary ("Z"); fixed-size: fixed_size_binary ("w:bytes")
//   a fixed cell_val_num n > 1 of a number   fixed_size_list ("+w:n") of the number
//   var-size cells of numbers                large_list ("+L") of the number
//   an enumerated attribute                  a dictionary array: indices as stored, the enumeration's values
//
// As TileDB-Py's Arrow adapter, except booleans (it gives uint8) and the
// lists it refuses. Every field's metadata carries "tiledb.datatype", the
// TileDB type's name, where Arrow's type does not say it all.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/format/array_schema.hpp"
#include "tilefmt/format/datatype.hpp"

namespace tilefmt::arrow {

/// A field as the schema declares it.
struct field_spec {
  std::string name;
  format::Datatype type = format::Datatype::INT32;
  std::uint32_t cell_val_num = 1;  // format::var_num: var-size
  bool nullable = false;
  bool dimension = false;
  std::optional<format::Enumeration> enumeration;

  bool var() const noexcept { return cell_val_num == format::var_num; }
};

/// The specs of fields `names` of `arr` (dimensions or attributes),
/// enumerations read in.
inline std::vector<field_spec> field_specs(const array::array_reader& arr, const std::vector<std::string>& names) {
  const auto& schema = arr.schema();
  std::vector<field_spec> out;
  for (const auto& name : names) {
    field_spec f;
    f.name = name;
    if (const auto* a = schema.attribute(name)) {
      f.type = a->type;
      f.cell_val_num = a->cell_val_num;
      f.nullable = a->nullable.value;
      if (!a->enumeration_name->value.empty()) f.enumeration = arr.enumeration(a->enumeration_name->value);
    } else {
      const format::Dimension* dim = nullptr;
      for (const auto& d : schema.domain.dimensions.value)
        if (d.name.value == name) dim = &d;
      if (!dim) throw std::invalid_argument("tilefmt: arrow: the array has no field \"" + name + "\"");
      f.type = dim->type.value;
      f.cell_val_num = dim->cell_val_num.value;
      f.dimension = true;
    }
    out.push_back(std::move(f));
  }
  return out;
}

namespace detail {

/// Text whose bytes are UTF-8 (ASCII is).
constexpr bool is_utf8(format::Datatype t) {
  return t == format::Datatype::STRING_ASCII || t == format::Datatype::STRING_UTF8;
}

/// Values kept as bytes: text and blobs.
constexpr bool is_bytes(format::Datatype t) {
  using D = format::Datatype;
  switch (t) {
  case D::CHAR: case D::STRING_ASCII: case D::STRING_UTF8: case D::STRING_UTF16: case D::STRING_UTF32:
  case D::STRING_UCS2: case D::STRING_UCS4: case D::ANY: case D::BLOB: case D::GEOM_WKB: case D::GEOM_WKT:
    return true;
  default:
    return false;
  }
}

/// The Arrow format of one value of a number, date or time type.
inline std::string value_format(format::Datatype t) {
  using D = format::Datatype;
  switch (t) {
  case D::INT8: return "c";
  case D::UINT8: return "C";
  case D::INT16: return "s";
  case D::UINT16: return "S";
  case D::INT32: return "i";
  case D::UINT32: return "I";
  case D::INT64: return "l";
  case D::UINT64: return "L";
  case D::FLOAT32: return "f";
  case D::FLOAT64: return "g";
  case D::BOOL: return "b";
  case D::DATETIME_SEC: return "tss:";
  case D::DATETIME_MS: return "tsm:";
  case D::DATETIME_US: return "tsu:";
  case D::DATETIME_NS: return "tsn:";
  case D::DATETIME_DAY: return "tdD";
  case D::TIME_SEC: return "tDs";
  case D::TIME_MS: return "tDm";
  case D::TIME_US: return "tDu";
  case D::TIME_NS: return "tDn";
  default: return "l";  // the other date and time units: int64 counts
  }
}

/// The Arrow format of a whole field (of its indices, for an enumeration).
inline std::string field_format(const field_spec& f) {
  if (is_bytes(f.type)) {
    if (f.var()) return is_utf8(f.type) ? "U" : "Z";
    return "w:" + std::to_string(std::uint64_t{f.cell_val_num} * format::datatype_size(f.type));
  }
  if (f.var()) return "+L";
  if (f.cell_val_num != 1) return "+w:" + std::to_string(f.cell_val_num);
  return value_format(f.type);
}

/// Arrow's binary metadata: int32 pair count, then each key and value as
/// an int32 length and the bytes (native byte order, as the interface says).
inline std::string encode_metadata(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  auto put = [&](std::int32_t n) { out.append(reinterpret_cast<const char*>(&n), sizeof n); };
  put(static_cast<std::int32_t>(pairs.size()));
  for (const auto& [k, v] : pairs) {
    put(static_cast<std::int32_t>(k.size()));
    out += k;
    put(static_cast<std::int32_t>(v.size()));
    out += v;
  }
  return out;
}

} // namespace detail
} // namespace tilefmt::arrow
