// tilefmt — vacuuming: removing what a consolidation replaced, as TileDB
// 2.30's vacuum removes it (array/maintain/consolidate.hpp writes the vacuum files).
//
//   array::vacuum_fragments("path/to/array");   // fragments named in __commits/*.vac
//   array::vacuum_metadata("path/to/array");    // metadata files named in __meta/*.vac
//   array::vacuum_commits("path/to/array");     // commit files a .con holds
//   array::vacuum_fragment_metadata("path/to/array");  // all but the newest .meta
//
// Each fragment a vacuum file names loses its commit marker first (it is
// then invisible whatever happens next), then its folder; the vacuum file
// goes last. A commit that a consolidated commits file (`.con`) holds
// cannot be removed from it: its name goes to an ignore file (`.ign`), as
// TileDB writes it (one file, written before anything is removed).
// Consolidated fragment metadata (`__fragment_meta/`) is left alone, as
// TileDB's fragment vacuum leaves it. Killed midway, a vacuum leaves a vacuum
// file naming fragments partly or wholly gone, which readers skip anyway;
// running it again finishes the job.
#pragma once

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/write/new_files.hpp"

namespace tilefmt::array {

namespace detail {

/// The entries of one vacuum file, by their last path component.
inline std::vector<std::string> vacuum_entries(const storage::backend& st, const fs::path& file) {
  const auto bytes = st.read(file);
  std::istringstream text(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  std::vector<std::string> out;
  for (std::string line; std::getline(text, line);) {
    while (!line.empty() && line.back() == '/') line.pop_back();
    if (line.empty()) continue;
    const auto slash = line.find_last_of('/');
    std::string name = slash == std::string::npos ? line : line.substr(slash + 1);
    // The name becomes a path: nothing but a timestamped name is accepted.
    naming_file(file, [&] { return format::parse_timestamped_name(name); });
    out.push_back(std::move(name));
  }
  return out;
}

/// Every file in `dir`, sorted.
inline std::vector<fs::path> files_in(const storage::backend& st, const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : st.list(dir))
    if (!e.folder) out.push_back(dir / e.name);
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<fs::path> files_with(const storage::backend& st, const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (!st.is_folder(dir)) return out;
  for (const auto& e : st.list(dir))
    if (!e.folder && fs::path(e.name).extension() == ext) out.push_back(dir / e.name);
  std::sort(out.begin(), out.end());
  return out;
}

/// Removes the files of folder `dir` that its `.vac` files name, then those
/// vacuum files (array and group metadata); returns what it removed.
inline std::vector<fs::path> vacuum_files_in(storage::backend& st, const fs::path& dir) {
  std::vector<fs::path> removed;
  for (const auto& vac : files_with(st, dir, ".vac")) {
    for (const auto& name : vacuum_entries(st, vac)) {
      const fs::path p = dir / name;
      if (st.is_file(p)) {
        st.remove(p);
        removed.push_back(p);
      }
    }
    st.remove(vac);
    removed.push_back(vac);
  }
  return removed;
}

/// A fragment whose commit a `.con` file holds stays committed, with its
/// folder gone, unless an ignore file names the commit: writes one for the
/// fragments `names` (sorted, as TileDB lists the commits), named after the
/// first and last, and returns its path.
inline fs::path write_ignore_file(storage::backend& st, const fs::path& root, const std::set<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += "__commits/" + name + ".wrt\n";
  const auto first = format::parse_timestamped_name(*names.begin());
  const auto last = format::parse_timestamped_name(*names.rbegin());
  const auto [t, label] = name_parts({});
  const fs::path ign =
      root / "__commits" / (format::make_timestamped_name(first.t1, last.t2, label, format::written_version) + ".ign");
  st.write(ign, std::as_bytes(std::span<const char>(text.data(), text.size())));
  return ign;
}

/// Removes fragment `name`'s commit marker, then its folder (either
/// layout: format 12 and later, or older); appends what it removed.
inline void remove_fragment(storage::backend& st, const fs::path& root, const std::string& name,
                            std::vector<fs::path>& removed) {
  for (const fs::path& commit : {root / "__commits" / (name + ".wrt"), root / (name + ".ok")})
    if (st.is_file(commit)) {
      st.remove(commit);
      removed.push_back(commit);
    }
  for (const fs::path& dir : {root / "__fragments" / name, root / name})
    if (st.is_folder(dir)) {
      st.remove(dir);
      removed.push_back(dir);
    }
}

} // namespace detail

/// What a vacuum did.
struct vacuum_result {
  /// Files and folders removed, in the order removed.
  std::vector<fs::path> removed;
  /// Ignore files written (fragments whose commits a `.con` file holds).
  std::vector<fs::path> ignore_files;
};

/// Removes the fragments that vacuum files name, their commit markers and
/// the vacuum files.
inline vacuum_result vacuum_fragments(const fs::path& root, std::shared_ptr<storage::backend> storage = {}) {
  auto st = detail::or_local(std::move(storage));
  if (!is_array(*st, root)) throw io_error(root, "not a TileDB array");
  auto vacs = detail::files_with(*st, root, ".vac");
  for (auto& p : detail::files_with(*st, root / "__commits", ".vac")) vacs.push_back(p);
  const auto commit_files = detail::files_in(*st, root / "__commits");
  const std::set<std::string> in_con =
      detail::consolidated_commits(*st, commit_files, detail::ignored_commits(*st, commit_files));
  vacuum_result out;
  std::vector<std::pair<fs::path, std::vector<std::string>>> plan;
  std::set<std::string> ignore;  // sorted, as TileDB lists the commits
  for (const auto& vac : vacs) {
    plan.emplace_back(vac, detail::vacuum_entries(*st, vac));
    for (const auto& name : plan.back().second)
      if (in_con.count(name) != 0) ignore.insert(name);
  }
  // First the ignore file (FragmentConsolidator::vacuum).
  if (!ignore.empty()) out.ignore_files.push_back(detail::write_ignore_file(*st, root, ignore));
  auto& removed = out.removed;
  for (const auto& [vac, names] : plan) {
    for (const auto& name : names) detail::remove_fragment(*st, root, name, removed);
    st->remove(vac);
    removed.push_back(vac);
  }
  return out;
}

/// Removes what consolidate_commits replaced (TileDB's sm.vacuum.mode
/// "commits"): the commit files (`.wrt`, `.ok`, `.del`) that the `.con`
/// files list; and, when one `.con` file lists every commit the others do
/// (ArrayDirectory::load_consolidated_commit_uris), the other `.con` files
/// and every ignore file. TileDB reads a `.con` file line by line there,
/// a delete commit's embedded bytes included, so one holding a delete
/// commit never qualifies and the older `.con` files stay. Killed midway,
/// the array reads the same: the `.con` files hold what was removed.
inline vacuum_result vacuum_commits(const fs::path& root, std::shared_ptr<storage::backend> storage = {}) {
  auto st = detail::or_local(std::move(storage));
  if (!is_array(*st, root)) throw io_error(root, "not a TileDB array");
  const auto in_commits = detail::files_in(*st, root / "__commits");
  const auto lines = detail::consolidated_commit_lines(*st, in_commits, detail::ignored_commits(*st, in_commits));
  const std::set<std::string> listed(lines.begin(), lines.end());
  vacuum_result out;
  for (const auto& line : lines) {
    const fs::path p = detail::commit_path(root, line);
    if (st->is_file(p)) {
      st->remove(p);
      out.removed.push_back(p);
    }
  }
  std::vector<fs::path> cons;
  for (const auto& p : in_commits)
    if (p.extension() == ".con") cons.push_back(p);
  for (const auto& con : cons) {
    const auto bytes = st->read(con);
    std::istringstream text(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    std::size_t count = 0;
    bool all = true;
    for (std::string line; all && std::getline(text, line);) {
      if (listed.count(line) != 0) ++count;
      else all = false;
    }
    if (!all || count != listed.size()) continue;
    for (const auto& p : in_commits)
      if ((p.extension() == ".con" && p != con) || p.extension() == ".ign") {
        st->remove(p);
        out.removed.push_back(p);
      }
    break;
  }
  return out;
}

/// Removes the consolidated fragment metadata files (`.meta`) that a newer
/// one replaces (TileDB's sm.vacuum.mode "fragment_meta"): all but those
/// ending at the latest time.
inline vacuum_result vacuum_fragment_metadata(const fs::path& root, std::shared_ptr<storage::backend> storage = {}) {
  auto st = detail::or_local(std::move(storage));
  if (!is_array(*st, root)) throw io_error(root, "not a TileDB array");
  std::vector<std::pair<fs::path, format::TimestampedName>> metas;
  for (const fs::path& dir : {root, root / "__fragment_meta"})
    for (const auto& p : detail::files_with(*st, dir, ".meta"))
      metas.emplace_back(p, naming_file(p, [&] { return format::parse_timestamped_name(p.filename().string()); }));
  std::uint64_t latest = 0;
  for (const auto& m : metas) latest = std::max(latest, m.second.t2);
  vacuum_result out;
  for (const auto& [p, name] : metas)
    if (name.t2 != latest) {
      st->remove(p);
      out.removed.push_back(p);
    }
  return out;
}

/// Removes the array metadata files that `__meta/*.vac` files name, then
/// those vacuum files.
inline vacuum_result vacuum_metadata(const fs::path& root, std::shared_ptr<storage::backend> storage = {}) {
  auto st = detail::or_local(std::move(storage));
  if (!is_array(*st, root)) throw io_error(root, "not a TileDB array");
  vacuum_result out;
  out.removed = detail::vacuum_files_in(*st, root / "__meta");
  return out;
}

} // namespace tilefmt::array
