// tilefmt — group details (format_spec/group.md; tiledb/sm/group/
// group_details_v1.cc, group_details_v2.cc, group_member_v1.cc,
// group_member_v2.cc): the payload of one generic tile
// `__group/__t1_t2_uuid[_v]` of a group folder, listing its members.
//
// Where TileDB's code and the spec differ, the code is followed: the member
// count is a u64 (the spec says u32), and a member's name length and name
// are there only when its name is set. Version 1 members have no deleted
// flag. Each member carries its own version: a version 1 file that TileDB
// 2.19 or later added to holds version 2 members.
//
// How the files of a group add up (group/read/group.hpp): a version 1 file
// is the whole list, and only the newest counts; version 2 files are applied
// oldest first, each member keyed by its name (its URI when it has none),
// a deleted member removing the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilefmt/codec/codec.hpp"

namespace tilefmt::format {

/// What a group member is (tiledb/sm/enums/object_type.h).
enum class ObjectType : std::uint8_t { INVALID = 0, GROUP = 1, ARRAY = 2 };
constexpr bool codec_enum_valid(ObjectType t) { return static_cast<std::uint8_t>(t) <= 2; }
constexpr std::string_view codec_enum_name(ObjectType t) {
  constexpr std::string_view names[] = {"INVALID", "GROUP", "ARRAY"};
  return codec_enum_valid(t) ? names[static_cast<std::uint8_t>(t)] : "UNKNOWN";
}

namespace detail {
/// when<> predicate: the member's name is set (TileDB reads any non-zero
/// byte as true).
struct member_name_set {
  template <class Member>
  bool operator()(const Member& m) const {
    return m.name_set != 0;
  }
};
} // namespace detail

/// format_spec/group.md, "Group Member".
struct GroupMember {
  codec::version_field<std::uint32_t> version{2};
  ObjectType type{};
  std::uint8_t relative = 0;  // the URI is relative to the group's
  codec::counted<std::uint64_t, std::string> uri;
  std::uint8_t name_set = 0;
  codec::when<detail::member_name_set, codec::counted<std::uint64_t, std::string>> name;
  codec::since<2, std::uint8_t> deleted;  // non-zero: the member was removed

  bool is_relative() const noexcept { return relative != 0; }
  bool is_deleted() const noexcept { return deleted.value != 0; }
  std::optional<std::string> name_or_none() const {
    if (name_set == 0) return std::nullopt;
    return name->value;
  }
  /// What later files name this member by: its name, else its URI.
  const std::string& key() const noexcept { return name_set != 0 ? name->value : uri.value; }

  friend bool operator==(const GroupMember&, const GroupMember&) = default;
};

/// format_spec/group.md, "Group File".
struct GroupDetails {
  std::uint32_t version = 2;
  codec::counted<std::uint64_t, std::vector<GroupMember>> members;

  friend bool operator==(const GroupDetails&, const GroupDetails&) = default;
};

} // namespace tilefmt::format
