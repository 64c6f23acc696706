// tilefmt — a group's members as its details files add up
// (tiledb/sm/group/group_details_v1.cc, group_details_v2.cc), and where a
// member is.
//
// A version 1 file lists every member (TileDB reads only the newest); a
// version 2 file is applied on top of the files before it: each member is
// keyed by its name, or by its URI when it has none, and a deleted member
// removes its key. Members keep the place they were first listed at (TileDB
// returns them in the order of its hash table, which no format fixes).
//
// Member URIs come from files: a relative one may not leave the group's
// folder, and an absolute one is followed only on the group's own storage
// (file:// for local folders, s3:// for S3); resolve() says why not
// otherwise, naming the details file and the member.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilefmt/format/group_details.hpp"

namespace tilefmt::group {

namespace fs = std::filesystem;

/// One member of a group.
struct member {
  std::string uri;                  // as the details file stores it
  std::optional<std::string> name;  // none: the member is known by its URI
  format::ObjectType type = format::ObjectType::INVALID;
  bool relative = false;            // `uri` is relative to the group's folder
  fs::path listed_in{};             // the details file that last listed it (legacy groups: the group folder)

  /// What TileDB names the member by: its name, else its URI.
  const std::string& key() const noexcept { return name ? *name : uri; }
};

/// A member URI that cannot be followed.
class member_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The members of a group, built from its details files oldest first.
class member_list {
public:
  /// Applies one details file read from `file`.
  void apply(const format::GroupDetails& details, const fs::path& file) {
    if (details.version != 1 && details.version != 2)
      throw member_error(file.string() + ": group details version " + std::to_string(details.version) +
                         ", TileDB wrote versions 1 and 2");
    if (details.version == 1) by_key_.clear();  // a version 1 file is the whole list
    for (const auto& m : details.members.value) {
      if (m.version.value != 1 && m.version.value != 2)
        throw member_error(file.string() + ": group member \"" + m.uri.value + "\" of version " +
                           std::to_string(m.version.value) + ", TileDB wrote versions 1 and 2");
      if (m.is_deleted()) {
        by_key_.erase(m.key());
        continue;
      }
      member x{m.uri.value, m.name_or_none(), m.type, m.is_relative(), file};
      const auto it = by_key_.find(m.key());
      if (it != by_key_.end())
        it->second.second = std::move(x);  // re-pointed: keeps its place
      else
        by_key_.emplace(m.key(), std::pair{next_++, std::move(x)});
    }
  }

  /// Adds a member as it is (legacy groups, whose members are listed).
  void add(member m) {
    const std::string key = m.key();
    by_key_.insert_or_assign(key, std::pair{next_++, std::move(m)});
  }

  /// The members, in the order they were first listed.
  std::vector<member> members() const {
    std::vector<std::pair<std::uint64_t, const member*>> order;
    for (const auto& [k, v] : by_key_) order.emplace_back(v.first, &v.second);
    std::sort(order.begin(), order.end());
    std::vector<member> out;
    for (const auto& [seq, m] : order) out.push_back(*m);
    return out;
  }

private:
  std::map<std::string, std::pair<std::uint64_t, member>> by_key_;
  std::uint64_t next_ = 0;
};

/// Where member `m` of the group at `root` is, or a member_error saying why
/// it cannot be followed.
inline fs::path resolve(const fs::path& root, const member& m) {
  auto refuse = [&](const std::string& why) {
    return member_error(m.listed_in.string() + ": member " + (m.name ? "\"" + *m.name + "\" " : std::string()) +
                        "\"" + m.uri + "\" " + why);
  };
  const std::string root_text = root.string();
  const bool on_s3 = root_text.rfind("s3://", 0) == 0;
  if (m.relative) {
    const fs::path rel = fs::path(m.uri).lexically_normal();
    if (m.uri.empty() || m.uri.find("://") != std::string::npos || rel.is_absolute() || rel.has_root_name() ||
        rel.has_root_directory())
      throw refuse("is not a relative path");
    for (const auto& part : rel)
      if (part == "..") throw refuse("leaves the group's folder");
    if (rel == ".") throw refuse("is the group itself");
    return root / rel;
  }
  if (m.uri.rfind("file://", 0) == 0) {
    if (on_s3) throw refuse("is a local path, the group is on S3");
    const fs::path p = fs::path(m.uri.substr(7)).lexically_normal();
    if (!p.is_absolute()) throw refuse("is not an absolute file:// URI");
    return p;
  }
  if (m.uri.rfind("s3://", 0) == 0) {
    if (!on_s3) throw refuse("is on S3, the group is not");
    return fs::path(m.uri);
  }
  if (!m.uri.empty() && m.uri.front() == '/' && !on_s3) return fs::path(m.uri).lexically_normal();
  throw refuse("is on a storage tilefmt does not follow from this group");
}

} // namespace tilefmt::group
