// tilefmt — evolving an array's schema (TileDB's ArraySchemaEvolution):
// attributes added and dropped, written as a new schema file in `__schema/`
// that readers opened at or after its timestamp use. Fragments written
// before keep naming the schema they were written with; reads fill an added
// attribute with its fill value in them.
//
//   array::schema_evolution()
//       .add_attribute(format::make_attribute({.name = "quality", .type = format::Datatype::UINT8}))
//       .drop_attribute("legacy")
//       .evolve("path/to/array");
//
// Part of the writer (array/writer.hpp).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/array/create.hpp"

namespace tilefmt::array {

class schema_evolution {
public:
  /// Adds `a` (applied before the drops, as TileDB does).
  schema_evolution& add_attribute(format::Attribute a) {
    for (const auto& x : add_)
      if (x.name.value == a.name.value)
        throw std::invalid_argument("tilefmt: schema_evolution: attribute \"" + a.name.value + "\" is added twice");
    add_.push_back(std::move(a));
    return *this;
  }
  /// Drops the attribute called `name`.
  schema_evolution& drop_attribute(std::string name) {
    drop_.push_back(std::move(name));
    return *this;
  }

  /// The schema `s` becomes: attributes added, then dropped. Throws
  /// std::invalid_argument where TileDB refuses: an added name already in the
  /// schema, a dropped one that is not an attribute, no attribute left, or
  /// an attribute the schema's version cannot hold.
  format::ArraySchema evolved(format::ArraySchema s) const {
    // TileDB evolves the schema it loaded, and from libtiledb 2.17 (format
    // 20) loading gives a dimension without filters the coordinate filters
    // (Dimension::deserialize): the new file spells them out.
    if (s.version.value >= 20)
      for (auto& d : s.domain.dimensions.value)
        if (d.filters.value.filters.empty()) d.filters.value = s.coords_filters;
    for (const auto& a : add_) {
      if (s.attribute(a.name.value) || std::ranges::any_of(s.domain.dimensions.value, [&](const auto& d) {
            return d.name.value == a.name.value;
          }))
        throw std::invalid_argument("tilefmt: schema_evolution: the schema already has \"" + a.name.value + "\"");
      s.attributes.value.push_back(a);
    }
    for (const auto& name : drop_) {
      auto& attrs = s.attributes.value;
      auto it = std::ranges::find_if(attrs, [&](const auto& a) { return a.name.value == name; });
      if (it == attrs.end())
        throw std::invalid_argument("tilefmt: schema_evolution: cannot drop \"" + name +
                                    "\": it is a dimension or no attribute of the schema");
      attrs.erase(it);
    }
    detail::check_schema(s);
    if (auto why = format::unsupported_at(s, s.version.value); !why.empty())
      throw std::invalid_argument("tilefmt: schema_evolution: " + why);
    return s;
  }

  /// Writes the evolved schema of the array at `root` as `__schema/__t_t_label`
  /// (`opt.timestamp`, or now, not before the latest schema's) at the
  /// array's format version, which must be 10 or later (the first with a
  /// `__schema` folder); returns its name.
  std::string evolve(const fs::path& root, const write_options& opt = {}) const {
    auto st = detail::or_local(opt.storage);
    const listing l = list_array(*st, root);
    if (l.latest_schema.empty()) throw io_error(root, "has no schema file");
    const format::ArraySchema current = detail::read_schema(*st, l.latest_schema, {});
    const std::uint32_t v = current.version.value;
    if (v < 10 || v > format::written_version)
      throw std::invalid_argument("tilefmt: schema_evolution: evolves arrays of format versions 10 to " +
                                  std::to_string(format::written_version) + "; the array is version " + std::to_string(v));
    const format::ArraySchema next = evolved(current);
    auto [t, label] = detail::name_parts(opt);
    const auto latest = format::parse_timestamped_name(l.latest_schema.filename().string());
    if (t < latest.t2)
      throw std::invalid_argument("tilefmt: schema_evolution: timestamp " + std::to_string(t) +
                                  " is before the latest schema's (" + std::to_string(latest.t2) + ")");
    const std::string name = format::make_timestamped_name(t, t, label);
    st->write(root / "__schema" / name, filter::write_generic_tile(codec::encode(next), v));
    return name;
  }

private:
  std::vector<format::Attribute> add_;
  std::vector<std::string> drop_;
};

} // namespace tilefmt::array
