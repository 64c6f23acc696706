// tilefmt — creating TileDB groups and changing their members and metadata,
// as TileDB writes them (tiledb/sm/group/group.cc, group_details_v1.cc,
// group_details_v2.cc), at the format version of write_options (by default
// the newest, as TileDB 2.19 and later write).
//
//   tilefmt::group::create("path/to/experiment");
//   tilefmt::group::group_writer w("path/to/experiment");
//   w.add("obs", "obs", true).add("ms", "ms", true);        // relative members, named
//   w.put_metadata(tilefmt::format::MetadataEntry::of_string("title", "an experiment", ...));
//   w.commit();                                             // one details file, one metadata file
//
// create() writes the marker `__tiledb_group.tdb` (empty) and the folders
// `__group/` and `__meta/`, as Group::create does (before format version 12,
// libtiledb 2.8, a group was the marker alone: it had no members or
// metadata, only the arrays and groups in its folder). A commit writes, like
// a TileDB group closed after writing: a details file `__t_t_uuid_2` holding
// every member the group had when the writer opened it, this session's
// additions over them (keyed by name, else URI: adding an existing name
// points it elsewhere) and the members removed, again, marked deleted; and
// `__meta/__t_t_uuid` with the metadata put and deleted, sorted by key
// (at format versions 18 to 20, TileDB 2.15 to 2.18, the details file holds
// only the session's additions and removals, as those releases wrote). A
// group whose newest details file is of version 1, or a new group written
// at format versions 12 to 17 (TileDB 2.8 to 2.14), gets a version 1 file
// `__t_t_uuid`: the whole list without the removed members. Files are
// generic tiles of the options' format version. Nothing is written for a
// session that changed nothing. Each file is written whole (storage writes
// are atomic), so a reader sees a commit's files or not.
//
// As TileDB refuses them within one session: a key added twice, removed
// twice, or added and removed. Unlike TileDB, a relative member that would
// leave the group's folder is refused when added (readers do not follow it).
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/array/write/options.hpp"
#include "tilefmt/filter/generic_tile.hpp"
#include "tilefmt/format/array_metadata.hpp"
#include "tilefmt/format/feature_versions.hpp"
#include "tilefmt/format/group_details.hpp"
#include "tilefmt/group/model/members.hpp"
#include "tilefmt/group/model/object.hpp"
#include "tilefmt/group/read/group.hpp"

namespace tilefmt::group {

/// The first format version with group members and metadata (libtiledb 2.8),
/// the first whose new groups get details files of version 2 (2.15), and the
/// first whose version 2 files list every member, not only the session's
/// changes (2.19).
inline constexpr std::uint32_t first_details_version = 12;
inline constexpr std::uint32_t first_details_v2_version = 18;
inline constexpr std::uint32_t first_whole_list_version = 21;

/// Creates an empty group at `root` (its folder may exist, but hold no array
/// or group), as the libtiledb of `opt.format_version` (1 to 22) made one.
inline void create(const fs::path& root, const array::write_options& opt = {}) {
  if (opt.format_version < 1 || opt.format_version > format::written_version)
    throw std::invalid_argument("tilefmt: group::create: format version " + std::to_string(opt.format_version) +
                                ": TileDB wrote 1 to " + std::to_string(format::written_version));
  const auto st = array::detail::or_local(opt.storage);
  if (object_type(*st, root) != format::ObjectType::INVALID)
    throw std::invalid_argument("tilefmt: group::create: " + root.string() + " is already an array or a group");
  if (opt.format_version >= first_details_version) {
    st->make_folder(root / "__group");
    st->make_folder(root / "__meta");
  } else {
    st->make_folder(root);
  }
  st->write(root / "__tiledb_group.tdb", {});
}

class group_writer {
public:
  /// Opens the group at `root` for writing: its members as of now are read.
  explicit group_writer(const fs::path& root, array::write_options opt = {})
      : root_(root), opt_(std::move(opt)), storage_(array::detail::or_local(opt_.storage)) {
    if (opt_.format_version < first_details_version || opt_.format_version > format::written_version)
      throw std::invalid_argument("tilefmt: group_writer: format version " + std::to_string(opt_.format_version) +
                                  ": groups have members and metadata from " + std::to_string(first_details_version) +
                                  " (libtiledb 2.8) to " + std::to_string(format::written_version));
    array::open_options read;
    read.storage = storage_;
    read.encryption_key = opt_.encryption_key;
    const auto g = tilefmt::group::open(root_, read);
    if (!g.details_files().empty()) version_ = g.details_files().back().name.version.value_or(1) == 1 ? 1 : 2;
    else version_ = opt_.format_version < first_details_v2_version ? 1 : 2;
    // A group without details files (before TileDB 2.8, or new on an object
    // store, where empty folders do not exist) has no members for TileDB:
    // its first details file lists only what this session adds.
    if (!g.legacy()) opened_ = g.members();
  }

  /// Adds a member: `uri` relative to the group (`relative`) or absolute,
  /// known by `name` if given, of `type` (by default what is there now:
  /// INVALID when nothing is, as TileDB stores it).
  group_writer& add(std::string uri, std::optional<std::string> name = std::nullopt, bool relative = false,
                    std::optional<format::ObjectType> type = std::nullopt) {
    // An absolute local path is stored as TileDB stores it: a file:// URI.
    if (!relative && !uri.empty() && uri.front() == '/') uri = "file://" + fs::path(uri).lexically_normal().string();
    member m{std::move(uri), std::move(name), format::ObjectType::INVALID, relative, root_ / "__group"};
    const fs::path where = resolve(root_, m);  // a member_error when it could not be followed
    m.type = type ? *type : object_type(*storage_, where);
    if (m.name && m.name->empty()) throw std::invalid_argument("tilefmt: group_writer: a member name is empty");
    touch(m.key());
    added_.push_back(std::move(m));
    return *this;
  }

  /// Removes the member called `name_or_uri`, or else the one whose URI it
  /// is (as stored, or as a local path's file:// URI); std::invalid_argument
  /// when there is none, or when the URI names several members.
  group_writer& remove(std::string_view name_or_uri) {
    const std::string given(name_or_uri);
    auto by_key = [&](const std::string& k) -> const member* {
      for (const auto& m : opened_)
        if (m.key() == k) return &m;
      return nullptr;
    };
    const member* found = by_key(given);
    if (!found && !given.empty() && given.front() == '/') found = by_key("file://" + given);
    if (!found) {
      std::size_t n = 0;
      for (const auto& m : opened_)
        if (m.uri == given) found = &m, ++n;
      if (n > 1)
        throw std::invalid_argument("tilefmt: group_writer: " + given + " is the URI of " + std::to_string(n) +
                                    " members: remove them by name");
    }
    if (!found) throw std::invalid_argument("tilefmt: group_writer: no member " + given + " in " + root_.string());
    touch(found->key());
    removed_.push_back(*found);
    return *this;
  }

  /// Sets a metadata key (a deletion entry deletes it), replacing what this
  /// session set before.
  group_writer& put_metadata(format::MetadataEntry e) {
    if (e.key.value.empty()) throw std::invalid_argument("tilefmt: group_writer: a metadata key is empty");
    if (!e.deleted() && e.type() == format::Datatype::ANY)
      throw std::invalid_argument("tilefmt: group_writer: key \"" + e.key.value + "\": TileDB refuses ANY values");
    if (!e.deleted() && format::first_version(e.type()) > opt_.format_version)
      throw std::invalid_argument("tilefmt: group_writer: key \"" + e.key.value + "\": format version " +
                                  std::to_string(opt_.format_version) + " has no datatype " +
                                  std::string(format::codec_enum_name(e.type())));
    meta_[e.key.value] = std::move(e);
    return *this;
  }
  group_writer& remove_metadata(std::string key) { return put_metadata(format::MetadataEntry::deletion_of(std::move(key))); }

  /// Writes the session's details and metadata files (none for what did not
  /// change); returns their names. Commits once.
  std::pair<std::string, std::string> commit() {
    if (committed_) throw std::logic_error("tilefmt: group_writer: already committed");
    committed_ = true;
    auto [t, label] = array::detail::name_parts(opt_);
    const std::uint32_t tile_version = opt_.format_version;
    std::pair<std::string, std::string> names;
    if (!added_.empty() || !removed_.empty()) {
      // TileDB names version 1 files without a version (2.8 to 2.14 knew no other).
      names.first = format::make_timestamped_name(t, t, label) + (version_ > 1 ? "_" + std::to_string(version_) : "");
      storage_->make_folder(root_ / "__group");  // a group from before TileDB 2.8 has none
      storage_->write(root_ / "__group" / names.first,
                      filter::write_generic_tile(codec::encode(details()), tile_version, opt_.encryption_key));
    }
    if (!meta_.empty()) {
      format::ArrayMetadata file;
      for (auto& [key, e] : meta_) file.entries.value.push_back(std::move(e));
      names.second = format::make_timestamped_name(t, t, array::detail::random_label(t));
      storage_->make_folder(root_ / "__meta");
      storage_->write(root_ / "__meta" / names.second,
                      filter::write_generic_tile(codec::encode(file), tile_version, opt_.encryption_key));
    }
    return names;
  }

private:
  /// A key may change once a session, as TileDB allows.
  void touch(const std::string& key) {
    if (!touched_.insert(key).second)
      throw std::invalid_argument("tilefmt: group_writer: member " + key + " is added or removed twice in one session");
  }

  format::GroupMember record(const member& m, bool deleted) const {
    format::GroupMember r;
    r.version.value = version_;  // a version 1 file holds members of version 1
    r.type = m.type;
    r.relative = m.relative;
    r.uri.value = m.uri;
    r.name_set = m.name.has_value();
    if (m.name) r.name->value = *m.name;
    r.deleted.value = deleted;
    return r;
  }

  /// The file: the members at opening, those added over them by key, then
  /// (version 2) those removed, marked deleted. Version 2 files of formats 18
  /// to 20 hold the session's changes only, as TileDB 2.15 to 2.18 wrote
  /// them: those releases list a member found in two files twice, so they
  /// misread the whole lists of later releases.
  format::GroupDetails details() const {
    const bool whole = version_ == 1 || opt_.format_version >= first_whole_list_version;
    std::vector<member> members = whole ? opened_ : std::vector<member>{};
    std::set<std::string> gone;
    for (const auto& m : removed_) gone.insert(m.key());
    std::erase_if(members, [&](const member& m) { return gone.contains(m.key()); });
    for (const auto& m : added_) {
      const auto it = std::find_if(members.begin(), members.end(), [&](const member& x) { return x.key() == m.key(); });
      if (it != members.end()) *it = m;
      else members.push_back(m);
    }
    format::GroupDetails d;
    d.version = version_;
    for (const auto& m : members) d.members.value.push_back(record(m, false));
    if (version_ == 2)
      for (const auto& m : removed_) d.members.value.push_back(record(m, true));
    return d;
  }

  fs::path root_;
  array::write_options opt_;
  std::shared_ptr<storage::backend> storage_;
  std::uint32_t version_ = 2;
  std::vector<member> opened_, added_, removed_;
  std::set<std::string> touched_;
  std::map<std::string, format::MetadataEntry> meta_;
  bool committed_ = false;
};

} // namespace tilefmt::group
