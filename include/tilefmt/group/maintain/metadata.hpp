// tilefmt — consolidating and vacuuming a group's metadata, as
// tiledb_group_consolidate_metadata / tiledb_group_vacuum_metadata do
// (tiledb/sm/consolidator/group_meta_consolidator.cc).
//
//   tilefmt::group::consolidate_metadata("path/to/experiment");  // one file for many
//   tilefmt::group::vacuum_metadata("path/to/experiment");       // the many removed
//
// Consolidation merges the `__meta` files written within a time range into
// `__meta/__<first t1>_<last t2>_<label>` (deleted keys left out; no file
// when every key is deleted) and lists the files it replaces in
// `<name>.vac`: absolute URIs, as TileDB still writes them for groups
// (arrays' vacuum files hold relative paths from format 19). Readers leave
// out the files a vacuum file names, so the group reads the same before and
// after; vacuuming then removes them and the vacuum files. TileDB has no
// consolidation of group details files.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/metadata_files.hpp"
#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/group/model/object.hpp"

namespace tilefmt::group {

/// What consolidate_metadata wrote.
struct metadata_consolidation {
  std::string name;                   // the consolidated file's name ("" when there was nothing to do)
  std::vector<std::string> replaced;  // the files it stands for
  fs::path vacuum_file{};
};

/// Consolidates the metadata files of the group at `root` written within
/// [start, end] (milliseconds); nothing when there are fewer than two.
inline metadata_consolidation consolidate_metadata(const fs::path& root, const array::write_options& opt = {},
                                                   std::uint64_t start = 0,
                                                   std::uint64_t end = std::numeric_limits<std::uint64_t>::max()) {
  const auto st = array::detail::or_local(opt.storage);
  if (object_type(*st, root) != format::ObjectType::GROUP) throw io_error(root, "not a TileDB group");
  const auto files = array::detail::timestamped_files(*st, root / "__meta", start, end);
  metadata_consolidation out;
  if (files.size() < 2) return out;
  const array::metadata_map merged = array::read_metadata_files(*st, files, {.encryption_key = opt.encryption_key});
  auto [t, label] = array::detail::name_parts(opt);
  out.name = format::make_timestamped_name(files.front().t1(), files.back().t2(), label);
  if (merged.size() != 0) {
    format::ArrayMetadata file;
    for (const auto& [key, e] : merged.entries()) file.entries.value.push_back(e);
    st->write(root / "__meta" / out.name,
              filter::write_generic_tile(codec::encode(file), opt.format_version, opt.encryption_key));
  }
  std::string text;
  for (const auto& f : files) {
    out.replaced.push_back(f.path.filename().string());
    // A local path as TileDB's URI of it; other storage's paths are URIs already.
    text += (opt.storage ? f.path.generic_string() : "file://" + fs::absolute(f.path).lexically_normal().generic_string()) +
            "\n";
  }
  out.vacuum_file = root / "__meta" / (out.name + ".vac");
  st->write(out.vacuum_file, std::as_bytes(std::span<const char>(text.data(), text.size())));
  return out;
}

/// Removes the metadata files that the group's `__meta/*.vac` files name,
/// then those vacuum files; returns what it removed.
inline std::vector<fs::path> vacuum_metadata(const fs::path& root, std::shared_ptr<storage::backend> storage = {}) {
  const auto st = array::detail::or_local(std::move(storage));
  if (object_type(*st, root) != format::ObjectType::GROUP) throw io_error(root, "not a TileDB group");
  return array::detail::vacuum_files_in(*st, root / "__meta");
}

} // namespace tilefmt::group
