// Consolidation modes beyond fragments and array metadata, each repeated
// on the stages of arrays TileDB-Py 0.36.1 took through them
// (tests/data/consolidation_modes, export_consolidation_modes.py): commits
// (`.con`) and their vacuum, fragment metadata (`.meta`) and its vacuum,
// fragments in steps. Every operation, applied by tilefmt to a copy of the
// stage before it, must leave the files TileDB left, byte for byte (the
// label of an ignore file aside: TileDB draws it at random). TileDB-Py
// reading tilefmt's results is tests/interop/consolidation_modes_check.py.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "../../support/result_rows.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/maintain/consolidate.hpp"
#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/storage/local.hpp"

namespace test_consolidate_modes {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

const fs::path data = fs::path(TILEFMT_TEST_DATA) / "consolidation_modes";

/// The files under `root`, relative, with their bytes; an ignore file's
/// label replaced by `*`.
std::map<std::string, std::vector<std::byte>> files_of(const fs::path& root) {
  std::map<std::string, std::vector<std::byte>> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), root).generic_string();
    if (e.path().extension() == ".ign") {
      const auto n = format::parse_timestamped_name(e.path().filename().string());
      rel = rel.substr(0, rel.find(n.uuid)) + "*" + rel.substr(rel.find(n.uuid) + n.uuid.size());
    }
    out[rel] = storage::local{}.read(e.path());
  }
  return out;
}

/// Timestamped names in the array folder and its subfolders.
std::set<std::string> names_in(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& dir : {root, root / "__commits", root / "__fragments", root / "__fragment_meta"})
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

/// The labels of what TileDB added between two stages: of the `.con` or
/// `.meta` file, or of each new fragment in the order written (a fragment
/// a later one replaced comes first).
std::vector<std::string> new_labels(const fs::path& before, const fs::path& after, const std::string& ext) {
  const auto old = names_in(before);
  std::vector<std::string> added;
  for (const auto& n : names_in(after))
    if (old.count(n) == 0 && fs::path(n).extension() == ext) added.push_back(n);
  std::stable_sort(added.begin(), added.end(), [&](const std::string& a, const std::string& b) {
    const fs::path vac = after / "__commits" / (b + ".vac");
    if (!fs::exists(vac)) return false;
    const auto bytes = storage::local{}.read(vac);
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()).find(a) != std::string::npos;
  });
  std::vector<std::string> out;
  for (const auto& n : added) out.push_back(format::parse_timestamped_name(n).uuid);
  return out;
}

struct operation {
  std::string what;  // "write" (TileDB's only), "consolidate" or "vacuum"
  std::string mode;  // commits, fragment_meta, fragments
  array::consolidation_options opt{};
};

array::consolidation_options steps_first() {
  array::consolidation_options o;
  o.steps = 2;
  o.step_min_frags = 2;
  o.step_max_frags = 3;
  o.step_size_ratio = 0.4f;
  o.buffer_size = 1000;
  return o;
}

array::consolidation_options steps_second() {
  array::consolidation_options o;
  o.steps = 1;
  o.step_min_frags = 2;
  o.step_max_frags = 2;
  o.amplification = 2.0;
  return o;
}

/// Per case, the operation that made each stage after the first (as
/// export_consolidation_modes.py performs them).
std::map<std::string, std::vector<operation>> cases() {
  const operation write{"write", ""}, con_commits{"consolidate", "commits"}, vac_commits{"vacuum", "commits"},
      con_meta{"consolidate", "fragment_meta"}, vac_meta{"vacuum", "fragment_meta"},
      con_frags{"consolidate", "fragments"}, vac_frags{"vacuum", "fragments"};
  const std::vector<operation> meta{con_meta, write, con_meta, vac_meta};
  const std::vector<operation> steps{{"consolidate", "fragments", steps_first()},
                                     {"consolidate", "fragments", steps_second()},
                                     vac_frags};
  return {
      {"commits", {con_commits, vac_commits, con_frags, vac_frags, write, con_commits, vac_commits}},
      {"commits_delete", {con_commits, write, con_commits, vac_commits}},
      {"commits_plain", {con_commits, vac_commits, write, con_commits, vac_commits}},
      {"fragment_meta_sparse", meta},
      {"fragment_meta_dense", meta},
      {"steps_sparse", steps},
      {"steps_dense", steps},
  };
}

/// Applies `op` with tilefmt to the array at `root`; `labels`: TileDB's.
void apply(const fs::path& root, operation op, const std::vector<std::string>& labels) {
  if (op.what == "vacuum") {
    if (op.mode == "commits") array::vacuum_commits(root);
    else if (op.mode == "fragment_meta") array::vacuum_fragment_metadata(root);
    else array::vacuum_fragments(root);
    return;
  }
  if (op.mode == "fragments") {
    op.opt.step_labels = labels;
    const auto c = array::consolidate_fragments(root, op.opt);
    if (!labels.empty()) CHECK(c.steps.size() == labels.size());
    return;
  }
  if (!labels.empty()) op.opt.label = labels.at(0);
  const auto c = op.mode == "commits" ? array::consolidate_commits(root, op.opt)
                                      : array::consolidate_fragment_metadata(root, op.opt);
  if (!labels.empty()) CHECK(format::parse_timestamped_name(c.name).uuid == labels[0]);
}

/// Every cell a read at [0, end] returns, sorted.
std::vector<std::string> cells_at(const fs::path& root, std::uint64_t end) {
  array::open_options o;
  o.timestamp_end = end;
  const auto arr = array::open(root, o);
  const auto layout = arr.schema().is_sparse() ? array::query_layout::unordered : array::query_layout::row_major;
  auto r = testing::rows(arr.query().layout(layout).read());
  std::sort(r.begin(), r.end());
  return r;
}

} // namespace

TEST_CASE("every consolidation and vacuum leaves the files TileDB left, byte for byte") {
  for (const auto& entry : cases()) {
    const std::string& name = entry.first;
    const std::vector<operation>& ops = entry.second;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const operation& op = ops[k];
      if (op.what == "write") continue;
      const fs::path before = data / name / std::to_string(k), after = data / name / std::to_string(k + 1);
      INFO(name << ": stage " << k + 1 << ", " << op.what << " " << op.mode);
      const std::string ext = op.mode == "commits" ? ".con" : op.mode == "fragment_meta" ? ".meta" : "";
      const auto labels = op.what == "consolidate" ? new_labels(before, after, ext) : std::vector<std::string>{};
      const fs::path root = testing::copy_to_temp(before, "modes");
      apply(root, op, labels);
      CHECK(files_of(root) == files_of(after));
      fs::remove_all(root);
    }
  }
}

TEST_CASE("reads are the same at every timestamp before and after each consolidation and vacuum") {
  for (const auto& entry : cases()) {
    const std::string& name = entry.first;
    const std::vector<operation>& ops = entry.second;
    const fs::path root = testing::copy_to_temp(data / name / "0", "modes-reads");
    const std::vector<std::uint64_t> times{999, 1000, 1500, 2000, 2500, 3000, 5000, 7000, UINT64_MAX};
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const operation& op = ops[k];
      INFO(name << ": stage " << k + 1 << ", " << op.what << " " << op.mode);
      if (op.what == "write") {  // TileDB's write: taken over from its stage
        fs::remove_all(root);
        fs::copy(data / name / std::to_string(k + 1), root, fs::copy_options::recursive);
        continue;
      }
      std::vector<std::vector<std::string>> before;
      for (auto t : times) before.push_back(cells_at(root, t));
      apply(root, op, {});
      // Dense fragments consolidated are all or nothing: reads between
      // their first and last time see the consolidated one only once the
      // others are vacuumed; in between, as TileDB, they see the originals.
      for (std::size_t i = 0; i < times.size(); ++i)
        if (op.mode != "fragments" || name.find("dense") == std::string::npos || times[i] == UINT64_MAX)
          CHECK(cells_at(root, times[i]) == before[i]);
    }
    fs::remove_all(root);
  }
}

TEST_CASE("consolidated fragment metadata holds each fragment's footer as its metadata file ends") {
  for (const std::string name : {"fragment_meta_sparse", "fragment_meta_dense"}) {
    const fs::path root = testing::copy_to_temp(data / name / "0", "modes-meta");
    const auto c = array::consolidate_fragment_metadata(root);
    REQUIRE(c.replaced.size() == 3);
    const auto g = filter::read_generic_tile(storage::local{}.read(root / "__fragment_meta" / c.name));
    const auto meta = codec::decode<format::ConsolidatedFragmentMetadata>(g.payload);
    const auto arr = array::open(root);
    REQUIRE(meta.fragments.size() == arr.fragments().size());
    for (std::size_t i = 0; i < arr.fragments().size(); ++i) {
      const auto& f = arr.fragments()[i];
      CHECK(meta.fragments[i].name.value == f.path().filename().string());
      // The footer ends the metadata file, followed by its length.
      const auto file = storage::local{}.read(f.path() / "__fragment_metadata.tdb");
      const auto footer = format::consolidated_footer(meta, i);
      REQUIRE(file.size() >= footer.size() + 8);
      CHECK(std::equal(footer.begin(), footer.end(), file.end() - 8 - static_cast<std::ptrdiff_t>(footer.size())));
      CHECK(codec::decode<format::Footer>(footer, f.footer_context()) == f.footer());
    }
    // A second one, as new: vacuuming keeps only the newest.
    CHECK(array::vacuum_fragment_metadata(root).removed.empty());
    fs::remove_all(root);
  }
}

TEST_CASE("commits consolidation: nothing before format 12; a vacuumed delete commit cannot be listed again") {
  const fs::path old = fs::temp_directory_path() / ("tilefmt-modes-old-" + std::to_string(::getpid()));
  fs::remove_all(old);
  array::create(old,
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int64_t>("x", 0, 9, 5)},
                                           .attributes = {format::make_attribute({.name = "v"})}}),
                {.format_version = 11});
  CHECK_THROWS_AS(array::consolidate_commits(old), std::invalid_argument);
  fs::remove_all(old);

  // TileDB fails here too: the .con names the delete commit vacuumed.
  const fs::path root = testing::copy_to_temp(data / "commits_delete" / "4", "modes-del");
  CHECK_THROWS_AS(array::consolidate_commits(root), storage::io_error);
  fs::remove_all(root);
}

TEST_CASE("a damaged .con file: a typed error naming it; lines naming other paths are not removed") {
  const fs::path root = testing::copy_to_temp(data / "commits_delete" / "4", "modes-bad-con");
  fs::path con;
  for (const auto& e : fs::directory_iterator(root / "__commits"))
    if (e.path().extension() == ".con" && e.path().filename().string().starts_with("__1000_4000")) con = e.path();
  REQUIRE(!con.empty());
  const auto bytes = storage::local{}.read(con);
  // Cut inside the delete commit's embedded bytes.
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::size_t del = text.find(".del\n");
  REQUIRE(del != std::string::npos);
  storage::local{}.write(con, std::span<const std::byte>(bytes).first(del + 5 + 8 + 4));
  try {
    (void)array::open(root);
    FAIL("a truncated .con file was accepted");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()).find(con.filename().string()) != std::string::npos);
  }
  // A line outside __commits/ names nothing vacuum_commits may remove.
  const std::string evil = "__commits/../../victim\n";
  storage::local{}.write(con, std::as_bytes(std::span<const char>(evil.data(), evil.size())));
  CHECK_THROWS(array::vacuum_commits(root));
  fs::remove_all(root);
}

TEST_CASE("step selection: the longest run, the smallest of them unless only slightly, sizes within the ratio") {
  using array::detail::step_fragment;
  auto frags = [](std::vector<std::uint64_t> sizes) {
    std::vector<step_fragment> out;
    for (auto s : sizes) out.push_back({"f", s, {}, {}});
    return out;
  };
  const array::detail::step_limits all{UINT32_MAX, UINT32_MAX, 0.0f, 1.0f};
  CHECK(array::detail::next_to_consolidate(frags({5, 6, 7}), {}, false, all) == std::pair<std::size_t, std::size_t>{0, 2});
  const array::detail::step_limits two_three{2, 3, 0.0f, 1.0f};
  // Equal sizes: the earliest run of three.
  CHECK(array::detail::next_to_consolidate(frags({10, 10, 10, 10, 10}), {}, false, two_three) ==
        std::pair<std::size_t, std::size_t>{0, 2});
  // A later run more than 25% smaller wins; one only slightly smaller does not.
  CHECK(array::detail::next_to_consolidate(frags({100, 10, 10, 10, 10}), {}, false, two_three) ==
        std::pair<std::size_t, std::size_t>{1, 3});
  CHECK(array::detail::next_to_consolidate(frags({12, 10, 10, 10, 10}), {}, false, two_three) ==
        std::pair<std::size_t, std::size_t>{0, 2});
  // Neighbours whose sizes differ more than the ratio allows break runs.
  const array::detail::step_limits ratio{2, 3, 0.5f, 1.0f};
  CHECK(array::detail::next_to_consolidate(frags({100, 10, 100, 100}), {}, false, ratio) ==
        std::pair<std::size_t, std::size_t>{2, 3});
  CHECK_FALSE(array::detail::next_to_consolidate(frags({100, 10, 100}), {}, false, ratio));
  // Dense: a union overlapping an earlier fragment is not consolidatable.
  auto dense = [](std::vector<std::pair<std::int64_t, std::int64_t>> rows, std::vector<std::uint64_t> sizes) {
    std::vector<step_fragment> out;
    for (std::size_t i = 0; i < rows.size(); ++i) out.push_back({"f", sizes[i], {rows[i]}, {rows[i]}});
    return out;
  };
  const array::detail::step_limits pairs{2, 2, 0.5f, 1.0f};
  CHECK(array::detail::next_to_consolidate(dense({{9, 12}, {1, 4}, {5, 8}}, {100, 10, 10}), {}, true, pairs) ==
        std::pair<std::size_t, std::size_t>{1, 2});
  CHECK_FALSE(array::detail::next_to_consolidate(dense({{1, 4}, {1, 4}, {5, 8}}, {100, 10, 10}), {}, true, pairs));
  // Nor one holding more cells than the amplification allows.
  CHECK_FALSE(array::detail::next_to_consolidate(dense({{1, 4}, {9, 12}}, {10, 10}), {}, true, pairs));
  CHECK(array::detail::next_to_consolidate(dense({{1, 4}, {9, 12}}, {10, 10}), {}, true, {2, 2, 0.5f, 1.5f}) ==
        std::pair<std::size_t, std::size_t>{0, 1});
  // ... nor one overlapping what was written before the time range.
  CHECK_FALSE(array::detail::next_to_consolidate(dense({{1, 4}, {5, 8}}, {10, 10}), {{5, 5}}, true, two_three));

  array::consolidation_options bad;
  bad.step_min_frags = 3;
  bad.step_max_frags = 2;
  CHECK_THROWS_AS(array::consolidate_fragments(data / "steps_sparse" / "0", bad), std::invalid_argument);
  bad = {};
  bad.step_size_ratio = 1.5f;
  CHECK_THROWS_AS(array::consolidate_fragments(data / "steps_sparse" / "0", bad), std::invalid_argument);
}

} // namespace test_consolidate_modes
