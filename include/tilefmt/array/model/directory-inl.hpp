// tilefmt — the definitions of listing an array folder (model/directory.hpp), left
// out of programs built with TILEFMT_COMPILED (codec/compiled.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/support/parallel.hpp"

namespace tilefmt::array {

TILEFMT_FUNC detail::folder_listing detail::list_folders(const storage::backend& st, const fs::path& root) {
  // One listing of the array folder, then of the TileDB folders it holds,
  // all at once: on an object store each listing is a round trip, and
  // opening an array is mostly listings.
  folder_listing out;
  out.top = st.list(root);
  if (out.top.empty() && !st.is_folder(root)) throw io_error(root, "not a folder");
  if (!out.has("__schema", true) && !out.has("__array_schema.tdb", false))
    throw io_error(root, "not a TileDB array (no __schema folder or __array_schema.tdb)");
  parallel_for(out.names.size(), static_cast<unsigned>(out.names.size()), [&](std::size_t i) {
    if (out.has(out.names[i], true)) out.sub[i] = st.list(root / out.names[i]);
  });
  return out;
}

TILEFMT_FUNC listing list_array(const storage::backend& st, const fs::path& root, std::uint64_t start,
                                std::uint64_t end, bool sparse_array) {
  return list_array(st, root, detail::list_folders(st, root), start, end, sparse_array);
}

TILEFMT_FUNC listing list_array(const storage::backend& st, const fs::path& root, const detail::folder_listing& listed,
                                std::uint64_t start, std::uint64_t end, bool sparse_array) {
  const auto& top = listed.top;
  auto listing_of = [&](const fs::path& dir) -> const std::vector<storage::entry>& {
    if (dir == root) return top;
    for (std::size_t i = 0; i < listed.names.size(); ++i)
      if (dir == root / listed.names[i]) return listed.sub[i];
    throw std::logic_error("tilefmt: list_array: " + dir.string() + " was not listed");
  };
  // Paths of a folder's files and of its subfolders, sorted by name.
  auto files = [&](const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : listing_of(dir))
      if (!e.folder) out.push_back(dir / e.name);
    return out;
  };
  auto folders = [&](const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : listing_of(dir))
      if (e.folder) out.push_back(dir / e.name);
    return out;
  };
  listing out;

  // Schemas: the legacy file counts as the oldest; the rest sort by name,
  // which puts them in timestamp order.
  if (listed.has("__array_schema.tdb", false)) out.schemas.push_back(root / "__array_schema.tdb");
  std::vector<timestamped_path> schemas;
  for (const auto& p : files(root / "__schema"))  // not __enumerations/
    schemas.push_back({p, format::parse_timestamped_name(p.filename().string())});
  detail::sort_timestamped(schemas);
  for (const auto& s : schemas) out.schemas.push_back(s.path);
  // The schema in force is the last one written at or before `end`.
  out.latest_schema = out.schemas.empty() ? fs::path{} : out.schemas.front();
  for (const auto& s : schemas)
    if (s.t2() <= end) out.latest_schema = s.path;
  if (out.schemas.empty()) throw io_error(root, "no array schema");

  // Fragments and commit markers in both layouts: before format 12 in the
  // array folder with `.ok` files; from 12 under __fragments/ and __commits/.
  auto root_entries = files(root);
  auto commit_entries = files(root / "__commits");
  std::set<std::string> committed;
  for (const auto& p : root_entries)
    if (p.extension() == ".ok") committed.insert(p.stem().string());
  for (const auto& p : commit_entries)
    if (p.extension() == ".wrt") committed.insert(p.stem().string());
  for (const auto& n : detail::consolidated_commits(st, commit_entries, detail::ignored_commits(st, commit_entries)))
    committed.insert(n);

  std::vector<fs::path> vac_files;
  for (const auto& p : root_entries)
    if (p.extension() == ".vac") vac_files.push_back(p);
  for (const auto& p : commit_entries)
    if (p.extension() == ".vac") vac_files.push_back(p);
  const auto vac = detail::vacuum_files(st, vac_files, start, end, sparse_array);
  std::set<std::string> vacuumed, to_vacuum;
  for (const auto& v : vac) {
    vacuumed.insert(v.entries.begin(), v.entries.end());
    if (detail::fully_within(v.name, start, end)) to_vacuum.insert(v.entries.begin(), v.entries.end());
  }

  std::vector<fs::path> candidates;
  for (const auto& p : folders(root)) {
    std::string n = p.filename().string();
    if (n.starts_with("__") && !detail::special_name(n)) candidates.push_back(p);
  }
  for (const auto& p : folders(root / "__fragments")) candidates.push_back(p);
  for (const auto& p : candidates) {
    std::string n = p.filename().string();
    format::TimestampedName name;
    try {
      name = format::parse_timestamped_name(n);
    } catch (const format_error&) {
      continue; // not a fragment folder
    }
    // Before format 5 a fragment is committed when its metadata exists.
    bool is_committed = committed.count(n) != 0 ||
                        (name.implied_format_version() < 5 && st.is_file(p / "__fragment_metadata.tdb"));
    if (!is_committed) continue;
    if (vacuumed.count(n) != 0) {
      if (to_vacuum.count(n) != 0 && detail::fully_within(name, start, end)) out.to_vacuum.push_back({p, name});
      continue;
    }
    if (!detail::selected(name, start, end, sparse_array)) continue;
    out.fragments.push_back({p, name});
  }
  detail::sort_timestamped(out.fragments);
  detail::sort_timestamped(out.to_vacuum);

  // Array metadata: vacuum files there name consolidated-away files.
  out.metadata = detail::timestamped_files(st, root / "__meta", listing_of(root / "__meta"), start, end);

  for (const auto& dir : {root, root / "__fragment_meta"})
    for (const auto& p : files(dir))
      if (p.extension() == ".meta") out.fragment_meta.push_back({p, format::parse_timestamped_name(p.filename().string())});
  detail::sort_timestamped(out.fragment_meta);

  std::set<fs::path> commit_files;
  for (const auto& p : commit_entries)
    if (p.extension() == ".del" || p.extension() == ".upd") {
      auto name = format::parse_timestamped_name(p.filename().string());
      commit_files.insert(p);
      if (detail::fully_within(name, start, end)) out.delete_commits.push_back({{p, name}});
    }
  for (auto& c : detail::held_delete_commits(st, root, commit_entries))
    if (commit_files.insert(c.path).second && detail::fully_within(c.name, start, end))
      out.delete_commits.push_back(std::move(c));
  detail::sort_timestamped(out.delete_commits);
  return out;
}

} // namespace tilefmt::array
