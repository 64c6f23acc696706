// Deleting whole fragments and whole arrays (maintain/delete_fragments.hpp):
// the fragments wholly inside the time range go, commit first; one whose
// commit a consolidated commits file holds is named in an ignore file; what
// a consolidation replaced is left to vacuum; an array goes with TileDB's
// folders, and a file of the user's keeps its folder. TileDB-Py reading
// what these leave is python/tests/test_maintain.py's.
#include "tilefmt/array/maintain/delete_fragments.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "../../support/rc_cells.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_delete_fragments {

using namespace tilefmt;
namespace fs = std::filesystem;
using cell = testing::rc_cell;

namespace {

/// A sparse 8 x 8 array with a fragment at each of 10, 20, 30, 40 ms: the
/// fragment at t writes cell (t / 10, 1) = t, and all write (8, 8) = t.
std::shared_ptr<storage::memory> four_fragments() {
  auto st = std::make_shared<storage::memory>();
  testing::create_rc_array(st, "/a", 8, 4);
  for (std::int32_t t = 10; t <= 40; t += 10) testing::write_rc_cells(st, "/a", {{t / 10, 1, t}, {8, 8, t}}, t);
  return st;
}

std::vector<cell> read_all(const std::shared_ptr<storage::memory>& st) {
  auto cells = testing::rc_cells_of(array::open("/a", {.storage = st}).query().layout(array::query_layout::row_major).read());
  std::sort(cells.begin(), cells.end());
  return cells;
}

std::size_t fragment_count(const std::shared_ptr<storage::memory>& st) {
  return array::list_array(*st, "/a").fragments.size();
}

} // namespace

TEST_CASE("delete_fragments: the fragments wholly inside the range, commit before folder") {
  auto st = four_fragments();
  const auto r = array::delete_fragments("/a", 15, 30, st);
  CHECK(r.ignore_files.empty());
  REQUIRE(r.removed.size() == 4);
  CHECK(r.removed[0].parent_path() == fs::path("/a/__commits"));
  CHECK(r.removed[1].parent_path() == fs::path("/a/__fragments"));
  CHECK(fragment_count(st) == 2);
  CHECK(read_all(st) == std::vector<cell>{{1, 1, 10}, {4, 1, 40}, {8, 8, 40}});
  // Nothing inside: nothing removed.
  CHECK(array::delete_fragments("/a", 11, 39, st).removed.empty());
  CHECK(fragment_count(st) == 2);
  CHECK_THROWS_AS(array::delete_fragments("/nowhere", 0, 100, st), storage::io_error);
}

TEST_CASE("delete_fragments: a consolidated fragment partly inside stays; replaced fragments as TileDB lists them") {
  auto st = four_fragments();
  array::consolidation_options opt;
  opt.storage = st;
  opt.timestamp_start = 10;
  opt.timestamp_end = 20;
  array::consolidate_fragments("/a", opt);  // __10_20 replaces 10 and 20, not vacuumed
  // 30 and 40; __10_20 is not wholly inside, so neither is its vacuum file,
  // and TileDB (ArrayDirectory::compute_uris_to_vacuum) then lists the
  // replaced fragment 20 as a fragment: it goes too.
  const auto r = array::delete_fragments("/a", 15, 40, st);
  CHECK(r.removed.size() == 6);
  CHECK(read_all(st) == std::vector<cell>{{1, 1, 10}, {2, 1, 20}, {8, 8, 20}});
  array::delete_fragments("/a", 10, 20, st);  // __10_20; the vacuum file inside hides 10
  CHECK(read_all(st).empty());
  CHECK(array::vacuum_fragments("/a", st).removed.size() == 3);  // 10's commit and folder, the vacuum file
}

TEST_CASE("delete_fragments: a commit held in a consolidated commits file is ignored by an ignore file") {
  auto st = four_fragments();
  array::consolidation_options opt;
  opt.storage = st;
  array::consolidate_commits("/a", opt);
  array::vacuum_commits("/a", st);  // the .wrt files go: the .con holds the commits
  const auto r = array::delete_fragments("/a", 20, 20, st);
  REQUIRE(r.ignore_files.size() == 1);
  const auto bytes = st->read(r.ignore_files[0]);
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  CHECK(array::list_array(*st, "/a", 20, 20).fragments.empty());
  CHECK(text.starts_with("__commits/__20_20_"));
  CHECK(text.ends_with(".wrt\n"));
  CHECK(fragment_count(st) == 3);
  CHECK(read_all(st) == std::vector<cell>{{1, 1, 10}, {3, 1, 30}, {4, 1, 40}, {8, 8, 40}});
}

TEST_CASE("delete_array: TileDB's folders go, and the array's folder unless the user's files are in it") {
  auto st = four_fragments();
  array::delete_array("/a", st);
  CHECK_FALSE(array::is_array(*st, "/a"));
  CHECK_FALSE(st->is_folder("/a"));

  st = four_fragments();
  const std::string note = "mine";
  st->write("/a/notes.txt", std::as_bytes(std::span<const char>(note.data(), note.size())));
  array::delete_array("/a", st);
  CHECK_FALSE(array::is_array(*st, "/a"));
  REQUIRE(st->is_folder("/a"));
  const auto left = st->list("/a");
  REQUIRE(left.size() == 1);
  CHECK(left[0].name == "notes.txt");
}

} // namespace test_delete_fragments
