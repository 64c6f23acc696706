// tilefmt — what an array folder holds, in every layout TileDB has written
// (format_spec/array_file_hierarchy.md; tiledb/sm/array/array_directory.cc):
// schemas, committed fragments, array metadata files and consolidated
// fragment metadata, filtered by an open timestamp range and by vacuum files.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/array/model/io.hpp"
#include "tilefmt/codec/compiled.hpp"
#include "tilefmt/codec/wire.hpp"
#include "tilefmt/format/commit_files.hpp"
#include "tilefmt/format/names.hpp"

namespace tilefmt::array {

/// A file or folder with a timestamped name.
struct timestamped_path {
  fs::path path;
  format::TimestampedName name;

  std::uint64_t t1() const noexcept { return name.t1; }
  std::uint64_t t2() const noexcept { return name.t2; }
  /// Sorted as TileDB sorts: by timestamp range, then by path.
  friend bool operator<(const timestamped_path& a, const timestamped_path& b) {
    if (a.name.t1 != b.name.t1) return a.name.t1 < b.name.t1;
    if (a.name.t2 != b.name.t2) return a.name.t2 < b.name.t2;
    return a.path.native() < b.path.native();  // the string itself: string() copies it
  }
};

struct listing {
  /// Every schema file, oldest first; the legacy `__array_schema.tdb` first of all.
  std::vector<fs::path> schemas;
  /// The schema in force at the open timestamp.
  fs::path latest_schema;
  /// Committed fragments within the open range, not vacuumed, oldest first.
  std::vector<timestamped_path> fragments;
  /// Array metadata files within the open range, not vacuumed, oldest first.
  std::vector<timestamped_path> metadata;
  /// Consolidated fragment metadata files (`.meta`).
  std::vector<timestamped_path> fragment_meta;
  /// Committed fragments that a consolidation replaced and a vacuum would
  /// remove: named by a vacuum file whose range, as theirs, lies inside the
  /// open range (TileDB's FragmentInfo "to vacuum"), oldest first.
  std::vector<timestamped_path> to_vacuum;
  /// A delete or update commit. Its file may be gone, vacuumed after a
  /// commits consolidation: then `held_in` names the `.con` file that holds
  /// its bytes, `size` of them at `offset`.
  struct commit_file : timestamped_path {
    fs::path held_in{};
    std::uint64_t offset = 0, size = 0;
  };
  /// Delete and update commits (`.del`, `.upd` in __commits/, or `.del`
  /// held in a `.con` file) within the open range, oldest first. Fragments
  /// list those already applied to their cells in
  /// fragment::processed_conditions().
  std::vector<commit_file> delete_commits;
};

namespace detail {

/// Sorts timestamped files in TileDB's order. Sorting them in place would
/// compile a sort that moves paths for every element type (about 20 kB
/// each); this sorts their positions, one sort for every kind of list.
inline std::vector<std::size_t> timestamp_order(std::vector<const timestamped_path*> files) {
  std::vector<std::size_t> order(files.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return *files[a] < *files[b]; });
  return order;
}
template <class T>
void sort_timestamped(std::vector<T>& v) {
  std::vector<const timestamped_path*> files;
  for (const auto& f : v) files.push_back(&f);
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (const std::size_t i : timestamp_order(std::move(files))) sorted.push_back(std::move(v[i]));
  v = std::move(sorted);
}

/// The last component of a path or URI written in a vacuum, consolidated
/// commits or consolidated fragment metadata file: old writers wrote absolute
/// URIs (some with a trailing '/'), newer ones paths relative to the array.
inline std::string last_component(std::string_view entry) {
  while (!entry.empty() && entry.back() == '/') entry.remove_suffix(1);
  const auto slash = entry.find_last_of('/');
  return std::string(slash == std::string_view::npos ? entry : entry.substr(slash + 1));
}

inline bool fully_within(const format::TimestampedName& n, std::uint64_t start, std::uint64_t end) {
  return n.t1 >= start && n.t2 <= end;
}

/// Whether a fragment (or vacuum file) named `n` takes part in a read at
/// [start, end]. Its whole range must lie inside, except in sparse arrays
/// from format 15, where a fragment consolidated with per-cell timestamps
/// may overlap the range partly and the reader filters its cells
/// (array_directory.cc timestamps_overlap, consolidation_with_timestamps_supported).
inline bool selected(const format::TimestampedName& n, std::uint64_t start, std::uint64_t end, bool partial_overlap) {
  if (partial_overlap && n.grammar == format::NameGrammar::t1_t2_uuid_version && n.implied_format_version() >= 15)
    return n.t1 <= end && start <= n.t2;
  return fully_within(n, start, end);
}

/// A vacuum file's name and its entries (by their last path component).
struct vacuum_file {
  format::TimestampedName name;
  std::set<std::string> entries;
};

/// The `.vac` files among `files` that a read at [start, end] takes
/// (selected), with their entries: names of fragment or metadata
/// folders/files that a consolidation replaced.
inline std::vector<vacuum_file> vacuum_files(const storage::backend& st, const std::vector<fs::path>& files,
                                             std::uint64_t start, std::uint64_t end, bool partial_overlap = false) {
  std::vector<vacuum_file> out;
  for (const auto& f : files) {
    if (f.extension() != ".vac") continue;
    vacuum_file v{format::parse_timestamped_name(f.filename().string()), {}};
    if (!selected(v.name, start, end, partial_overlap)) continue;
    auto bytes = st.read(f);
    std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    std::istringstream ss(text);
    for (std::string line; std::getline(ss, line);) {
      if (!line.empty()) v.entries.insert(detail::last_component(line));
    }
    out.push_back(std::move(v));
  }
  return out;
}

/// Entries of `.vac` files (overlapping the open range).
inline std::set<std::string> vacuumed(const storage::backend& st, const std::vector<fs::path>& files, std::uint64_t start,
                                      std::uint64_t end, bool partial_overlap = false) {
  std::set<std::string> out;
  for (auto& v : vacuum_files(st, files, start, end, partial_overlap)) out.merge(v.entries);
  return out;
}

/// The lines of every ignore file (`.ign`, format_spec/ignore_file.md): commit
/// files, relative to the array URI as a `.con` file names them, that the
/// consolidated commits no longer stand for (their fragments were vacuumed or
/// deleted). TileDB matches them against `.con` lines as exact strings and
/// reads every ignore file whatever the open range (array_directory.cc).
inline std::set<std::string> ignored_commits(const storage::backend& st, const std::vector<fs::path>& files) {
  std::set<std::string> out;
  for (const auto& f : files) {
    if (f.extension() != ".ign") continue;
    auto bytes = st.read(f);
    std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    std::istringstream ss(text);
    for (std::string line; std::getline(ss, line);) out.insert(line);
  }
  return out;
}

/// What a `.con` line names, as TileDB matches it: the line appended to the
/// array URI. TileDB-Py passes the array URI with a trailing '/', so the
/// lines it writes have none in front (`__commits/<name>.wrt`).
inline fs::path commit_path(const fs::path& root, const std::string& line) {
  // The name becomes a path: only a timestamped name in the array folder or
  // in __commits/ is accepted.
  std::string_view l = line;
  if (l.starts_with("/")) l.remove_prefix(1);  // written with an array URI without a trailing '/'
  const std::string_view file = l.starts_with("__commits/") ? l.substr(10) : l;
  if (file.find('/') != std::string_view::npos)
    throw io_error(root / "__commits", "a commit line \"" + line + "\" names no commit");
  format::parse_timestamped_name(std::string(file));
  return l.starts_with("__commits/") ? root / "__commits" / std::string(file) : root / std::string(file);
}

/// The lines of every `.con` file in `files` (the commits they hold, a
/// delete commit's bytes skipped), less those an ignore file names, sorted
/// and without repeats (ArrayDirectory::load_consolidated_commit_uris).
inline std::vector<std::string> consolidated_commit_lines(const storage::backend& st, const std::vector<fs::path>& files,
                                                          const std::set<std::string>& ignored) {
  std::set<std::string> out;
  for (const auto& f : files) {
    if (f.extension() != ".con") continue;
    const auto bytes = st.read(f);
    const auto con = naming_file(f, [&] { return codec::decode<format::ConsolidatedCommits>(bytes); });
    for (const auto& c : con.commits.value)
      if (ignored.count(c.uri.text) == 0) out.insert(c.uri.text);
  }
  return {out.begin(), out.end()};
}

/// The delete commits `.con` files hold, as `listing::commit_file`s
/// (ArrayDirectory::load_consolidated_commit_uris): each `.del` line is
/// followed by the size and bytes of the commit's file.
inline std::vector<listing::commit_file> held_delete_commits(const storage::backend& st, const fs::path& root,
                                                             const std::vector<fs::path>& files) {
  std::vector<listing::commit_file> out;
  for (const auto& f : files) {
    if (f.extension() != ".con") continue;
    const auto bytes = st.read(f);
    const auto con = naming_file(f, [&] { return codec::decode<format::ConsolidatedCommits>(bytes); });
    std::uint64_t at = 0;
    for (const auto& c : con.commits.value) {
      at += c.uri.text.size() + 1;
      if (!format::detail::is_delete_commit{}(c)) continue;
      const std::uint64_t n = c.delete_condition_tile.value.value.size();
      const fs::path p = naming_file(f, [&] { return commit_path(root, c.uri.text); });
      out.push_back({{p, format::parse_timestamped_name(p.filename().string())}, f, at + 8, n});
      at += 8 + n;
    }
  }
  return out;
}

/// Fragment names listed in consolidated commit files (`.con`), less the
/// commits an ignore file names.
inline std::set<std::string> consolidated_commits(const storage::backend& st, const std::vector<fs::path>& files,
                                                  const std::set<std::string>& ignored = {}) {
  std::set<std::string> out;
  for (const auto& line : consolidated_commit_lines(st, files, ignored)) {
    const std::string last = detail::last_component(line);
    if (last.size() > 4 && last.ends_with(".wrt")) out.insert(last.substr(0, last.size() - 4));
  }
  return out;
}

/// The timestamped files of folder `dir` (array or group metadata, group
/// details) that a read at [start, end] takes: inside the range, not named
/// by a vacuum file there, oldest first.
inline std::vector<timestamped_path> timestamped_files(const storage::backend& st, const fs::path& dir,
                                                       const std::vector<storage::entry>& listed, std::uint64_t start,
                                                       std::uint64_t end) {
  std::vector<fs::path> entries;
  for (const auto& e : listed)
    if (!e.folder) entries.push_back(dir / e.name);
  const auto gone = vacuumed(st, entries, start, end);
  std::vector<timestamped_path> out;
  for (const auto& p : entries) {
    // `.tmp`: a file a writer stopped before renaming (storage/local.hpp).
    if (p.extension() == ".vac" || p.extension() == ".tmp") continue;
    const std::string n = p.filename().string();
    auto name = format::parse_timestamped_name(n);
    if (gone.count(n) != 0 || !fully_within(name, start, end)) continue;
    out.push_back({p, std::move(name)});
  }
  sort_timestamped(out);
  return out;
}

/// timestamped_files of folder `dir`, listed here.
inline std::vector<timestamped_path> timestamped_files(const storage::backend& st, const fs::path& dir,
                                                       std::uint64_t start, std::uint64_t end) {
  return timestamped_files(st, dir, st.list(dir), start, end);
}

inline bool special_name(const std::string& n) {
  static const std::set<std::string> names{"__schema", "__meta", "__commits", "__fragments", "__fragment_meta",
                                           "__labels", "__enumerations", "__lock.tdb", "__array_schema.tdb",
                                           "__tiledb_group.tdb", "__group"};
  return names.count(n) != 0;
}

} // namespace detail

/// Whether `root` is a TileDB array folder.
inline bool is_array(const storage::backend& st, const fs::path& root) {
  return st.is_folder(root / "__schema") || st.is_file(root / "__array_schema.tdb");
}
inline bool is_array(const fs::path& root) { return is_array(storage::local{}, root); }

/// Lists an array folder as TileDB would see it when opened for reading at
/// [start, end] (milliseconds since the epoch, both inclusive).
/// `sparse_array`: the schema in force is sparse, so fragments of format 15
/// and later that overlap the range only in part are listed too (TileDB
/// filters their cells by the per-cell timestamps, fragment::read_timestamps).
/// array::open decides it from the schema.
listing list_array(const storage::backend& st, const fs::path& root, std::uint64_t start = 0,
                   std::uint64_t end = std::numeric_limits<std::uint64_t>::max(), bool sparse_array = false);

namespace detail {

/// What listing an array folder asks of the storage: the folder's entries
/// and those of the TileDB folders in it (`__schema`, `__commits`,
/// `__fragments`, `__meta`, `__fragment_meta`), listed together. Kept, it
/// lists the array again without a request (array::open lists twice for a
/// sparse array: the schema decides which fragments a time range takes).
struct folder_listing {
  static constexpr std::array<const char*, 5> names{"__schema", "__commits", "__fragments", "__meta", "__fragment_meta"};
  std::vector<storage::entry> top;
  std::array<std::vector<storage::entry>, names.size()> sub;

  /// Whether the array folder holds a folder (or a file) called `name`.
  bool has(std::string_view name, bool folder) const {
    return std::any_of(top.begin(), top.end(), [&](const storage::entry& e) { return e.name == name && e.folder == folder; });
  }
};

/// Lists the array folder `root` (io_error when it is not one).
folder_listing list_folders(const storage::backend& st, const fs::path& root);

} // namespace detail

/// list_array from what list_folders found.
listing list_array(const storage::backend& st, const fs::path& root, const detail::folder_listing& folders,
                   std::uint64_t start, std::uint64_t end, bool sparse_array);

/// list_array on the local file system.
inline listing list_array(const fs::path& root, std::uint64_t start = 0,
                          std::uint64_t end = std::numeric_limits<std::uint64_t>::max(), bool sparse_array = false) {
  return list_array(storage::local{}, root, start, end, sparse_array);
}

} // namespace tilefmt::array

#ifndef TILEFMT_DECLARE_ONLY
#include "tilefmt/array/model/directory-inl.hpp"
#endif
