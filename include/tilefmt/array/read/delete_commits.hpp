// tilefmt — the delete commits of an opened array (`__commits/*.del`, and
// the update commits `*.upd`, which TileDB reads as deletes), with their
// conditions ready to evaluate: the sparse reader hides the cells they
// delete, and a consolidation records which commit deleted which cell.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/condition_eval.hpp"
#include "tilefmt/filter/generic_tile.hpp"

namespace tilefmt::array::detail {

/// A delete commit: the condition of the cells it keeps (TileDB stores the
/// negated delete condition), when it was made, and the marker fragments
/// name it by once it is applied to them.
struct delete_commit {
  std::string marker;
  std::uint64_t timestamp;
  condition_eval keep;
};

/// The delete commits inside the time range `arr` was opened at, oldest
/// first, their conditions bound to `schema`. Update commits count as
/// delete commits, as TileDB's readers take them (2.30: array_operations.cc
/// load_delete_and_update_conditions gives the readers each `.upd` file's
/// condition beside the `.del` files' and its values to none of them):
/// the cells an update selects, written before it, are left out of reads.
inline std::vector<delete_commit> load_delete_commits(const array_reader& arr, const format::ArraySchema& schema) {
  std::vector<delete_commit> out;
  const auto& opt = arr.options();
  for (const auto& c : arr.files().delete_commits) {
    // Fragments name a processed commit by its file, from the array's folder.
    const std::string marker = (c.path.parent_path().filename() / c.path.filename()).generic_string();
    auto node = naming_file(c.path, [&] {
      // Vacuumed after a commits consolidation: the bytes a `.con` file holds.
      const auto bytes = c.held_in.empty() ? arr.storage().read(c.path, opt.max_allocation)
                                           : arr.storage().read_range(c.held_in, c.offset, c.size);
      const auto g = filter::read_generic_tile(bytes, {opt.verify_checksums, opt.encryption_key, opt.max_allocation});
      if (c.path.extension() == ".upd") return codec::decode<format::UpdateCommit>(g.payload).condition;
      return codec::decode<format::ConditionNode>(g.payload);
    });
    try {
      out.push_back({marker, c.t2(), condition_eval(std::move(node), schema)});
    } catch (const std::invalid_argument& e) {
      throw format_error(std::string("delete commit ") + marker + ": " + e.what(), 0);
    }
  }
  return out;
}

} // namespace tilefmt::array::detail
