// tilefmt — which format version first has each datatype, filter, layout
// and schema feature: the version written by the libtiledb release that
// introduced it (that release's C API and enums, checked against the
// release's own library where the interop suite drives it). A writer that
// targets an older version refuses what the version lacks, since that
// release would not read it.
#pragma once

#include <cstdint>
#include <string>

#include "tilefmt/format/array_schema.hpp"

namespace tilefmt::format {

/// The oldest format version tilefmt writes (libtiledb 2.0): the first with
/// a dimension per coordinate file and timestamped `__t1_t2_uuid_v` names.
inline constexpr std::uint32_t oldest_written_version = 5;

/// The first format version whose libtiledb knows datatype `t` (5 for the
/// types every written version knows).
constexpr std::uint32_t first_version(Datatype t) {
  const auto v = static_cast<std::uint8_t>(t);
  if (v >= static_cast<std::uint8_t>(Datatype::GEOM_WKB)) return 21;  // libtiledb 2.21
  if (t == Datatype::BOOL) return 14;                                 // 2.10
  if (t == Datatype::BLOB) return 11;                                 // 2.7
  if (v >= static_cast<std::uint8_t>(Datatype::TIME_HR)) return 9;    // 2.3
  return oldest_written_version;
}

/// The first format version whose libtiledb knows filter `f`.
constexpr std::uint32_t first_version(FilterType f) {
  switch (f) {
  case FilterType::DICTIONARY: return 13;   // libtiledb 2.9
  case FilterType::SCALE_FLOAT: return 15;  // 2.11
  case FilterType::XOR: return 16;          // 2.12
  case FilterType::WEBP: return 16;         // 2.13
  case FilterType::DELTA: return 19;        // 2.16
  default: return oldest_written_version;
  }
}

/// The first format version whose libtiledb knows layout `l`.
constexpr std::uint32_t first_version(Layout l) { return l == Layout::HILBERT ? 7 : oldest_written_version; }

namespace detail {
inline std::string too_new(const std::string& what, std::uint32_t since, std::uint32_t version) {
  return what + " needs format version " + std::to_string(since) + " or later, not " + std::to_string(version);
}
} // namespace detail

/// Why `s` cannot be written at format `version`, or an empty string.
inline std::string unsupported_at(const ArraySchema& s, std::uint32_t version) {
  auto pipeline = [&](const FilterPipeline& p, const std::string& whose) -> std::string {
    for (const auto& f : p.filters)
      if (first_version(f.type) > version)
        return detail::too_new(whose + ": the " + std::string(codec_enum_name(f.type)) + " filter", first_version(f.type),
                               version);
    return {};
  };
  for (Layout l : {s.tile_order, s.cell_order})
    if (first_version(l) > version)
      return detail::too_new("the " + std::string(codec_enum_name(l)) + " order", first_version(l), version);
  for (const auto* p : {&s.coords_filters, &s.offsets_filters, &s.validity_filters.value})
    if (auto why = pipeline(*p, "the schema's coordinate, offset or validity filters"); !why.empty()) return why;
  for (const auto& d : s.domain.dimensions) {
    const std::string who = "dimension \"" + d.name.value + "\"";
    if (first_version(d.type.value) > version)
      return detail::too_new(who + " of type " + std::string(codec_enum_name(d.type.value)), first_version(d.type.value),
                             version);
    if (auto why = pipeline(d.filters.value, who); !why.empty()) return why;
  }
  for (const auto& a : s.attributes) {
    const std::string who = "attribute \"" + a.name.value + "\"";
    if (first_version(a.type) > version)
      return detail::too_new(who + " of type " + std::string(codec_enum_name(a.type)), first_version(a.type), version);
    if (auto why = pipeline(a.filters, who); !why.empty()) return why;
    if (a.nullable.value && version < 7) return detail::too_new(who + ": nullable attributes", 7, version);
    if (version < 6 && a.fill() != default_fill_value(a.type, a.cell_val_num))
      return detail::too_new(who + ": a fill value other than the default", 6, version);
    if (a.order.value != DataOrder::UNORDERED && version < 17)
      return detail::too_new(who + ": ordered attributes", 17, version);
    if (!a.enumeration_name.value.value.empty() && version < 20)
      return detail::too_new(who + ": enumerations", 20, version);
  }
  if (!s.dimension_labels.value.value.empty() && version < 18)
    return detail::too_new("dimension labels", 18, version);
  if (!s.current_domain.value.empty && version < 22) return detail::too_new("a current domain", 22, version);
  return {};
}

} // namespace tilefmt::format
