// tilefmt — the array schema (format_spec/array_schema.md) and enumeration
// files (format_spec/enumeration.md), format versions 1 to 23. Layouts follow
// TileDB's tiledb/sm/array_schema/{array_schema,array_schema_operations,
// attribute,dimension,domain,dimension_label,current_domain,ndrectangle,
// enumeration}.cc where they differ from the spec:
//   - attributes carry an enumeration name from v20 (not in the spec);
//   - a dimension label is `u32 dimension_index | u32 name | u8 relative_uri |
//     u64 uri | u32 label_attr_name | u8 label_order | u8 label_type |
//     u32 label_cell_val_num | u8 is_external` (no domain, u32 name length);
//   - the current domain version is 0 (the spec says 1; TileDB rejects > 0);
//   - an enumeration file holds the enumeration's name and path name after
//     its version.
//
// A schema file `__schema/__t1_t2_uuid` (or `__array_schema.tdb` before v10)
// is one generic tile whose payload is an ArraySchema:
//
//   auto schema = codec::decode<format::ArraySchema>(payload);
//   std::vector<std::byte> again = codec::encode(schema);   // == payload
//
// Two structures cannot be walked field by field, and have documented
// codec::traits<> specialisations:
//   - Domain, before v5: the domain's one datatype sizes every dimension's
//     domain and tile extent, and is copied into each Dimension on decode
//     (at the end of this header);
//   - NDRectangle (format/ranges.hpp, shared with fragment metadata's MBRs):
//     each range's layout depends on its dimension's type, so ArraySchema
//     decodes and encodes with a context that sees its own domain.
//
// TileDB 1.3 and earlier wrote schemas before format versions existed
// (LibraryVersionArraySchema).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilefmt/codec/codec.hpp"
#include "tilefmt/codec/text.hpp"
#include "tilefmt/format/datatype.hpp"
#include "tilefmt/format/filter_pipeline.hpp"
#include "tilefmt/format/ranges.hpp"
#include "tilefmt/format/version.hpp"

namespace tilefmt::format {

/// cell_val_num of a var-size attribute or dimension.
inline constexpr std::uint32_t var_num = std::numeric_limits<std::uint32_t>::max();
/// The cell size TileDB reports for var-size fields.
inline constexpr std::uint64_t var_size = std::numeric_limits<std::uint64_t>::max();

// ---------------------------------------------------------------------------
// Enumerations (tiledb/sm/enums/{array_type,layout,data_order,current_domain_type}.h)
// ---------------------------------------------------------------------------

enum class ArrayType : std::uint8_t { DENSE = 0, SPARSE = 1 };
constexpr bool codec_enum_valid(ArrayType t) { return static_cast<std::uint8_t>(t) <= 1; }
constexpr std::string_view codec_enum_name(ArrayType t) {
  return t == ArrayType::DENSE ? "DENSE" : t == ArrayType::SPARSE ? "SPARSE" : "INVALID";
}

/// Tile and cell order. A tile order is ROW_MAJOR or COL_MAJOR (the decoder
/// rejects others, as TileDB does); HILBERT is a cell order only.
enum class Layout : std::uint8_t { ROW_MAJOR = 0, COL_MAJOR = 1, GLOBAL_ORDER = 2, UNORDERED = 3, HILBERT = 4 };
constexpr bool codec_enum_valid(Layout l) { return static_cast<std::uint8_t>(l) <= 4; }
constexpr std::string_view codec_enum_name(Layout l) {
  constexpr std::string_view names[] = {"ROW_MAJOR", "COL_MAJOR", "GLOBAL_ORDER", "UNORDERED", "HILBERT"};
  return codec_enum_valid(l) ? names[static_cast<std::uint8_t>(l)] : "INVALID";
}

/// Order of an attribute's or a dimension label's values.
enum class DataOrder : std::uint8_t { UNORDERED = 0, INCREASING = 1, DECREASING = 2 };
constexpr bool codec_enum_valid(DataOrder o) { return static_cast<std::uint8_t>(o) <= 2; }
constexpr std::string_view codec_enum_name(DataOrder o) {
  constexpr std::string_view names[] = {"UNORDERED", "INCREASING", "DECREASING"};
  return codec_enum_valid(o) ? names[static_cast<std::uint8_t>(o)] : "INVALID";
}

enum class CurrentDomainType : std::uint8_t { NDRECTANGLE = 0 };
constexpr bool codec_enum_valid(CurrentDomainType t) { return t == CurrentDomainType::NDRECTANGLE; }
constexpr std::string_view codec_enum_name(CurrentDomainType t) {
  return t == CurrentDomainType::NDRECTANGLE ? "NDRECTANGLE" : "INVALID";
}

/// The current domain's own version (constants::current_domain_version). An
/// enum so that the decoder rejects versions newer than the one it knows.
enum class CurrentDomainVersion : std::uint32_t { V0 = 0 };
constexpr bool codec_enum_valid(CurrentDomainVersion v) { return v == CurrentDomainVersion::V0; }
constexpr std::string_view codec_enum_name(CurrentDomainVersion v) { return v == CurrentDomainVersion::V0 ? "0" : "INVALID"; }

/// An enumeration file's version (constants::enumerations_version), as above.
enum class EnumerationVersion : std::uint32_t { V0 = 0 };
constexpr bool codec_enum_valid(EnumerationVersion v) { return v == EnumerationVersion::V0; }
constexpr std::string_view codec_enum_name(EnumerationVersion v) { return v == EnumerationVersion::V0 ? "0" : "INVALID"; }

// ---------------------------------------------------------------------------
// Fill values (tiledb/sm/misc/constants.cc `fill_value`, attribute.cc)
// ---------------------------------------------------------------------------

/// TileDB's default fill value of an attribute: one value per cell value
/// (one for a var-size attribute). Signed integers: the type's minimum;
/// unsigned: its maximum; floats: quiet NaN; CHAR: `char` minimum (0x80 as
/// on x86); date and time types: INT64_MIN; strings, ANY, BOOL, BLOB, GEOM: 0.
inline std::vector<std::byte> default_fill_value(Datatype type, std::uint32_t cell_val_num) {
  const std::size_t size = datatype_size(type);
  std::array<std::byte, 8> one{};
  auto put = [&](auto v) { codec::store_le(one.data(), v); };
  switch (type) {
  case Datatype::INT8: put(std::numeric_limits<std::int8_t>::min()); break;
  case Datatype::INT16: put(std::numeric_limits<std::int16_t>::min()); break;
  case Datatype::INT32: put(std::numeric_limits<std::int32_t>::min()); break;
  case Datatype::INT64: put(std::numeric_limits<std::int64_t>::min()); break;
  case Datatype::UINT8: put(std::numeric_limits<std::uint8_t>::max()); break;
  case Datatype::UINT16: put(std::numeric_limits<std::uint16_t>::max()); break;
  case Datatype::UINT32: put(std::numeric_limits<std::uint32_t>::max()); break;
  case Datatype::UINT64: put(std::numeric_limits<std::uint64_t>::max()); break;
  case Datatype::FLOAT32: put(std::numeric_limits<float>::quiet_NaN()); break;
  case Datatype::FLOAT64: put(std::numeric_limits<double>::quiet_NaN()); break;
  case Datatype::CHAR: put(std::int8_t{-128}); break;
  default:
    if (is_datetime(type) || is_time(type)) put(std::numeric_limits<std::int64_t>::min());
    break; // strings, ANY, BOOL, BLOB, GEOM: zeros
  }
  const std::size_t n = cell_val_num == var_num ? 1 : cell_val_num;
  std::vector<std::byte> out;
  out.reserve(n * size);
  for (std::size_t i = 0; i < n; ++i) out.insert(out.end(), one.begin(), one.begin() + static_cast<std::ptrdiff_t>(size));
  return out;
}

namespace detail {
/// Bytes of a dimension's domain: `domain_size` (stored from v5; before v5
/// set on decode to 2 * sizeof of the domain's type).
struct dimension_domain_bytes {
  template <class D>
  std::size_t operator()(const D& d) const {
    return static_cast<std::size_t>(
        std::min<std::uint64_t>(d.domain_size.value, std::numeric_limits<std::size_t>::max()));
  }
};
/// Bytes of a dimension's tile extent: one value of its type, when not null.
struct dimension_extent_bytes {
  template <class D>
  std::size_t operator()(const D& d) const {
    return d.null_tile_extent == 0 ? datatype_size(d.type.value) : 0;
  }
};
/// Two values of T stored one after the other (a range [lo, hi]).
template <class T>
std::pair<T, T> load_pair(std::span<const std::byte> b) {
  if (b.size() != 2 * sizeof(T))
    throw std::invalid_argument("tilefmt: the range holds " + std::to_string(b.size()) + " bytes, not two values of " +
                                std::to_string(sizeof(T)) + " bytes");
  return {codec::load_le<T>(b.data()), codec::load_le<T>(b.data() + sizeof(T))};
}
} // namespace detail

// ---------------------------------------------------------------------------
// The declarations, one per table of format_spec/array_schema.md
// ---------------------------------------------------------------------------

/// array_schema.md, "Dimension". Before v5 a dimension stores only its name,
/// domain and tile extent; its type is the Domain's (copied into `type` on
/// decode, so that every version reads the same in memory).
struct Dimension {
  codec::counted<std::uint32_t, std::string> name;
  codec::since<5, Datatype> type;
  codec::since<5, std::uint32_t> cell_val_num{1};  // var_num for string dimensions
  codec::since<5, FilterPipeline> filters;          // empty: the schema's coords filters apply
  codec::since<5, std::uint64_t> domain_size;       // = domain.size(); 0 for string dimensions
  codec::sized<detail::dimension_domain_bytes, std::vector<std::byte>> domain;  // lo, hi
  std::uint8_t null_tile_extent = 1;  // non-zero: no tile extent follows
  codec::sized<detail::dimension_extent_bytes, std::vector<std::byte>> tile_extent;

  bool is_var() const noexcept { return cell_val_num.value == var_num; }
  /// Bytes of one coordinate (of one character for string dimensions).
  std::size_t coord_size() const noexcept { return datatype_size(type.value); }
  bool has_tile_extent() const noexcept { return null_tile_extent == 0; }

  /// The domain [lo, hi] as values of T (whose size must match the type's).
  template <class T>
  std::pair<T, T> domain_as() const {
    return detail::load_pair<T>(domain.value);
  }
  /// The tile extent as a T, or nullopt when it is null.
  template <class T>
  std::optional<T> tile_extent_as() const {
    if (!has_tile_extent()) return std::nullopt;
    if (tile_extent.size() != sizeof(T))
      throw std::invalid_argument("tilefmt: Dimension::tile_extent_as<T>: the extent has " +
                                  std::to_string(tile_extent.size()) + " bytes");
    return codec::load_le<T>(tile_extent.value.data());
  }

  friend bool operator==(const Dimension&, const Dimension&) = default;
};

/// array_schema.md, "Domain". Decoded with a codec::traits<> specialisation
/// before v5 (see the end of this header).
struct Domain {
  codec::until<5, Datatype> type;  // the type of every dimension, before v5
  codec::counted<std::uint32_t, std::vector<Dimension>> dimensions;

  friend bool operator==(const Domain&, const Domain&) = default;
};

/// array_schema.md, "Attribute" (+ the enumeration name of attribute.cc).
struct Attribute {
  codec::counted<std::uint32_t, std::string> name;
  Datatype type{};
  std::uint32_t cell_val_num = 1;  // var_num for var-size attributes
  FilterPipeline filters;
  /// From v6. Before v6 TileDB uses default_fill_value (see fill()).
  codec::since<6, codec::counted<std::uint64_t, std::vector<std::byte>>> fill_value;
  codec::since<7, bool> nullable;
  codec::since<7, std::uint8_t> fill_value_validity;
  codec::since<17, DataOrder> order;
  /// Empty: the attribute has no enumeration.
  codec::since<20, codec::counted<std::uint32_t, std::string>> enumeration_name;

  bool is_var() const noexcept { return cell_val_num == var_num; }
  /// Bytes of one cell; var_size for var-size attributes.
  std::uint64_t cell_size() const noexcept {
    return is_var() ? var_size : std::uint64_t{cell_val_num} * datatype_size(type);
  }
  /// The fill value TileDB uses: the stored one, or the default when none is stored (before v6).
  std::vector<std::byte> fill() const {
    return fill_value->empty() ? default_fill_value(type, cell_val_num) : fill_value->value;
  }

  friend bool operator==(const Attribute&, const Attribute&) = default;
};

/// array_schema.md, "Dimension Label", in the layout of dimension_label.cc
/// (the spec's table differs: see the top of this header).
struct DimensionLabel {
  std::uint32_t dimension_index = 0;
  codec::counted<std::uint32_t, std::string> name;
  bool relative_uri = true;
  codec::counted<std::uint64_t, std::string> uri;
  codec::counted<std::uint32_t, std::string> label_attr_name;
  DataOrder label_order = DataOrder::INCREASING;
  Datatype label_type{};
  std::uint32_t label_cell_val_num = 1;
  bool is_external = false;

  friend bool operator==(const DimensionLabel&, const DimensionLabel&) = default;
};

/// array_schema.md, the enumeration name / filename pairs of "Array Schema
/// File" (v20). TileDB writes them in hash-map order: do not rely on it.
struct EnumerationRef {
  codec::counted<std::uint32_t, std::string> name;
  codec::counted<std::uint32_t, std::string> filename;  // in __schema/__enumerations/

  friend bool operator==(const EnumerationRef&, const EnumerationRef&) = default;
};

/// The shapes of a domain's dimensions.
inline std::vector<DimensionShape> dimension_shapes(const Domain& d) {
  std::vector<DimensionShape> out;
  out.reserve(d.dimensions.size());
  for (const auto& dim : d.dimensions) out.push_back({dim.type.value, dim.is_var()});
  return out;
}

/// array_schema.md, "Current Domain" (v22), in the layout of current_domain.cc.
struct CurrentDomain {
  CurrentDomainVersion version = CurrentDomainVersion::V0;
  bool empty = true;
  codec::when<codec::field_equals<"empty", false>, CurrentDomainType> type;
  codec::when<codec::field_equals<"empty", false>, NDRectangle> ndrectangle;

  friend bool operator==(const CurrentDomain&, const CurrentDomain&) = default;
};

/// array_schema.md, "Array Schema File": the payload of a schema file.
struct ArraySchema {
  codec::version_field<std::uint32_t> version{written_version};
  codec::since<5, bool> allows_dups;
  ArrayType array_type = ArrayType::DENSE;
  Layout tile_order = Layout::ROW_MAJOR;
  Layout cell_order = Layout::ROW_MAJOR;
  std::uint64_t capacity = 10000;
  FilterPipeline coords_filters;
  FilterPipeline offsets_filters;
  codec::since<7, FilterPipeline> validity_filters;
  Domain domain;
  codec::counted<std::uint32_t, std::vector<Attribute>> attributes;
  codec::since<18, codec::counted<std::uint32_t, std::vector<DimensionLabel>>> dimension_labels;
  codec::since<20, codec::counted<std::uint32_t, std::vector<EnumerationRef>>> enumerations;
  codec::since<22, CurrentDomain> current_domain;

  bool is_sparse() const noexcept { return array_type == ArrayType::SPARSE; }

  /// The attribute called `name`, or nullptr.
  const Attribute* attribute(std::string_view name) const noexcept {
    for (const auto& a : attributes)
      if (a.name.value == name) return &a;
    return nullptr;
  }
  /// The dimension called `name`, or nullptr.
  const Dimension* dimension(std::string_view name) const noexcept {
    for (const auto& d : domain.dimensions)
      if (d.name.value == name) return &d;
    return nullptr;
  }
  /// The pipeline TileDB applies to dimension `i`'s tiles: its own, or the
  /// coords filters when its own is empty (always before v5).
  const FilterPipeline& dimension_filters(std::size_t i) const {
    const auto& own = domain.dimensions.value.at(i).filters.value;
    return own.filters.empty() ? coords_filters : own;
  }

  friend bool operator==(const ArraySchema&, const ArraySchema&) = default;
};

/// format_spec/enumeration.md (+ name and path_name, enumeration.cc): the
/// payload of `__schema/__enumerations/__<label>_0`.
struct Enumeration {
  EnumerationVersion version = EnumerationVersion::V0;
  codec::counted<std::uint32_t, std::string> name;
  codec::counted<std::uint32_t, std::string> path_name;  // the file's own name
  Datatype type{};
  std::uint32_t cell_val_num = 1;  // var_num: var-size values with offsets
  bool ordered = false;
  codec::counted<std::uint64_t, std::vector<std::byte>> data;
  /// Byte size, then one u64 byte offset per value into `data`.
  codec::when<codec::field_equals<"cell_val_num", var_num>, codec::counted<std::uint64_t, std::vector<std::byte>>> offsets;

  bool is_var() const noexcept { return cell_val_num == var_num; }
  /// The offsets as numbers (empty for fixed-size values).
  std::vector<std::uint64_t> offset_values() const {
    const auto& b = offsets.value.value;
    std::vector<std::uint64_t> out(b.size() / 8);
    codec::load_le_array(b.data(), out.data(), out.size());
    return out;
  }
  /// Var-size values as strings (each [offset[i], offset[i+1]) of `data`).
  std::vector<std::string> string_values() const {
    auto offs = offset_values();
    std::vector<std::string> out;
    for (std::size_t i = 0; i < offs.size(); ++i) {
      std::uint64_t end = i + 1 < offs.size() ? offs[i + 1] : data.size();
      if (offs[i] > end || end > data.size())
        throw std::invalid_argument("tilefmt: Enumeration offsets are not increasing within the data");
      out.emplace_back(reinterpret_cast<const char*>(data.value.data()) + offs[i],
                       static_cast<std::size_t>(end - offs[i]));
    }
    return out;
  }

  friend bool operator==(const Enumeration&, const Enumeration&) = default;
};

/// An enumeration of string labels (var-size, `type` one byte per
/// character), for array::create and array::schema_evolution; its file name
/// is chosen when it is written.
inline Enumeration make_enumeration(std::string name, const std::vector<std::string>& labels, bool ordered = false,
                                    Datatype type = Datatype::STRING_UTF8) {
  if (datatype_size(type) != 1)
    throw std::invalid_argument("tilefmt: make_enumeration: string labels need a type of one byte per character");
  Enumeration e;
  e.name.value = std::move(name);
  e.type = type;
  e.cell_val_num = var_num;
  e.ordered = ordered;
  std::vector<std::byte> offsets(labels.size() * 8);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    codec::store_le<std::uint64_t>(offsets.data() + i * 8, e.data.value.size());
    for (char c : labels[i]) e.data.value.push_back(static_cast<std::byte>(c));
  }
  e.offsets.value.value = std::move(offsets);
  return e;
}

/// An enumeration of fixed-size values (one T per label).
template <class T>
  requires std::is_arithmetic_v<T>
Enumeration make_enumeration(std::string name, const std::vector<T>& values, bool ordered = false) {
  Enumeration e;
  e.name.value = std::move(name);
  e.type = datatype_of<T>();
  e.ordered = ordered;
  e.data.value.resize(values.size() * sizeof(T));
  codec::store_le_array(e.data.value.data(), values.data(), values.size());
  return e;
}

// ---------------------------------------------------------------------------
// TileDB 1.3 and earlier (before format versions): the schema starts with
// the library version {major, minor, patch}, compressors stand where filter
// pipelines are now, and attributes put the compressor before cell_val_num.
// Current TileDB no longer opens these arrays. Layout from
// tiledb/sm/array_schema/{array_schema,domain,dimension,attribute}.cc of
// TileDB 1.3.0.
// ---------------------------------------------------------------------------

/// A compressor and its level. The compressor byte uses that release's
/// numbering: 0 none, 1 GZIP, 2 ZSTD, 3 LZ4, 4 to 9 the BLOSC variants,
/// 10 RLE, 11 BZIP2, 12 DOUBLE_DELTA.
struct LibraryVersionCompressor {
  std::uint8_t compressor = 0;
  std::int32_t level = -1;
  friend bool operator==(const LibraryVersionCompressor&, const LibraryVersionCompressor&) = default;
};

struct LibraryVersionAttribute {
  codec::counted<std::uint32_t, std::string> name;
  Datatype type{};
  LibraryVersionCompressor compressor;
  std::uint32_t cell_val_num = 1;
  friend bool operator==(const LibraryVersionAttribute&, const LibraryVersionAttribute&) = default;
};

/// The domain and its dimensions have the layout of format versions 1 to 4.
/// The library's major version (0 or 1 for every release that wrote this
/// layout) is the version the gates see, which closes every gate of Domain
/// and Dimension (all open at v5 or later).
struct LibraryVersionArraySchema {
  codec::version_field<std::int32_t> major_version{1};
  std::int32_t minor_version = 3;
  std::int32_t patch_version = 0;
  ArrayType array_type = ArrayType::DENSE;
  Layout tile_order = Layout::ROW_MAJOR;
  Layout cell_order = Layout::ROW_MAJOR;
  std::uint64_t capacity = 10000;
  LibraryVersionCompressor coords_compressor;
  LibraryVersionCompressor offsets_compressor;
  Domain domain;
  codec::counted<std::uint32_t, std::vector<LibraryVersionAttribute>> attributes;
  friend bool operator==(const LibraryVersionArraySchema&, const LibraryVersionArraySchema&) = default;
};

// ---------------------------------------------------------------------------
// Building new schemas (the defaults of TileDB's ArraySchema constructor)
// ---------------------------------------------------------------------------

/// A pipeline with one compression filter (GZIP, ZSTD, LZ4, RLE, BZIP2,
/// DICTIONARY) at `level` (TileDB's default is -1).
inline FilterPipeline compression_pipeline(FilterType type, std::int32_t level = -1) {
  Compressor c = type == FilterType::DICTIONARY ? Compressor::DICTIONARY_ENCODING : static_cast<Compressor>(type);
  FilterPipeline p;
  p.filters.value.push_back(Filter::make(type, CompressionOptions{c, level}, written_version));
  return p;
}

/// A fixed-size dimension over [lo, hi]; `type` defaults to T's datatype
/// (pass a date or time type for int64 values).
template <class T>
Dimension make_dimension(std::string name, T lo, T hi, std::optional<T> tile_extent,
                         Datatype type = datatype_of<T>()) {
  static_assert(std::is_arithmetic_v<T>, "tilefmt::format::make_dimension: T must be an arithmetic type");
  if (datatype_size(type) != sizeof(T))
    throw std::invalid_argument("tilefmt::format::make_dimension: the datatype's size is not sizeof(T)");
  Dimension d;
  d.name.value = std::move(name);
  d.type.value = type;
  d.cell_val_num.value = 1;
  d.domain.value = fixed_range(lo, hi).bytes;
  d.domain_size.value = d.domain.size();
  d.null_tile_extent = tile_extent ? 0 : 1;
  if (tile_extent) {
    d.tile_extent.value.resize(sizeof(T));
    codec::store_le<T>(d.tile_extent.value.data(), *tile_extent);
  }
  return d;
}

/// A var-size string dimension (STRING_ASCII): no domain, no tile extent.
inline Dimension make_string_dimension(std::string name) {
  Dimension d;
  d.name.value = std::move(name);
  d.type.value = Datatype::STRING_ASCII;
  d.cell_val_num.value = var_num;
  d.null_tile_extent = 1;
  return d;
}

/// What make_attribute takes, by name:
///   make_attribute({.name = "a", .type = Datatype::INT32, .nullable = true, .filters = P::descriptor()})
struct attribute_options {
  std::string name;
  Datatype type = Datatype::INT32;
  /// Values per cell; var_num for a var-size attribute.
  std::uint32_t cell_val_num = 1;
  bool nullable = false;
  FilterPipeline filters{};
  /// The value an unwritten cell reads as (one cell's bytes, little-endian);
  /// empty: TileDB's default for the type.
  std::vector<std::byte> fill_value{};
  /// The validity an unwritten cell of a nullable attribute reads as.
  bool fill_valid = false;
};

/// An attribute, with TileDB's default fill value unless one is given.
inline Attribute make_attribute(attribute_options o) {
  Attribute a;
  a.name.value = std::move(o.name);
  a.type = o.type;
  a.cell_val_num = o.cell_val_num;
  a.filters = std::move(o.filters);
  a.fill_value->value = o.fill_value.empty() ? default_fill_value(o.type, o.cell_val_num) : std::move(o.fill_value);
  a.nullable.value = o.nullable;
  a.fill_value_validity.value = o.fill_valid ? 1 : 0;
  return a;
}

/// What make_array_schema takes, by name; the rest as TileDB's ArraySchema
/// constructor sets it (coords and offsets ZSTD(-1), validity RLE(-1), an
/// empty current domain).
struct array_schema_options {
  ArrayType type = ArrayType::DENSE;
  std::vector<Dimension> dimensions{};
  std::vector<Attribute> attributes{};
  Layout tile_order = Layout::ROW_MAJOR;
  Layout cell_order = Layout::ROW_MAJOR;
  /// Cells per data tile of a sparse fragment.
  std::uint64_t capacity = 10000;
  /// Sparse arrays only: keep cells with equal coordinates.
  bool allows_dups = false;
};

/// A schema of the written format version.
inline ArraySchema make_array_schema(array_schema_options o) {
  ArraySchema s;
  s.array_type = o.type;
  s.tile_order = o.tile_order;
  s.cell_order = o.cell_order;
  s.capacity = o.capacity;
  s.allows_dups.value = o.allows_dups;
  s.coords_filters = compression_pipeline(FilterType::ZSTD);
  s.offsets_filters = compression_pipeline(FilterType::ZSTD);
  s.validity_filters.value = compression_pipeline(FilterType::RLE);
  s.domain.dimensions.value = std::move(o.dimensions);
  s.attributes.value = std::move(o.attributes);
  return s;
}

} // namespace tilefmt::format

// ---------------------------------------------------------------------------
// The codec specialisations
// ---------------------------------------------------------------------------
namespace tilefmt::codec {

namespace detail {

/// Decodes `n` records into `out`, each first set to `preset`, naming the
/// element that fails (`[i]`) as the codec does.
template <class T, class S>
void decode_preset_elements(reader& r, std::vector<T>& out, std::uint32_t n, const T& preset, S& st) {
  constexpr std::size_t element_min = traits<T>::min_size ? traits<T>::min_size : 1;
  if (n > r.remaining() / element_min)
    throw format_error("needs at least " + std::to_string(element_min) + " bytes per element", r.offset(),
                       ", " + std::to_string(r.remaining()) + " left (" + std::to_string(n) + " elements declared)");
  out.assign(n, preset);
  for (std::uint32_t i = 0; i < n; ++i) {
    try {
      traits<T>::decode(r, out[i], st);
    } catch (format_error& e) {
      e.prepend_index(i);
      throw;
    }
  }
}

/// Decodes field `name` with `f`, naming it in any error.
template <class F>
void decode_named(std::string_view name, F&& f) {
  try {
    f();
  } catch (format_error& e) {
    e.prepend_field(name);
    throw;
  }
}

} // namespace detail

/// Domain, before v5: the Domain's datatype is every dimension's, and sizes
/// their domains (2 * its size) and tile extents. A Dimension cannot see its
/// Domain, so each one is decoded with `type`, `cell_val_num` and
/// `domain_size` already set from the Domain (TileDB's Dimension::deserialize
/// receives the type the same way). From v5 the Domain is an ordinary record.
template <>
struct traits<format::Domain> : detail::record_traits<format::Domain> {
  using base = detail::record_traits<format::Domain>;

  template <class S>
  static void decode(reader& r, format::Domain& d, S& st) {
    if (!st.has_version) detail::fail_no_version(r);
    if (st.version >= 5) {
      base::decode(r, d, st);
      return;
    }
    detail::decode_named("type", [&] { traits<format::Datatype>::decode(r, d.type.value, st); });
    detail::decode_named("dimensions", [&] {
      const std::uint32_t n = r.read<std::uint32_t>();
      format::Dimension preset;
      preset.type.value = d.type.value;
      preset.cell_val_num.value = format::is_string(d.type.value) ? format::var_num : 1;
      preset.domain_size.value = 2 * format::datatype_size(d.type.value);
      detail::decode_preset_elements(r, d.dimensions.value, n, preset, st);
    });
  }

  template <class S>
  static void encode(writer& w, const format::Domain& d, S& st) {
    check_legacy_types(d, st);
    base::encode(w, d, st);
  }

  template <class S>
  static std::size_t size(const format::Domain& d, S& st) {
    check_legacy_types(d, st);
    return base::size(d, st);
  }

private:
  template <class S>
  static void check_legacy_types(const format::Domain& d, const S& st) {
    if (!st.has_version || st.version >= 5) return;
    for (const auto& dim : d.dimensions)
      if (dim.type.value != d.type.value || dim.domain_size.value != 2 * format::datatype_size(d.type.value))
        throw std::invalid_argument("tilefmt: before format version 5 every dimension has the Domain's type (" +
                                    std::string(format::codec_enum_name(d.type.value)) + "); dimension " +
                                    dim.name.value + " differs");
  }
};

namespace detail {

/// The context an ArraySchema's fields are decoded and encoded with: the
/// caller's, plus the schema itself so that the current domain finds the
/// dimensions decoded before it.
template <class Outer>
struct array_schema_scope {
  const Outer& outer;
  const format::ArraySchema& schema;
  std::vector<format::DimensionShape> dimension_shapes() const { return format::dimension_shapes(schema.domain); }
};

template <class S>
auto array_schema_state(S& st, const format::ArraySchema& schema) {
  using Outer = std::remove_cvref_t<decltype(st.ctx)>;
  return array_schema_scope<Outer>{st.ctx, schema};
}

} // namespace detail

/// ArraySchema: an ordinary record, walked with a context that lets its
/// current domain see its domain (NDRectangle needs the dimension types).
/// On decode it also rejects what TileDB rejects besides the field types: a
/// tile order other than ROW_MAJOR / COL_MAJOR, and a version newer than
/// format::newest_read_version whose bytes do not decode with the
/// current layout (the error then names the version).
template <>
struct traits<format::ArraySchema> : detail::record_traits<format::ArraySchema> {
  using base = detail::record_traits<format::ArraySchema>;

  template <class S>
  static void decode(reader& r, format::ArraySchema& v, S& st) {
    const std::size_t start = r.offset();
    auto scope = detail::array_schema_state(st, v);
    state<decltype(scope)> inner(scope);
    inner.version = st.version;
    inner.has_version = st.has_version;
    try {
      base::decode(r, v, inner);
    } catch (format_error& e) {
      if (r.offset() >= start + 4 && e.offset() >= start + 4 && v.version.value > format::newest_read_version) {
        format_error named("array schema format version " + std::to_string(v.version.value) + " is newer than " +
                               std::to_string(format::newest_read_version) +
                               ", the newest known, and its bytes do not decode with that version's layout (" +
                               e.what() + ")",
                           start);
        named.prepend_field("version");
        throw named;
      }
      throw;
    }
    if (v.tile_order != format::Layout::ROW_MAJOR && v.tile_order != format::Layout::COL_MAJOR) {
      format_error e("a tile order must be ROW_MAJOR or COL_MAJOR, found " +
                         std::string(format::codec_enum_name(v.tile_order)),
                     start + 5 + (v.version.value >= 5 ? 1 : 0));
      e.prepend_field("tile_order");
      throw e;
    }
  }

  template <class S>
  static void encode(writer& w, const format::ArraySchema& v, S& st) {
    auto scope = detail::array_schema_state(st, v);
    state<decltype(scope)> inner(scope);
    base::encode(w, v, inner);
  }

  template <class S>
  static std::size_t size(const format::ArraySchema& v, S& st) {
    auto scope = detail::array_schema_state(st, v);
    state<decltype(scope)> inner(scope);
    return base::size(v, inner);
  }
};

} // namespace tilefmt::codec
