// tilefmt — the rules TileDB applies to a schema before it creates an
// array or writes a fragment (check_schema, dense dimensions,
// enumerations), and the making of a new array's folders and schema file
// (create_array, behind array::create).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/io.hpp"
#include "tilefmt/array/write/dimension_labels.hpp"
#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/feature_versions.hpp"

namespace tilefmt::array {

namespace detail {

/// A dimension's [lo, hi] and tile extent as int64 (dense dimensions are
/// integers, or dates and times stored as int64).
struct dense_dim {
  std::int64_t lo = 0, hi = 0, extent = 1;
};

inline dense_dim dense_dimension(const format::Dimension& d) {
  dense_dim out;
  const std::string who = "tilefmt: dense dimension \"" + d.name.value + "\"";
  if (d.is_var()) throw std::invalid_argument(who + " is var-size; dense arrays need integer dimensions");
  if (!d.has_tile_extent()) throw std::invalid_argument(who + " has no tile extent");
  const bool integral = format::visit_integer_type(d.type.value, [&]<class T>() {
    if (d.domain.size() != 2 * sizeof(T) || d.tile_extent.size() != sizeof(T))
      throw std::invalid_argument(who + ": domain or tile extent does not match its type");
    auto [lo, hi] = d.domain_as<T>();
    T ext = *d.tile_extent_as<T>();
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      if (hi > static_cast<T>(std::numeric_limits<std::int64_t>::max()))
        throw std::invalid_argument(who + ": uint64 domains past INT64_MAX are not supported by this writer");
    }
    out.lo = static_cast<std::int64_t>(lo);
    out.hi = static_cast<std::int64_t>(hi);
    out.extent = static_cast<std::int64_t>(ext);
  });
  if (!integral || format::datatype_size(d.type.value) == 0 || d.type.value == format::Datatype::CHAR ||
      d.type.value == format::Datatype::BOOL || d.type.value == format::Datatype::BLOB ||
      d.type.value == format::Datatype::ANY || d.type.value == format::Datatype::STRING_ASCII)
    throw std::invalid_argument(who + " has type " + std::string(format::codec_enum_name(d.type.value)) +
                                "; dense arrays need integer, date or time dimensions");
  if (out.lo > out.hi) throw std::invalid_argument(who + ": the domain's lower bound is above its upper bound");
  if (out.extent <= 0) throw std::invalid_argument(who + ": the tile extent must be positive");
  return out;
}

/// What TileDB checks of a schema before creating an array, as far as this
/// writer relies on it.
inline void check_schema(const format::ArraySchema& s) {
  if (s.domain.dimensions.empty()) throw std::invalid_argument("tilefmt: the schema has no dimensions");
  if (s.attributes.empty()) throw std::invalid_argument("tilefmt: the schema has no attributes");
  // TileDB reserves "__" for attributes only: dimensions may have it
  // (TileDB-Py's from_numpy names its `__dim_0`, ..., from_pandas an unnamed
  // index `__tiledb_rows`), and an attribute may have no name (TileDB-Py's
  // default in from_numpy) where its files are numbered (format 9 on).
  std::vector<std::string> names;
  for (const auto& d : s.domain.dimensions) {
    if (d.name.value.empty()) throw std::invalid_argument("tilefmt: a dimension has an empty name");
    names.push_back(d.name.value);
  }
  for (const auto& a : s.attributes) {
    const auto& n = a.name.value;
    if (n.rfind("__", 0) == 0) throw std::invalid_argument("tilefmt: attribute names starting with \"__\" are TileDB's: " + n);
    if (n.empty() && s.version.value < 9)
      throw std::invalid_argument("tilefmt: an attribute without a name needs format version 9 or later (its files are "
                                  "named after it before)");
    names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  if (auto it = std::adjacent_find(names.begin(), names.end()); it != names.end())
    throw std::invalid_argument("tilefmt: the name \"" + *it + "\" is used twice");
  if (!s.is_sparse()) {
    if (s.cell_order == format::Layout::HILBERT || s.tile_order == format::Layout::HILBERT)
      throw std::invalid_argument("tilefmt: dense arrays cannot use the Hilbert order");
    for (const auto& d : s.domain.dimensions) {
      (void)dense_dimension(d);
      if (d.type.value != s.domain.dimensions[0].type.value)
        throw std::invalid_argument("tilefmt: the dimensions of a dense array must all have one type");
    }
  }
  for (const auto& a : s.attributes)
    if (a.cell_val_num == 0) throw std::invalid_argument("tilefmt: attribute \"" + a.name.value + "\" has cell_val_num 0");
}


/// Gives each enumeration its file name (a fresh `__<label>_0` unless it has
/// one) and checks what TileDB checks: unique names, format 20 or later,
/// attributes naming enumerations that exist, with integer values.
inline void prepare_enumerations(const format::ArraySchema& schema, std::vector<format::Enumeration>& enumerations,
                                 std::uint32_t version) {
  if (!enumerations.empty() && version < 20)
    throw std::invalid_argument("tilefmt: enumerations need format version 20 (libtiledb 2.17); the array is " +
                                std::to_string(version));
  std::set<std::string> names;
  for (auto& e : enumerations) {
    if (!names.insert(e.name.value).second)
      throw std::invalid_argument("tilefmt: enumeration \"" + e.name.value + "\" is given twice");
    if (e.path_name.value.empty()) e.path_name.value = format::make_enumeration_file_name(random_label(now_ms()));
    format::check_file_name(e.path_name.value);
  }
  for (const auto& ref : schema.enumerations.value.value) names.insert(ref.name.value);
  for (const auto& a : schema.attributes.value) {
    const auto& n = a.enumeration_name.value.value;
    if (n.empty()) continue;
    if (names.count(n) == 0)
      throw std::invalid_argument("tilefmt: attribute \"" + a.name.value + "\" names enumeration \"" + n +
                                  "\", which the schema does not have");
    if (a.cell_val_num != 1 || !format::is_integer(a.type))
      throw std::invalid_argument("tilefmt: attribute \"" + a.name.value +
                                  "\" has an enumeration: its values must be one integer per cell");
  }
}

/// The schema's enumeration list in the order TileDB writes it: TileDB keeps
/// it in a std::unordered_map (ArraySchema::enumeration_path_map_) and
/// writes it in the map's order. Loading a schema fills one map in file
/// order and copies it into the schema's, entry by entry (the
/// ArraySchema constructor); add_enumeration inserts. The same map
/// operations here give the same order with the same standard library
/// (libstdc++, as TileDB's releases are built); readers do not depend on it.
class enumeration_refs {
public:
  explicit enumeration_refs(const std::vector<format::EnumerationRef>& refs = {}) {
    std::unordered_map<std::string, std::string> loaded;
    for (const auto& r : refs) loaded.insert({r.name.value, r.filename.value});
    for (const auto& entry : loaded) map_.insert(entry);
  }
  bool contains(const std::string& name) const { return map_.count(name) != 0; }
  void set(const std::string& name, const std::string& file) { map_[name] = file; }
  void erase(const std::string& name) { map_.erase(name); }
  std::vector<format::EnumerationRef> list() const {
    std::vector<format::EnumerationRef> out;
    for (const auto& [name, file] : map_) out.push_back({{name}, {file}});
    return out;
  }

private:
  std::unordered_map<std::string, std::string> map_;
};

/// Writes enumeration files (prepared) into `__schema/__enumerations/`.
inline void write_enumerations(storage::backend& st, const fs::path& root,
                               const std::vector<format::Enumeration>& enumerations, std::uint32_t version,
                               std::span<const std::uint8_t> key) {
  for (const auto& e : enumerations)
    st.write(root / "__schema" / "__enumerations" / e.path_name.value,
             filter::write_generic_tile(codec::encode(e), version, key));
}

inline std::string create_array(const fs::path& root, format::ArraySchema schema,
                                std::vector<format::Enumeration> enumerations, const write_options& opt) {
  const std::uint32_t v = opt.format_version;
  if (v < format::oldest_written_version || v > format::written_version)
    throw std::invalid_argument("tilefmt: create writes format versions " +
                                std::to_string(format::oldest_written_version) + " to " +
                                std::to_string(format::written_version) + ", not " + std::to_string(v));
  schema.version.value = v;
  check_encryption_key(opt.encryption_key);
  prepare_enumerations(schema, enumerations, v);
  enumeration_refs refs(schema.enumerations.value.value);
  for (const auto& e : enumerations) refs.set(e.name.value, e.path_name.value);
  schema.enumerations.value.value = refs.list();
  std::vector<format::ArraySchema> label_schemas;
  for (const auto& l : opt.dimension_labels) {
    check_dimension_label(schema, l);
    label_schemas.push_back(label_array_schema(schema, l));
    detail::check_schema(label_schemas.back());  // before anything is made
    auto& labels = schema.dimension_labels.value.value;
    labels.push_back(dimension_label_reference(l, labels.size()));
  }
  detail::check_schema(schema);
  if (auto why = format::unsupported_at(schema, v); !why.empty()) throw std::invalid_argument("tilefmt: create: " + why);
  auto st = detail::or_local(opt.storage);
  if (is_array(*st, root)) throw io_error(root, "already holds a TileDB array");
  auto [t, label] = detail::name_parts(opt);
  // Encode before touching the disk, so a schema the codec rejects leaves nothing behind.
  std::vector<std::byte> payload = codec::encode(schema);
  std::vector<std::byte> file = filter::write_generic_tile(payload, v, opt.encryption_key);
  std::vector<std::string> folders{"__meta"};
  if (v >= 10) folders.push_back("__schema");
  if (v >= 12) folders.insert(folders.end(), {"__commits", "__fragments", "__fragment_meta"});
  if (v >= 18) folders.push_back("__labels");
  if (v >= 20) folders.push_back("__schema/__enumerations");
  st->make_folder(root);
  for (const auto& sub : folders) st->make_folder(root / sub);
  if (v < 11) st->write(root / "__lock.tdb", std::span<const std::byte>{});
  if (v < 10) {
    st->write(root / "__array_schema.tdb", file);
    return "__array_schema.tdb";
  }
  // The enumerations and label arrays before the schema that names them.
  write_enumerations(*st, root, enumerations, v, opt.encryption_key);
  if (!label_schemas.empty()) {
    write_options label_opt = opt;
    label_opt.dimension_labels.clear();
    label_opt.enumerations.clear();
    const auto& labels = schema.dimension_labels.value.value;  // the new ones last
    for (std::size_t i = 0; i < label_schemas.size(); ++i)
      create_array(root / labels[labels.size() - label_schemas.size() + i].uri.value, std::move(label_schemas[i]),
                   {}, label_opt);
  }
  std::string name = format::make_timestamped_name(t, t, label);
  st->write(root / "__schema" / name, file);
  return name;
}

} // namespace detail

} // namespace tilefmt::array
