// The array directory against TileDB's own behaviour: ignore files, sparse
// fragments that overlap an open range in part, per-cell timestamps, delete
// metadata and the schema in force after schema evolution. The arrays are
// under tests/data/time_travel (tests/interop/export_time_travel.py); the
// interop checker also compares them with what TileDB read at many ranges.
#include "tilefmt/array/read/array.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "../../support/testing.hpp"

namespace test_directory {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA) / "time_travel";

fs::path copy_array(const fs::path& src, const std::string& name) { return testing::copy_to_temp(src, name); }

std::vector<fs::path> with_extension(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> lines_of(const fs::path& p) {
  auto bytes = tilefmt::storage::local{}.read(p);
  std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(text.substr(at, nl - at));
  return out;
}
} // namespace

TEST_CASE("an ignore file hides the consolidated commits it names") {
  // consolidated_commits_vacuumed: the three commits were consolidated into a
  // .con file, then the fragments consolidated and vacuumed, so TileDB wrote
  // a .ign naming the three commits. Folders put back under those names stay
  // invisible while the .ign is there and are listed once it is gone: TileDB-Py
  // 0.36.1 (FragmentInfoList) lists 1 and then 4 fragments for the same copy.
  const fs::path root = copy_array(data / "consolidated_commits_vacuumed/array", "ign");
  auto ign = with_extension(root / "__commits", ".ign");
  REQUIRE(ign.size() == 1);
  REQUIRE(with_extension(root / "__commits", ".con").size() == 1);
  CHECK(with_extension(root / "__commits", ".wrt").size() == 1);  // the consolidated fragment's
  auto ignored = lines_of(ign[0]);
  REQUIRE(ignored.size() == 3);

  auto before = array::list_array(root);
  REQUIRE(before.fragments.size() == 1);
  const fs::path consolidated = before.fragments[0].path;
  for (const auto& line : ignored) {
    REQUIRE(line.ends_with(".wrt"));
    auto name = fs::path(line).filename().stem();
    fs::copy(consolidated, root / "__fragments" / name, fs::copy_options::recursive);
  }
  CHECK(array::list_array(root).fragments.size() == 1);
  CHECK(array::open(root).fragments().size() == 1);

  fs::rename(ign[0], root / "ignore-file-moved-away");
  auto after = array::list_array(root);
  CHECK(after.fragments.size() == 4);
  std::set<std::string> names;
  for (const auto& f : after.fragments) names.insert(f.name.stem());
  for (const auto& line : ignored) CHECK(names.count(fs::path(line).filename().stem().string()) == 1);
  fs::remove_all(root);
}

TEST_CASE("per-cell timestamps and delete metadata of a consolidated sparse fragment") {
  // sparse_deletes_consolidated: writes of 14 and 11 cells, a delete commit
  // (a < 0), a write of 9 cells; consolidated with timestamps and vacuumed.
  const fs::path root = data / "sparse_deletes_consolidated/array";
  auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 1);
  const auto& f = arr.fragments()[0];
  CHECK_FALSE(f.dense());
  REQUIRE(f.has_timestamps());
  REQUIRE(f.has_delete_meta());
  auto ts = f.read_timestamps();
  auto dt = f.read_delete_timestamps();
  auto dci = f.read_delete_condition_index();
  auto a = f.read<std::int64_t>("a");
  REQUIRE(ts.size() == 34);
  REQUIRE(dt.size() == 34);
  REQUIRE(dci.size() == 34);
  REQUIRE(a.size() == 34);

  // Cells per write, in write order.
  std::map<std::uint64_t, int> per_write;
  for (auto t : ts) ++per_write[t];
  REQUIRE(per_write.size() == 3);
  std::vector<int> counts;
  for (auto [t, n] : per_write) {
    CHECK(t >= f.timestamp_start());
    CHECK(t <= f.timestamp_end());
    counts.push_back(n);
  }
  CHECK(counts == std::vector<int>{14, 11, 9});
  CHECK(per_write.begin()->first == f.timestamp_start());
  CHECK(per_write.rbegin()->first == f.timestamp_end());

  // The one delete commit, applied to this fragment.
  auto listing = array::list_array(root);
  REQUIRE(listing.delete_commits.size() == 1);
  const std::uint64_t deleted_at = listing.delete_commits[0].t1();
  auto processed = f.processed_conditions();
  REQUIRE(processed.size() == 1);
  CHECK(processed[0] == "__commits/" + listing.delete_commits[0].path.filename().string());
  // Exactly the cells with a < 0 written before the delete are deleted, by
  // condition 0; the others carry UINT64_MAX in both columns.
  const auto none = std::numeric_limits<std::uint64_t>::max();
  int deleted = 0;
  for (std::size_t c = 0; c < a.size(); ++c) {
    const bool expect = a[c] < 0 && ts[c] < deleted_at;
    CHECK((dt[c] != none) == expect);
    if (expect) {
      ++deleted;
      CHECK(dt[c] == deleted_at);
      CHECK(dci[c] == 0);
    } else {
      CHECK(dci[c] == none);
    }
  }
  CHECK(deleted > 0);

  // Opened before the last write, a sparse array still reads the fragment
  // that overlaps the range in part (its later cells are filtered by their
  // timestamps); a dense-style listing (full overlap) would not.
  const std::uint64_t first_write = per_write.begin()->first;
  auto early = array::open(root, {.timestamp_end = first_write});
  CHECK(early.fragments().size() == 1);
  CHECK(array::list_array(root, 0, first_write).fragments.empty());
  CHECK(array::list_array(root, 0, first_write, true).fragments.size() == 1);
  CHECK(array::list_array(root, 0, f.timestamp_start() - 1, true).fragments.empty());
  CHECK(array::open(root, {.timestamp_end = deleted_at - 1}).files().delete_commits.empty());

  // Only fragments that have them expose these fields.
  auto plain = array::open(data / "schema_evolution_sparse/array");
  CHECK_FALSE(plain.fragments()[0].has_timestamps());
  CHECK_THROWS_AS(plain.fragments()[0].read_timestamps(), std::invalid_argument);
  CHECK_THROWS_AS(plain.fragments()[0].read_delete_timestamps(), std::invalid_argument);
}

TEST_CASE("schema evolution: the schema in force at the open range, each fragment with its own") {
  const fs::path root = data / "schema_evolution_sparse/array";
  auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 2);
  CHECK(arr.schema().attributes.size() == 2);
  CHECK(arr.fragments()[0].schema().attributes.size() == 1);
  CHECK(arr.fragments()[1].schema().attributes.size() == 2);
  CHECK(arr.files().schemas.size() == 2);
  auto early = array::open(root, {.timestamp_end = arr.fragments()[0].timestamp_end()});
  REQUIRE(early.fragments().size() == 1);
  CHECK(early.schema().attributes.size() == 1);
  CHECK(early.files().latest_schema == arr.files().schemas.front());
}

TEST_CASE("a consolidated, not vacuumed dense array: the .vac file hides the originals only when in range") {
  const fs::path root = data / "consolidated_dense/array";
  auto all = array::open(root);
  REQUIRE(all.fragments().size() == 1);
  const auto& c = all.fragments()[0];
  CHECK(c.timestamp_start() < c.timestamp_end());
  // A range that ends before the consolidated fragment does: the .vac is out
  // of range, the first two original fragments are back.
  auto early = array::open(root, {.timestamp_end = c.timestamp_end() - 1});
  CHECK(early.fragments().size() == 2);
  auto first = array::open(root, {.timestamp_start = c.timestamp_start(), .timestamp_end = c.timestamp_start()});
  REQUIRE(first.fragments().size() == 1);
  CHECK(first.fragments()[0].timestamp_end() == c.timestamp_start());
}

} // namespace test_directory
