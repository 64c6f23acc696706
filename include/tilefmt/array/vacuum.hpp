// tilefmt — vacuuming: removing what a consolidation replaced, as TileDB
// 2.30's vacuum removes it (array/consolidate.hpp writes the vacuum files).
//
//   array::vacuum_fragments("path/to/array");   // fragments named in __commits/*.vac
//   array::vacuum_metadata("path/to/array");    // metadata files named in __meta/*.vac
//
// Each fragment a vacuum file names loses its commit marker first (it is
// then invisible whatever happens next), then its folder; the vacuum file
// goes last. A commit that only a consolidated commits file (`.con`) holds
// cannot be removed: its name goes to an ignore file (`.ign`) instead, as
// TileDB writes it. Consolidated fragment metadata (`__fragment_meta/`) is
// left alone, as TileDB leaves it. Killed midway, a vacuum leaves a vacuum
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

#include "tilefmt/array/directory.hpp"
#include "tilefmt/array/fragment_builder.hpp"

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

inline std::vector<fs::path> files_with(const storage::backend& st, const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (!st.is_folder(dir)) return out;
  for (const auto& e : st.list(dir))
    if (!e.folder && fs::path(e.name).extension() == ext) out.push_back(dir / e.name);
  std::sort(out.begin(), out.end());
  return out;
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
  const auto commit_files = detail::files_with(*st, root / "__commits", ".con");
  const std::set<std::string> in_con = detail::consolidated_commits(*st, commit_files);
  vacuum_result out;
  auto& removed = out.removed;
  for (const auto& vac : vacs) {
    std::string ignore;
    for (const auto& name : detail::vacuum_entries(*st, vac)) {
      const fs::path wrt = root / "__commits" / (name + ".wrt"), ok = root / (name + ".ok");
      if (st->is_file(wrt)) {
        st->remove(wrt);
        removed.push_back(wrt);
      } else if (st->is_file(ok)) {
        st->remove(ok);
        removed.push_back(ok);
      } else if (in_con.count(name) != 0) {
        ignore += "__commits/" + name + ".wrt\n";
      }
      for (const fs::path& dir : {root / "__fragments" / name, root / name})
        if (st->is_folder(dir)) {
          st->remove(dir);
          removed.push_back(dir);
        }
    }
    if (!ignore.empty()) {
      const auto n = format::parse_timestamped_name(vac.filename().string());
      const auto [t, label] = detail::name_parts({});
      const fs::path ign =
          root / "__commits" / (format::make_timestamped_name(n.t1, n.t2, label, format::written_version) + ".ign");
      st->write(ign, std::as_bytes(std::span<const char>(ignore.data(), ignore.size())));
      out.ignore_files.push_back(ign);
    }
    st->remove(vac);
    removed.push_back(vac);
  }
  return out;
}

/// Removes the array metadata files that `__meta/*.vac` files name, then
/// those vacuum files.
inline vacuum_result vacuum_metadata(const fs::path& root, std::shared_ptr<storage::backend> storage = {}) {
  auto st = detail::or_local(std::move(storage));
  if (!is_array(*st, root)) throw io_error(root, "not a TileDB array");
  vacuum_result out;
  auto& removed = out.removed;
  for (const auto& vac : detail::files_with(*st, root / "__meta", ".vac")) {
    for (const auto& name : detail::vacuum_entries(*st, vac)) {
      const fs::path p = root / "__meta" / name;
      if (st->is_file(p)) {
        st->remove(p);
        removed.push_back(p);
      }
    }
    st->remove(vac);
    removed.push_back(vac);
  }
  return out;
}

} // namespace tilefmt::array
