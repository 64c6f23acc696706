// tilefmt — TileDB groups: folders of arrays and groups with a member list
// and metadata (format_spec/group.md), and what a path holds.
//
//   auto g = tilefmt::group::open("path/to/experiment");
//   for (const auto& m : g.members()) std::cout << m.key() << "\n";
//   auto t = tilefmt::group::object_type("path/to/x");    // ARRAY, GROUP, INVALID
//   tilefmt::group::group_writer w("path/to/experiment");
//   w.add("var", "var", true).remove("old");
//   w.commit();
//
// docs/groups.md is the manual. Each header of group/ may be included alone.
#pragma once

#include "tilefmt/group/maintain/metadata.hpp"
#include "tilefmt/group/model/members.hpp"
#include "tilefmt/group/model/object.hpp"
#include "tilefmt/group/read/group.hpp"
#include "tilefmt/group/write/group_writer.hpp"
