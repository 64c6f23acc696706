// Group details (format/group_details.hpp): the payloads of details files
// TileDB wrote decode to their members and re-encode to the same bytes: a
// version 2 file of TileDB-Py 0.36.1 (an unnamed absolute group, a named
// relative array), the file it wrote after removing the first (the removed
// member again, deleted), and a version 1 file of TileDB 2.14 (no deleted
// byte). Every truncation is refused, and damaged fields are named.
#include <span>
#include <string>
#include <vector>

#include "tilefmt/format/group_details.hpp"

#include "../support/testing.hpp"

namespace test_group_details {

using namespace tilefmt;
using format::GroupDetails;
using format::ObjectType;
using tilefmt::testing::hex_bytes;

// The payloads (after the generic tile's GZIP) of real files.
constexpr const char* kAdded =  // TileDB-Py 0.36.1: add(abs group), add("arr", name="myarr", relative=True)
    "02000000020000000000000002000000010"
    "01d0000000000000066696c653a2f2f2f746d702f67726f757066616374732f6578746772700000"
    "02000000020103000000000000006172720105000000000000006d7961727200";
constexpr const char* kRemoved =  // the next file, after remove() of the group
    "02000000020000000000000002000000020103000000000000006172720105000000000000006d79617272"
    "000200000001001d0000000000000066696c653a2f2f2f746d702f67726f757066616374732f6578746772700001";
constexpr const char* kVersion1 =  // TileDB 2.14: one named relative group
    "010000000100000000000000010000000101090000000000000073756267726f75703101090000000000000073756267726f757031";

TEST_CASE("group details of TileDB-Py 0.36.1 and TileDB 2.14 decode and re-encode byte for byte") {
  const auto added = hex_bytes(kAdded);
  const auto a = codec::decode<GroupDetails>(added);
  CHECK(a.version == 2);
  REQUIRE(a.members.value.size() == 2);
  const auto& g = a.members.value[0];
  CHECK(g.version.value == 2);
  CHECK(g.type == ObjectType::GROUP);
  CHECK_FALSE(g.is_relative());
  CHECK(g.uri.value == "file:///tmp/groupfacts/extgrp");
  CHECK_FALSE(g.name_or_none());
  CHECK(g.key() == g.uri.value);
  CHECK_FALSE(g.is_deleted());
  const auto& r = a.members.value[1];
  CHECK(r.type == ObjectType::ARRAY);
  CHECK(r.is_relative());
  CHECK(r.uri.value == "arr");
  CHECK(r.name_or_none() == std::optional<std::string>("myarr"));
  CHECK(r.key() == "myarr");
  CHECK(codec::encode(a) == added);

  const auto removed = hex_bytes(kRemoved);
  const auto b = codec::decode<GroupDetails>(removed);
  REQUIRE(b.members.value.size() == 2);
  CHECK_FALSE(b.members.value[0].is_deleted());
  CHECK(b.members.value[1].is_deleted());
  CHECK(b.members.value[1].key() == "file:///tmp/groupfacts/extgrp");
  CHECK(codec::encode(b) == removed);

  const auto v1 = hex_bytes(kVersion1);
  const auto c = codec::decode<GroupDetails>(v1);
  CHECK(c.version == 1);
  REQUIRE(c.members.value.size() == 1);
  CHECK(c.members.value[0].version.value == 1);
  CHECK(c.members.value[0].name_or_none() == std::optional<std::string>("subgroup1"));
  CHECK_FALSE(c.members.value[0].is_deleted());  // version 1 has no such byte
  CHECK(codec::encode(c) == v1);
}

TEST_CASE("group details: truncations and damage are refused, naming the field") {
  for (const char* hex : {kAdded, kRemoved, kVersion1}) {
    const auto bytes = hex_bytes(hex);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      CAPTURE(n);
      CHECK_THROWS_AS(codec::decode<GroupDetails>(std::span<const std::byte>(bytes).first(n)), format_error);
    }
  }
  auto bad = hex_bytes(kAdded);
  bad[16] = std::byte{7};  // the first member's object type
  try {
    codec::decode<GroupDetails>(bad);
    FAIL("an object type of 7 decoded");
  } catch (const format_error& e) {
    CHECK(e.field() == "GroupDetails.members[0].type");
    CHECK(e.offset() == 16);
  }
  bad = hex_bytes(kAdded);
  bad[11] = std::byte{0x40};  // 2^62 members: refused before anything is allocated
  CHECK_THROWS_AS(codec::decode<GroupDetails>(bad), format_error);
  bad = hex_bytes(kAdded);
  bad[25] = std::byte{0x7f};  // a URI longer than the file
  CHECK_THROWS_AS(codec::decode<GroupDetails>(bad), format_error);
}

} // namespace test_group_details
