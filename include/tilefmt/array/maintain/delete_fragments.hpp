// tilefmt — deleting whole fragments, or a whole array, as TileDB's
// Array::delete_fragments and Array::delete_array do (2.30).
//
//   array::delete_fragments("path/to/array", 10, 20);  // written within [10, 20] ms
//   array::delete_array("path/to/array");
//
// A fragment goes as a vacuum removes it: its commit marker first (it is
// then invisible whatever happens next), then its folder. A commit that a
// consolidated commits file (`.con`) holds cannot be removed from it: an
// ignore file names it, written before anything is removed. The fragments
// are those TileDB lists for the range: a fragment a consolidation replaced
// is left to vacuum_fragments when its vacuum file lies inside the range
// too, and deleted like any other when not.
//
// Part of maintenance (array/maintain.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/model/directory.hpp"

namespace tilefmt::array {

/// Deletes the fragments written within [start, end] (ms since the epoch,
/// both inclusive: a fragment whose time range lies wholly inside);
/// returns what it removed and the ignore file it wrote.
inline vacuum_result delete_fragments(const fs::path& root, std::uint64_t start, std::uint64_t end,
                                      std::shared_ptr<storage::backend> storage = {}) {
  auto st = detail::or_local(std::move(storage));
  if (!is_array(*st, root)) throw io_error(root, "not a TileDB array");
  const auto commit_files = detail::files_in(*st, root / "__commits");
  const std::set<std::string> in_con =
      detail::consolidated_commits(*st, commit_files, detail::ignored_commits(*st, commit_files));
  std::vector<std::string> names;
  std::set<std::string> ignore;
  for (const auto& f : list_array(*st, root, start, end).fragments) {
    names.push_back(f.path.filename().string());
    if (in_con.count(names.back()) != 0) ignore.insert(names.back());
  }
  vacuum_result out;
  if (!ignore.empty()) out.ignore_files.push_back(detail::write_ignore_file(*st, root, ignore));
  for (const auto& name : names) detail::remove_fragment(*st, root, name, out.removed);
  return out;
}

/// Deletes the array: its fragments (as delete_fragments over all time),
/// then its metadata, fragment metadata and schema files, TileDB's folders
/// in it, and the array's folder if nothing else is left there. Files of
/// the user's own in the folder stay, as TileDB leaves them.
inline vacuum_result delete_array(const fs::path& root, std::shared_ptr<storage::backend> storage = {}) {
  auto st = detail::or_local(std::move(storage));
  auto out = delete_fragments(root, 0, std::numeric_limits<std::uint64_t>::max(), st);
  auto remove = [&](const fs::path& p) {
    st->remove(p);
    out.removed.push_back(p);
  };
  if (st->is_file(root / "__array_schema.tdb")) remove(root / "__array_schema.tdb");
  for (const char* dir : {"__schema", "__meta", "__commits", "__fragment_meta", "__fragments", "__labels",
                          "__enumerations"})
    if (st->is_folder(root / dir)) remove(root / dir);
  if (st->is_folder(root) && st->list(root).empty()) remove(root);
  return out;
}

} // namespace tilefmt::array
