// tilefmt — what a path holds, as TileDB answers it (tiledb_object_type,
// tiledb_ls, tiledb_object_walk): an array, a group, or nothing TileDB
// knows.
//
//   auto t = tilefmt::group::object_type("path/to/x");   // format::ObjectType
//   tilefmt::group::walk("path/to/experiment", [](const fs::path& p, format::ObjectType t) {
//     std::cout << p << " " << format::codec_enum_name(t) << "\n";
//     return true;                                        // false stops the walk
//   });
//
// An array has `__schema/` or the legacy `__array_schema.tdb` (checked
// first: a folder with both kinds of marker is an array); a group has
// `__group/` or the marker `__tiledb_group.tdb` (groups before TileDB 2.8
// have only the marker). ls() and walk() follow the folders, not a group's
// member list, as TileDB's do: the children of a folder in byte order of
// their names, only those that are arrays or groups, and walk() goes into
// arrays too (an array folder may hold groups) but not into plain folders.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/model/io.hpp"
#include "tilefmt/format/group_details.hpp"
#include "tilefmt/storage/backend.hpp"
#include "tilefmt/storage/local.hpp"

namespace tilefmt::group {

namespace fs = std::filesystem;
using storage::io_error;

/// What `p` holds: ARRAY, GROUP or INVALID (neither, or nothing there).
inline format::ObjectType object_type(const storage::backend& st, const fs::path& p) {
  if (st.is_folder(p / "__schema") || st.is_file(p / "__array_schema.tdb")) return format::ObjectType::ARRAY;
  if (st.is_folder(p / "__group") || st.is_file(p / "__tiledb_group.tdb")) return format::ObjectType::GROUP;
  return format::ObjectType::INVALID;
}
inline format::ObjectType object_type(const fs::path& p) { return object_type(storage::local{}, p); }

/// Called with each object's path and type; false stops the walk.
using object_visitor = std::function<bool(const fs::path&, format::ObjectType)>;

enum class walk_order { preorder, postorder };

/// The arrays and groups directly in folder `p`, in byte order of their
/// names.
inline std::vector<std::pair<fs::path, format::ObjectType>> ls(const storage::backend& st, const fs::path& p) {
  std::vector<std::pair<fs::path, format::ObjectType>> out;
  for (const auto& e : st.list(p)) {
    if (!e.folder) continue;
    const fs::path child = p / e.name;
    if (const auto t = object_type(st, child); t != format::ObjectType::INVALID) out.emplace_back(child, t);
  }
  return out;
}
inline std::vector<std::pair<fs::path, format::ObjectType>> ls(const fs::path& p) { return ls(storage::local{}, p); }

namespace detail {
/// Depth first; false once `visit` asked to stop. The walk follows
/// folders, which cannot form a cycle (links are not followed: storage
/// lists entries, and a link to a folder lists as a file or not at all).
inline bool walk_from(const storage::backend& st, const fs::path& p, walk_order order, const object_visitor& visit,
                      std::size_t depth) {
  if (depth > 256) throw io_error(p, "folders nested more than 256 deep");
  for (const auto& [child, type] : ls(st, p)) {
    if (order == walk_order::preorder && !visit(child, type)) return false;
    if (!walk_from(st, child, order, visit, depth + 1)) return false;
    if (order == walk_order::postorder && !visit(child, type)) return false;
  }
  return true;
}
} // namespace detail

/// Visits every array and group under `p` (not `p` itself), as
/// tiledb_object_walk does.
inline void walk(const storage::backend& st, const fs::path& p, const object_visitor& visit,
                 walk_order order = walk_order::preorder) {
  detail::walk_from(st, p, order, visit, 0);
}
inline void walk(const fs::path& p, const object_visitor& visit, walk_order order = walk_order::preorder) {
  walk(storage::local{}, p, visit, order);
}

} // namespace tilefmt::group
