// tilefmt — evolving an array's schema (TileDB's ArraySchemaEvolution):
// attributes added and dropped, enumerations added, extended and dropped,
// the current domain expanded; written as a new schema file in `__schema/`
// (and new enumeration files in `__schema/__enumerations/`) that readers
// opened at or after its timestamp use. Fragments written before keep
// naming the schema they were written with; reads fill an added attribute
// with its fill value in them.
//
//   array::schema_evolution()
//       .add_attribute(format::make_attribute({.name = "quality", .type = format::Datatype::UINT8}))
//       .drop_attribute("legacy")
//       .extend_enumeration(format::make_enumeration("colors", {"red", "green", "blue", "teal"}))
//       .expand_current_domain({format::fixed_range<std::int64_t>(0, 9999)})
//       .evolve("path/to/array");
//
// TileDB applies them in this order: enumerations added and extended,
// attributes added, attributes dropped, enumerations dropped, the current
// domain expanded.
//
// Part of maintenance (array/maintain.hpp).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "tilefmt/array/model/coordinates.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/write/create.hpp"
#include "tilefmt/array/write/schema_rules.hpp"

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
  /// Adds enumeration `e` (format::make_enumeration), which attributes added
  /// in the same evolution may name.
  schema_evolution& add_enumeration(format::Enumeration e) {
    check_new_name(e.name.value);
    add_enums_.push_back(std::move(e));
    return *this;
  }
  /// Replaces enumeration `e.name` by `e`, which must hold its values first
  /// and more after them (TileDB's Enumeration::extend), in a new file:
  /// fragments written before keep their values' meanings.
  schema_evolution& extend_enumeration(format::Enumeration e) {
    check_new_name(e.name.value);
    extend_enums_.push_back(std::move(e));
    return *this;
  }
  /// Drops the enumeration called `name`; no attribute may still name it.
  schema_evolution& drop_enumeration(std::string name) {
    drop_enums_.push_back(std::move(name));
    return *this;
  }
  /// Sets the current domain to `ranges` (one per dimension), which must
  /// cover the current one and lie within the domain.
  schema_evolution& expand_current_domain(format::NDRectangle ranges) {
    current_domain_ = std::move(ranges);
    return *this;
  }

  /// The schema `s` becomes. Throws std::invalid_argument where TileDB
  /// refuses: an added name already in the schema, a dropped one that is
  /// not an attribute (or enumeration), no attribute left, an attribute the
  /// schema's version cannot hold or naming an enumeration it lacks, an
  /// extension that does not start with the enumeration's values, a
  /// current domain that shrinks or leaves the domain.
  ///
  /// `existing(name)` gives the array's enumeration `name` (extensions are
  /// checked against it); without it, extensions are not checked.
  format::ArraySchema evolved(format::ArraySchema s,
                              const std::function<format::Enumeration(const std::string&)>& existing = {}) const {
    return apply(std::move(s), existing).first;
  }

  /// Writes the evolved schema of the array at `root` as `__schema/__t_t_label`
  /// (`opt.timestamp`, or now, not before the latest schema's) at the
  /// array's format version, which must be 10 or later (the first with a
  /// `__schema` folder); returns its name.
  std::string evolve(const fs::path& root, const write_options& opt = {}) const {
    auto st = detail::or_local(opt.storage);
    const listing l = list_array(*st, root);
    if (l.latest_schema.empty()) throw io_error(root, "has no schema file");
    const format::ArraySchema current = detail::read_schema_for_writing(*st, l.latest_schema, opt.encryption_key);
    const std::uint32_t v = current.version.value;
    if (v < 10 || v > format::written_version)
      throw std::invalid_argument("tilefmt: schema_evolution: evolves arrays of format versions 10 to " +
                                  std::to_string(format::written_version) + "; the array is version " + std::to_string(v));
    const auto [next, files] = apply(current, [&](const std::string& name) {
      for (const auto& ref : current.enumerations.value.value)
        if (ref.name.value == name) {
          naming_file(root / "__schema" / "__enumerations", [&] { format::check_file_name(ref.filename.value); });
          const fs::path p = root / "__schema" / "__enumerations" / ref.filename.value;
          return naming_file(p, [&] {
            return codec::decode<format::Enumeration>(
                filter::read_generic_tile(st->read(p), {.encryption_key = opt.encryption_key}).payload);
          });
        }
      throw std::invalid_argument("tilefmt: schema_evolution: cannot extend enumeration \"" + name +
                                  "\": no such enumeration");
    });
    auto [t, label] = detail::name_parts(opt);
    const auto latest = format::parse_timestamped_name(l.latest_schema.filename().string());
    if (t < latest.t2)
      throw std::invalid_argument("tilefmt: schema_evolution: timestamp " + std::to_string(t) +
                                  " is before the latest schema's (" + std::to_string(latest.t2) + ")");
    const std::string name = format::make_timestamped_name(t, t, label);
    // The enumerations before the schema that names them.
    detail::write_enumerations(*st, root, files, v, opt.encryption_key);
    st->write(root / "__schema" / name, filter::write_generic_tile(codec::encode(next), v, opt.encryption_key));
    return name;
  }

private:
  void check_new_name(const std::string& name) const {
    for (const auto* list : {&add_enums_, &extend_enums_})
      for (const auto& e : *list)
        if (e.name.value == name)
          throw std::invalid_argument("tilefmt: schema_evolution: enumeration \"" + name + "\" is given twice");
  }

  /// The evolved schema and the enumeration files it names that are new.
  std::pair<format::ArraySchema, std::vector<format::Enumeration>> apply(
      format::ArraySchema s, const std::function<format::Enumeration(const std::string&)>& existing) const {
    // TileDB evolves the schema it loaded, and from libtiledb 2.17 (format
    // 20) loading gives a dimension without filters the coordinate filters
    // (Dimension::deserialize): the new file spells them out.
    if (s.version.value >= 20)
      for (auto& d : s.domain.dimensions.value)
        if (d.filters.value.filters.empty()) d.filters.value = s.coords_filters;
    std::vector<format::Enumeration> files = add_enums_;
    files.insert(files.end(), extend_enums_.begin(), extend_enums_.end());
    detail::prepare_enumerations(s, files, s.version.value);
    // In TileDB's order: the evolution holds its enumerations in hash maps
    // too (ArraySchemaEvolution::evolve_schema walks them).
    detail::enumeration_refs refs(s.enumerations.value.value);
    std::unordered_map<std::string, const format::Enumeration*> adds, extends;
    for (std::size_t i = 0; i < files.size(); ++i)
      (i < add_enums_.size() ? adds : extends)[files[i].name.value] = &files[i];
    for (const auto& [name, e] : adds) {
      if (refs.contains(name))
        throw std::invalid_argument("tilefmt: schema_evolution: the schema already has enumeration \"" + name + "\"");
      refs.set(name, e->path_name.value);
    }
    for (const auto& [name, e] : extends) {
      if (!refs.contains(name))
        throw std::invalid_argument("tilefmt: schema_evolution: cannot extend enumeration \"" + name +
                                    "\": no such enumeration");
      if (existing) check_extension(existing(name), *e);
      refs.set(name, e->path_name.value);
    }
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
    for (const auto& name : drop_enums_) {
      if (!refs.contains(name))
        throw std::invalid_argument("tilefmt: schema_evolution: cannot drop enumeration \"" + name +
                                    "\": no such enumeration");
      for (const auto& a : s.attributes.value)
        if (a.enumeration_name.value.value == name)
          throw std::invalid_argument("tilefmt: schema_evolution: cannot drop enumeration \"" + name +
                                      "\": attribute \"" + a.name.value + "\" uses it");
      refs.erase(name);
    }
    s.enumerations.value.value = refs.list();
    if (current_domain_) expand(s, *current_domain_);
    std::vector<format::Enumeration> none;
    detail::prepare_enumerations(s, none, s.version.value);  // attributes name enumerations the schema has
    detail::check_schema(s);
    if (auto why = format::unsupported_at(s, s.version.value); !why.empty())
      throw std::invalid_argument("tilefmt: schema_evolution: " + why);
    return {std::move(s), std::move(files)};
  }

  /// TileDB's Enumeration::is_extension_of: same type, cell size and
  /// order, the old values first, more after them.
  static void check_extension(const format::Enumeration& old, const format::Enumeration& e) {
    const std::string who = "tilefmt: schema_evolution: enumeration \"" + e.name.value + "\": ";
    if (old.type != e.type || old.cell_val_num != e.cell_val_num || old.ordered != e.ordered)
      throw std::invalid_argument(who + "an extension keeps the type, cell size and order");
    const auto& a = old.data.value;
    const auto& b = e.data.value;
    const auto& ao = old.offsets.value.value;
    const auto& bo = e.offsets.value.value;
    if (b.size() <= a.size() || !std::equal(a.begin(), a.end(), b.begin()) || bo.size() < ao.size() ||
        !std::equal(ao.begin(), ao.end(), bo.begin()))
      throw std::invalid_argument(who + "an extension holds the enumeration's values first, and more after them");
  }

  /// The current domain `r` replaces the schema's, which it must cover,
  /// inside the domain (ArraySchema::expand_current_domain).
  static void expand(format::ArraySchema& s, const format::NDRectangle& r) {
    const auto& dims = s.domain.dimensions.value;
    const std::string who = "tilefmt: schema_evolution: expand_current_domain: ";
    if (s.version.value < 22) throw std::invalid_argument(who + "current domains need format version 22");
    if (r.ranges.size() != dims.size())
      throw std::invalid_argument(who + std::to_string(r.ranges.size()) + " ranges for " +
                                  std::to_string(dims.size()) + " dimensions");
    const auto& cd = s.current_domain.value;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::string dim = "dimension \"" + dims[d].name.value + "\": ";
      if (dims[d].is_var()) {
        const auto [lo, hi] = r.ranges[d].as_strings();
        if (lo > hi) throw std::invalid_argument(who + dim + "the range is empty");
        if (!cd.empty) {
          const auto [olo, ohi] = cd.ndrectangle.value.ranges[d].as_strings();
          if (lo > olo || hi < ohi) throw std::invalid_argument(who + dim + "the current domain can only grow");
        }
        continue;
      }
      bool ok = format::visit_coordinate_type(dims[d].type.value, [&]<class T>() {
        const auto [lo, hi] = r.ranges[d].template as<T>();
        const auto [dlo, dhi] = dims[d].template domain_as<T>();
        if (lo > hi) throw std::invalid_argument(who + dim + "the range is empty");
        if (lo < dlo || hi > dhi) throw std::invalid_argument(who + dim + "the range leaves the domain");
        if (!cd.empty) {
          const auto [olo, ohi] = cd.ndrectangle.value.ranges[d].template as<T>();
          if (lo > olo || hi < ohi) throw std::invalid_argument(who + dim + "the current domain can only grow");
        }
      });
      if (!ok) throw std::invalid_argument(who + dim + "unsupported type");
    }
    format::CurrentDomain next;
    next.empty = false;
    next.type.value = format::CurrentDomainType::NDRECTANGLE;
    next.ndrectangle.value = r;
    s.current_domain.value = std::move(next);
  }

  std::vector<format::Attribute> add_;
  std::vector<std::string> drop_;
  std::vector<format::Enumeration> add_enums_, extend_enums_;
  std::vector<std::string> drop_enums_;
  std::optional<format::NDRectangle> current_domain_;
};

} // namespace tilefmt::array
