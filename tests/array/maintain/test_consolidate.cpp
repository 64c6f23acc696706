// Consolidation and vacuum: the consolidated fragments, vacuum files and
// consolidated metadata are byte for byte those TileDB-Py 0.36.1 wrote for
// the same fragments (tests/data/time_travel/consolidated_dense,
// tests/data/consolidation), reads are the same before and after at every
// timestamp, a consolidation stopped after any of its file operations
// leaves the array reading as before, and vacuum removes what TileDB's
// vacuum removes.
#include "tilefmt/array/maintain/consolidate.hpp"

#include <unistd.h>

#include <filesystem>
#include <thread>
#include <numeric>
#include <mutex>
#include <atomic>
#include <set>
#include <stdexcept>

#include "../../support/forwarding_backend.hpp"
#include "../../support/result_rows.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/maintain/schema_evolution.hpp"
#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/storage/local.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_consolidate {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

const fs::path data = fs::path(TILEFMT_TEST_DATA);

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-consolidate-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

/// Every cell a read at [0, end] returns (unordered for sparse arrays), sorted.
std::vector<std::string> cells_at(const fs::path& root, std::uint64_t end = std::numeric_limits<std::uint64_t>::max()) {
  array::open_options o;
  o.timestamp_end = end;
  const auto arr = array::open(root, o);
  const auto layout = arr.schema().is_sparse() ? array::query_layout::unordered : array::query_layout::row_major;
  auto r = testing::rows(arr.query().layout(layout).read());
  std::sort(r.begin(), r.end());
  return r;
}

/// The timestamps worth reading an array at: each fragment's end, each
/// delete commit's time and the moment before it, and the end of time.
std::vector<std::uint64_t> read_times(const fs::path& root) {
  std::vector<std::uint64_t> out;
  const auto l = array::list_array(root);
  for (const auto& f : l.fragments) out.push_back(f.t2());
  for (const auto& d : l.delete_commits) out.insert(out.end(), {d.t1() - 1, d.t1()});
  out.push_back(std::numeric_limits<std::uint64_t>::max());
  return out;
}

/// The files under `root`, relative, with their bytes.
std::map<std::string, std::vector<std::byte>> files_of(const fs::path& root) {
  std::map<std::string, std::vector<std::byte>> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[fs::relative(e.path(), root).generic_string()] = storage::local{}.read(e.path());
  return out;
}

/// A copy of a TileDB array consolidated but not vacuumed, without what the
/// consolidation wrote: the fragment (or metadata file) named by the one
/// vacuum file in `dir`, its commit and the vacuum file. Returns the name.
std::string undo_consolidation(const fs::path& root, const fs::path& dir) {
  fs::path vac;
  for (const auto& e : fs::directory_iterator(root / dir))
    if (e.path().extension() == ".vac") vac = e.path();
  REQUIRE(!vac.empty());
  const std::string name = vac.stem().string();
  fs::remove(vac);
  fs::remove_all(root / "__fragments" / name);
  fs::remove(root / "__commits" / (name + ".wrt"));
  fs::remove(root / "__meta" / name);
  return name;
}

/// A storage backend that fails every change after the first `allowed`:
/// a process stopped at that point.
struct stops_after : testing::forwarding_backend<storage::local> {
  explicit stops_after(std::size_t n) : allowed(n) {}
  std::size_t allowed, done = 0;
  void on_change(change, const fs::path&) override {
    if (done == allowed) throw std::runtime_error("stopped");
    ++done;
  }
};

format::ArraySchema dense_schema(std::int32_t hi, std::int32_t extent) {
  return format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("r", 1, hi, extent),
                      format::make_dimension<std::int32_t>("c", 1, 6, 3)},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32}),
                      format::make_attribute({.name = "s",
                                              .type = format::Datatype::STRING_UTF8,
                                              .cell_val_num = format::var_num,
                                              .nullable = true})}});
}

/// A dense fragment over `box` (rows x the whole 6 columns), values from `seed`.
void write_dense(const fs::path& root, std::pair<std::int32_t, std::int32_t> rows, int seed, std::uint64_t t) {
  array::dense_writer f(root, {{rows.first, rows.second}, {1, 6}});
  std::vector<std::int32_t> a;
  std::vector<std::string> s;
  std::vector<std::uint8_t> valid;
  for (std::uint64_t i = 0; i < f.cell_num(); ++i) {
    a.push_back(seed * 1000 + static_cast<std::int32_t>(i));
    s.push_back(std::string(static_cast<std::size_t>(i % 4), static_cast<char>('a' + seed)));
    valid.push_back(i % 5 != 0);
  }
  f.set("a", a).set_var("s", s, valid);
  f.commit({.timestamp = t});
}

format::ArraySchema sparse_schema(bool dups) {
  return format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("x", 0, 99, 10)},
       .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::FLOAT64}),
                      format::make_attribute(
                          {.name = "s", .type = format::Datatype::STRING_ASCII, .cell_val_num = format::var_num})},
       .capacity = 4,
       .allows_dups = dups});
}

void write_sparse(const fs::path& root, std::vector<std::int64_t> xs, int seed, std::uint64_t t) {
  array::sparse_writer f(root);
  std::vector<double> v;
  std::vector<std::string> s;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    v.push_back(seed + 0.25 * static_cast<double>(i));
    s.push_back(std::string(i % 3 + 1, static_cast<char>('k' + seed)));
  }
  f.set_coords("x", xs).set("v", v).set_var("s", s);
  f.commit({.timestamp = t});
}

} // namespace

TEST_CASE("consolidation writes the fragment, commit and vacuum file TileDB wrote, byte for byte") {
  for (const auto& original : {data / "time_travel" / "consolidated_dense" / "array",
                               data / "consolidation" / "consolidated_dense_few_tiles" / "array",
                               data / "consolidation" / "consolidated_sparse" / "array",
                               data / "consolidation" / "consolidated_sparse_overwrites" / "array",
                               data / "consolidation" / "consolidated_sparse_deletes" / "array"}) {
    CAPTURE(original.string());
    const fs::path root = testing::copy_to_temp(original, "twin");
    const std::string name = undo_consolidation(root, "__commits");
    const auto n = format::parse_timestamped_name(name);
    array::consolidation_options o;
    o.label = n.uuid;
    o.amplification = 10000;  // as the corpus generator consolidates
    const auto c = array::consolidate_fragments(root, o);
    CHECK(c.name == name);
    CHECK(c.replaced.size() == (original.string().find("deletes") != std::string::npos ? 2 : 3));
    CHECK(files_of(root) == files_of(original));
    fs::remove_all(root);
  }
}

TEST_CASE("metadata consolidation writes the file and vacuum file TileDB wrote; vacuum removes the originals") {
  const fs::path original = data / "consolidation" / "metadata_consolidated" / "array";
  const fs::path root = testing::copy_to_temp(original, "meta-twin");
  const std::string name = undo_consolidation(root, "__meta");
  const auto before = array::open(root).metadata().to_text();
  array::consolidation_options o;
  o.label = format::parse_timestamped_name(name).uuid;
  const auto c = array::consolidate_metadata(root, o);
  CHECK(c.name == name);
  CHECK(c.replaced.size() == 3);
  CHECK(files_of(root) == files_of(original));
  const auto v = array::vacuum_metadata(root);
  CHECK(v.removed.size() == 4);  // three files and the vacuum file
  const auto l = array::list_array(root);
  REQUIRE(l.metadata.size() == 1);
  CHECK(l.metadata[0].path.filename() == name);
  CHECK(array::open(root).metadata().to_text() == before);
  // One file left: nothing more to consolidate.
  CHECK(array::consolidate_metadata(root).name.empty());
  fs::remove_all(root);
}

TEST_CASE("reads are the same at every timestamp after consolidation and after vacuum") {
  for (const auto& original : {data / "time_travel" / "consolidated_dense" / "array",
                               data / "consolidation" / "consolidated_dense_few_tiles" / "array",
                               data / "consolidation" / "consolidated_sparse" / "array",
                               data / "consolidation" / "consolidated_sparse_overwrites" / "array",
                               data / "consolidation" / "consolidated_sparse_deletes" / "array"}) {
    CAPTURE(original.string());
    const fs::path root = testing::copy_to_temp(original, "reads");
    undo_consolidation(root, "__commits");
    const auto times = read_times(root);
    std::vector<std::vector<std::string>> before;
    for (auto t : times) before.push_back(cells_at(root, t));
    const auto c = array::consolidate_fragments(root, {.amplification = 10000});
    REQUIRE(!c.name.empty());
    for (std::size_t i = 0; i < times.size(); ++i) CHECK(cells_at(root, times[i]) == before[i]);
    const bool sparse = array::open(root).schema().is_sparse();
    const auto v = array::vacuum_fragments(root);
    CHECK(v.removed.size() == c.replaced.size() * 2 + 1);  // commit and folder of each, the vacuum file
    REQUIRE(array::list_array(root).fragments.size() == 1);
    CHECK(cells_at(root) == before.back());
    // Sparse fragments keep each cell's timestamp: earlier reads keep their
    // answers after vacuuming too. (A dense one is all or nothing.)
    if (sparse)
      for (std::size_t i = 0; i < times.size(); ++i) CHECK(cells_at(root, times[i]) == before[i]);
    fs::remove_all(root);
  }
}

TEST_CASE("dense consolidation: whole tiles past the domain, fill values, and the amplification limit") {
  const fs::path root = scratch("dense");
  array::create(root, dense_schema(10, 4), {.timestamp = 1700000000000});  // tiles 1-4, 5-8, 9-12
  write_dense(root, {2, 3}, 1, 1700000000010);
  write_dense(root, {3, 9}, 2, 1700000000020);
  write_dense(root, {10, 10}, 3, 1700000000030);
  const auto before = cells_at(root);
  // The union (rows 2-10) is 54 cells; the fragments' tiles hold 24 + 72 + 24.
  auto c = array::consolidate_fragments(root, {.amplification = 0.4});
  CHECK(c.name.empty());
  CHECK(!fs::exists(root / "__commits" / (c.name + ".vac")));
  c = array::consolidate_fragments(root);
  REQUIRE(!c.name.empty());
  CHECK(c.name.starts_with("__1700000000010_1700000000030_"));
  CHECK(c.replaced.size() == 3);
  CHECK(cells_at(root) == before);
  const auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 1);
  const auto& f = arr.fragments()[0];
  CHECK(f.tile_num() == 3 * 2);
  CHECK(f.non_empty_domain().ranges[0].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{2, 10});
  // Row 1 was never written: fill values, as a read of the originals gave.
  const auto r = arr.query().subarray({{1, 1}, {1, 6}}).read();
  for (auto v : r.get<std::int32_t>("a")) CHECK(v == std::numeric_limits<std::int32_t>::min());
  // Vacuuming twice: the second finds nothing.
  CHECK(array::vacuum_fragments(root).removed.size() == 7);
  CHECK(array::vacuum_fragments(root).removed.empty());
  CHECK(cells_at(root) == before);
  fs::remove_all(root);
}

TEST_CASE("sparse consolidation keeps every version of a cell, newest first, with its timestamp") {
  for (bool dups : {false, true}) {
    CAPTURE(dups);
    const fs::path root = scratch("sparse");
    array::create(root, sparse_schema(dups), {.timestamp = 1700000000000});
    write_sparse(root, {5, 1, 50, 99, 7}, 1, 1700000000010);
    write_sparse(root, {5, 50, 0}, 2, 1700000000020);
    write_sparse(root, {1, 5, 98}, 3, 1700000000030);
    const auto times = read_times(root);
    std::vector<std::vector<std::string>> before;
    for (auto t : times) before.push_back(cells_at(root, t));
    const auto c = array::consolidate_fragments(root);
    REQUIRE(!c.name.empty());
    array::vacuum_fragments(root);
    const auto arr = array::open(root);
    REQUIRE(arr.fragments().size() == 1);
    const auto& f = arr.fragments()[0];
    REQUIRE(f.has_timestamps());
    CHECK(f.cell_num() == 11);
    const auto x = f.read<std::int64_t>("x");
    const auto t = f.read_timestamps();
    // x = 5 three times, newest first.
    std::vector<std::uint64_t> fives;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i] == 5) fives.push_back(t[i]);
    CHECK(fives == std::vector<std::uint64_t>{1700000000030, 1700000000020, 1700000000010});
    for (std::size_t i = 0; i < times.size(); ++i) CHECK(cells_at(root, times[i]) == before[i]);
    fs::remove_all(root);
  }
}

TEST_CASE("older formats: sparse before 15 keeps the cells a read sees; fragments before 12 live in the array folder") {
  SUBCASE("sparse, format 13") {
    const fs::path root = scratch("v13");
    array::create(root, sparse_schema(false), {.timestamp = 1700000000000, .format_version = 13});
    write_sparse(root, {5, 1, 50}, 1, 1700000000010);
    write_sparse(root, {5, 2}, 2, 1700000000020);
    const auto before = cells_at(root);
    const auto c = array::consolidate_fragments(root);
    REQUIRE(!c.name.empty());
    CHECK(c.vacuum_file == root / "__commits" / (c.name + ".vac"));
    // Before format 19 the vacuum file names fragments by full URI.
    const auto vac = storage::local{}.read(c.vacuum_file);
    CHECK(std::string(reinterpret_cast<const char*>(vac.data()), vac.size()).starts_with("file://"));
    array::vacuum_fragments(root);
    const auto arr = array::open(root);
    REQUIRE(arr.fragments().size() == 1);
    CHECK(!arr.fragments()[0].has_timestamps());
    CHECK(arr.fragments()[0].cell_num() == 4);  // x = 5 once: the newest
    CHECK(cells_at(root) == before);
    fs::remove_all(root);
  }
  SUBCASE("dense, format 11") {
    const fs::path root = scratch("v11");
    array::create(root, dense_schema(8, 4), {.timestamp = 1700000000000, .format_version = 11});
    write_dense(root, {1, 4}, 1, 1700000000010);
    write_dense(root, {3, 8}, 2, 1700000000020);
    const auto before = cells_at(root);
    const auto c = array::consolidate_fragments(root);
    REQUIRE(!c.name.empty());
    CHECK(c.vacuum_file == root / (c.name + ".vac"));
    CHECK(fs::is_regular_file(root / (c.name + ".ok")));
    CHECK(cells_at(root) == before);
    const auto v = array::vacuum_fragments(root);
    CHECK(v.removed.size() == 5);
    CHECK(array::list_array(root).fragments.size() == 1);
    CHECK(cells_at(root) == before);
    fs::remove_all(root);
  }
}

TEST_CASE("what consolidation leaves alone: one fragment, fragments outside the time range") {
  const fs::path root = scratch("limits");
  array::create(root, sparse_schema(false), {.timestamp = 1700000000000});
  write_sparse(root, {1, 2}, 1, 1700000000010);
  CHECK(array::consolidate_fragments(root).name.empty());
  write_sparse(root, {3}, 2, 1700000000020);
  write_sparse(root, {4}, 3, 1700000000030);
  // Only the fragments written within the range.
  const auto c = array::consolidate_fragments(root, {.timestamp_start = 1700000000015});
  CHECK(c.replaced.size() == 2);
  CHECK(c.name.starts_with("__1700000000020_1700000000030_"));
  array::vacuum_fragments(root);
  CHECK(array::list_array(root).fragments.size() == 2);
  fs::remove_all(root);
}

TEST_CASE("deleted cells stay with their delete time and commit, or are purged") {
  for (bool purge : {false, true}) {
    CAPTURE(purge);
    const fs::path root = scratch("deletes");
    array::create(root, sparse_schema(false), {.timestamp = 1700000000000});
    write_sparse(root, {1, 2, 3, 4}, 1, 1700000000010);  // v = 1, 1.25, 1.5, 1.75
    array::delete_cells(root, array::condition(array::field("v") < 1.3), {.timestamp = 1700000000015});
    write_sparse(root, {2, 5}, 2, 1700000000020);  // v = 2, 2.25
    array::delete_cells(root, array::condition(array::field("v") > 2.1), {.timestamp = 1700000000025});
    const auto times = read_times(root);
    std::vector<std::vector<std::string>> before;
    for (auto t : times) before.push_back(cells_at(root, t));
    array::consolidation_options o;
    o.purge_deleted_cells = purge;
    REQUIRE(!array::consolidate_fragments(root, o).name.empty());
    array::vacuum_fragments(root);
    const auto arr = array::open(root);
    REQUIRE(arr.fragments().size() == 1);
    const auto& f = arr.fragments()[0];
    CHECK(f.processed_conditions().size() == 2);
    CHECK(f.has_delete_meta() == !purge);
    if (!purge) {
      // Every cell stays; x = 1 and x = 2 (first write) by the first commit, x = 5 by the second.
      CHECK(f.cell_num() == 6);
      const auto x = f.read<std::int64_t>("x");
      const auto at = f.read_delete_timestamps();
      const auto by = f.read_delete_condition_index();
      std::vector<std::string> got;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (at[i] != std::numeric_limits<std::uint64_t>::max())
          got.push_back(std::to_string(x[i]) + "@" + std::to_string(at[i] - 1700000000000) + "#" + std::to_string(by[i]));
      CHECK(got == std::vector<std::string>{"1@15#0", "2@15#0", "5@25#1"});
      // Reads at every time see what they saw.
      for (std::size_t i = 0; i < times.size(); ++i) CHECK(cells_at(root, times[i]) == before[i]);
    } else {
      CHECK(f.cell_num() == 3);  // x = 3 and 4 of the first write, x = 2 of the second
      CHECK(cells_at(root) == before.back());
    }
    fs::remove_all(root);
  }
}

TEST_CASE("a consolidation or vacuum stopped after any of its file operations leaves the array reading as before") {
  const fs::path original = scratch("stop-original");
  array::create(original, sparse_schema(false), {.timestamp = 1700000000000});
  write_sparse(original, {5, 1, 50, 99}, 1, 1700000000010);
  write_sparse(original, {5, 50, 0}, 2, 1700000000020);
  const auto dense_original = scratch("stop-dense-original");
  array::create(dense_original, dense_schema(8, 4), {.timestamp = 1700000000000});
  write_dense(dense_original, {1, 5}, 1, 1700000000010);
  write_dense(dense_original, {4, 8}, 2, 1700000000020);
  for (const auto& src : {original, dense_original}) {
    CAPTURE(src.string());
    const auto times = read_times(src);
    std::vector<std::vector<std::string>> before;
    for (auto t : times) before.push_back(cells_at(src, t));
    bool finished = false;
    for (std::size_t n = 0; !finished; ++n) {
      CAPTURE(n);
      REQUIRE(n < 100);
      const fs::path root = scratch("stop");
      fs::copy(src, root, fs::copy_options::recursive);
      try {
        array::consolidate_fragments(root, {.storage = std::make_shared<stops_after>(n)});
        finished = true;
      } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "stopped");
      }
      for (std::size_t i = 0; i < times.size(); ++i) CHECK(cells_at(root, times[i]) == before[i]);
      // Consolidating again completes what was stopped.
      array::consolidate_fragments(root);
      CHECK(cells_at(root) == before.back());
      fs::remove_all(root);
    }
    // The vacuum, stopped likewise, then run again.
    const fs::path consolidated = scratch("stop-consolidated");
    fs::copy(src, consolidated, fs::copy_options::recursive);
    array::consolidate_fragments(consolidated);
    finished = false;
    for (std::size_t n = 0; !finished; ++n) {
      CAPTURE(n);
      REQUIRE(n < 100);
      const fs::path root = scratch("stop");
      fs::copy(consolidated, root, fs::copy_options::recursive);
      try {
        array::vacuum_fragments(root, std::make_shared<stops_after>(n));
        finished = true;
      } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "stopped");
      }
      CHECK(cells_at(root) == before.back());
      array::vacuum_fragments(root);
      CHECK(array::list_array(root).fragments.size() == 1);
      CHECK(cells_at(root) == before.back());
      fs::remove_all(root);
    }
    fs::remove_all(consolidated);
  }
  fs::remove_all(original);
  fs::remove_all(dense_original);
}

TEST_CASE("consolidating a range before a schema evolution: the latest schema, the added attribute filled") {
  for (bool sparse : {false, true}) {
    CAPTURE(sparse);
    const fs::path root = scratch("evolved");
    if (sparse) {
      array::create(root, sparse_schema(false), {.timestamp = 1700000000000});
      write_sparse(root, {1, 2}, 1, 1700000000010);
      write_sparse(root, {2, 3}, 2, 1700000000020);
    } else {
      array::create(root, dense_schema(8, 4), {.timestamp = 1700000000000});
      write_dense(root, {1, 4}, 1, 1700000000010);
      write_dense(root, {3, 8}, 2, 1700000000020);
    }
    array::schema_evolution()
        .add_attribute(format::make_attribute({.name = "q", .type = format::Datatype::UINT16}))
        .evolve(root, {.timestamp = 1700000000030});
    const auto before = cells_at(root);
    const auto c = array::consolidate_fragments(root, {.timestamp_end = 1700000000025});
    REQUIRE(!c.name.empty());
    array::vacuum_fragments(root);
    const auto arr = array::open(root);
    REQUIRE(arr.fragments().size() == 1);
    CHECK(arr.fragments()[0].schema().attribute("q") != nullptr);
    CHECK(cells_at(root) == before);
    fs::remove_all(root);
  }
}

TEST_CASE("readers beside a writer and a consolidate + vacuum loop: opens never fail, values are whole and right") {
  // Every fragment writes the same 16 cells with its own timestamp as the
  // value, so a read is right when it holds all 16 cells, each of one
  // value: that of the newest fragment its open saw. A vacuum can remove
  // files between a reader's listing and its reading them: the open lists
  // again (array_reader). A query of an array opened before a vacuum
  // removed its fragments fails as in TileDB, naming the file gone.
  auto st = std::make_shared<storage::memory>();
  array::create("/a",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("d", 1, 16, 4)},
                                           .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::INT64})}}),
                {.storage = st});
  auto write = [&](std::int64_t t) {
    std::vector<std::int32_t> d(16);
    std::iota(d.begin(), d.end(), 1);
    array::sparse_writer w("/a", st);
    w.set_coords("d", d).set("v", std::vector<std::int64_t>(16, t)).commit({.timestamp = static_cast<std::uint64_t>(t)});
  };
  write(1);
  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, wrong{0}, vacuumed_under_query{0};
  std::mutex errors_m;
  std::vector<std::string> errors;
  std::thread maintainer([&] {
    for (std::int64_t t = 2; t <= 31; ++t) {
      write(t);
      if (t % 3 == 0) {
        array::consolidate_fragments("/a", {.storage = st});
        array::vacuum_fragments("/a", st);
      }
    }
    done = true;
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&] {
      while (!done) {
        try {
          const auto arr = array::open("/a", {.threads = 1, .storage = st});
          try {
            const auto got = arr.query().read();
            const auto v = got.get<std::int64_t>("v");
            if (got.cell_num() != 16 || std::count(v.begin(), v.end(), v[0]) != 16) ++wrong;
            ++reads;
          } catch (const format_error& e) {  // a tile's file, named
            if (e.file().empty() || st->is_file(e.file())) throw;
            ++vacuumed_under_query;
          }
        } catch (const std::exception& e) {
          std::lock_guard lock(errors_m);
          errors.push_back(e.what());
        }
      }
    });
  maintainer.join();
  for (auto& t : readers) t.join();
  CAPTURE(errors.size());
  if (!errors.empty()) MESSAGE(errors.front());
  CHECK(errors.empty());
  CHECK(wrong == 0);
  CHECK(reads > 0);
  MESSAGE("reads: " << reads.load() << ", queries whose files a vacuum removed after the open: " << vacuumed_under_query.load());
}

} // namespace test_consolidate
