// tilefmt — opening a TileDB group: its members and its metadata.
//
//   auto g = tilefmt::group::open("path/to/experiment");
//   for (const auto& m : g.members())                    // name, URI, type
//     if (m.type == tilefmt::format::ObjectType::ARRAY)
//       auto arr = tilefmt::array::open(g.path_of(m));
//   auto x = tilefmt::group::open(g.path_of(g.member_named("ms")));
//   auto title = g.metadata().get_string("title");
//
// The files (format_spec/group_file_hierarchy.md): `__tiledb_group.tdb`
// marks the folder; from TileDB 2.8 on, `__group/` holds the details files
// (format/group_details.hpp, each a generic tile) and `__meta/` the group
// metadata, in the format of array metadata. Both are read as of the
// options' timestamp range, without the files a vacuum file names. A
// group written before 2.8 has the marker only: its members are the arrays
// and groups in its folder (ls(), as TileDB listed them then). On an
// object store a new group has no `__group/` until its first details file
// (no empty folders there), so until then it lists its folder too.
//
// Thread safety: an opened group is immutable; its const members may be
// called from many threads at once.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/model/directory.hpp"
#include "tilefmt/array/model/metadata_files.hpp"
#include "tilefmt/array/model/options.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/group_details.hpp"
#include "tilefmt/group/model/members.hpp"
#include "tilefmt/group/model/object.hpp"

namespace tilefmt::group {

class group_reader {
public:
  group_reader(const fs::path& root, array::open_options opt)
      : root_(root), opt_(std::move(opt)), storage_(array::detail::or_local(opt_.storage)) {
    const auto& st = *storage_;
    if (!st.is_folder(root_ / "__group") && !st.is_file(root_ / "__tiledb_group.tdb"))
      throw io_error(root_, object_type(st, root_) == format::ObjectType::ARRAY ? "an array, not a group"
                                                                                : "not a TileDB group");
    const filter::generic_tile_options tiles{opt_.verify_checksums, opt_.encryption_key, opt_.max_allocation};
    legacy_ = !st.is_folder(root_ / "__group");
    member_list list;
    if (legacy_) {
      for (const auto& [p, type] : ls(st, root_)) list.add({p.filename().string(), std::nullopt, type, true, root_});
    } else {
      details_ = array::detail::timestamped_files(st, root_ / "__group", opt_.timestamp_start, opt_.timestamp_end);
      // The newest file of version 1 is the whole list: the older are not read.
      if (!details_.empty() && details_.back().name.version.value_or(1) == 1)
        details_.erase(details_.begin(), details_.end() - 1);
      for (const auto& f : details_) {
        array::naming_file(f.path, [&] {
          const auto g = filter::read_generic_tile(st.read(f.path, opt_.max_allocation), tiles);
          list.apply(codec::decode<format::GroupDetails>(g.payload), f.path);
          return 0;
        });
      }
      metadata_ = array::read_metadata_files(
          st, array::detail::timestamped_files(st, root_ / "__meta", opt_.timestamp_start, opt_.timestamp_end), tiles);
    }
    members_ = list.members();
  }

  const fs::path& path() const noexcept { return root_; }
  const storage::backend& storage() const noexcept { return *storage_; }
  /// The storage as shared: open a member with it (open_options::storage).
  const std::shared_ptr<const storage::backend>& shared_storage() const noexcept { return storage_; }
  const array::open_options& options() const noexcept { return opt_; }

  /// The members, in the order the details files first list them.
  const std::vector<member>& members() const noexcept { return members_; }
  /// The member called `name`; std::out_of_range when there is none.
  const member& member_named(std::string_view name) const {
    for (const auto& m : members_)
      if (m.name && *m.name == name) return m;
    throw std::out_of_range("tilefmt: group " + root_.string() + " has no member named \"" + std::string(name) + "\"");
  }
  bool contains(std::string_view name) const {
    return std::any_of(members_.begin(), members_.end(), [&](const member& m) { return m.name && *m.name == name; });
  }
  /// Where member `m` is (resolve(): a member_error when it cannot be followed).
  fs::path path_of(const member& m) const { return resolve(root_, m); }

  /// The group's metadata as of the open range (none before TileDB 2.8).
  const array::metadata_map& metadata() const noexcept { return metadata_; }
  /// Written before TileDB 2.8: a marker only, members listed from the folder.
  bool legacy() const noexcept { return legacy_; }
  /// The details files read, oldest first.
  const std::vector<array::timestamped_path>& details_files() const noexcept { return details_; }

private:
  fs::path root_;
  array::open_options opt_;
  std::shared_ptr<const storage::backend> storage_;
  bool legacy_ = false;
  std::vector<array::timestamped_path> details_;
  std::vector<member> members_;
  array::metadata_map metadata_;
};

/// Opens the group at `root` for reading.
inline group_reader open(const fs::path& root, array::open_options opt = {}) { return group_reader(root, std::move(opt)); }

} // namespace tilefmt::group
