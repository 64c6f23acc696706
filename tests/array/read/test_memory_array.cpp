// The array layer on another backend: every test array copied into memory
// reads exactly as it does from disk, and an array written into memory reads
// back and can be copied out to disk.
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write.hpp"

#include <array>
#include <atomic>
#include <filesystem>
#include <optional>

#include "../../support/all_tiles.hpp"
#include "../../support/forwarding_backend.hpp"
#include "../../support/result_rows.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/storage/copy.hpp"
#include "tilefmt/storage/memory.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/zstd.hpp"

namespace test_memory_array {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

/// Memory that prefers merged reads, as an object store does (or not,
/// when `merge` is false), and counts the reads of data files.
class merging_memory final : public testing::forwarding_backend<storage::memory> {
public:
  explicit merging_memory(bool m) : merge(m) {}
  bool merge;
  mutable std::atomic<int> data_reads{0};

private:
  void on_read(const fs::path& p) const override {
    if (p.extension() == ".tdb" && p.filename() != "__fragment_metadata.tdb") ++data_reads;
  }
  bool do_prefers_merged_reads() const override { return merge; }
};

} // namespace

TEST_CASE("every test array reads the same from memory as from disk") {
  std::size_t arrays = 0;
  for (const char* set : {"tiledb", "time_travel"})
    for (const auto& e : fs::directory_iterator(data / set)) {
      if (!fs::is_directory(e.path() / "array")) continue;
      CAPTURE(e.path());
      auto st = std::make_shared<storage::memory>();
      storage::copy_tree(storage::local{}, e.path() / "array", *st, "mem/array");
      const auto key = testing::test_array_key(e.path());
      auto from_disk = array::open(e.path() / "array", {.encryption_key = key});
      auto from_memory = array::open("mem/array", {.encryption_key = key, .storage = st});
      CHECK(from_memory.fragments().size() == from_disk.fragments().size());
      CHECK(from_memory.metadata().entries() == from_disk.metadata().entries());
      CHECK(testing::all_tiles(from_memory) == testing::all_tiles(from_disk));
      // And a whole-array query where tiles are fetched in merged runs.
      auto merging = std::make_shared<merging_memory>(true);
      storage::copy_tree(storage::local{}, e.path() / "array", *merging, "mem/array");
      auto merged = array::open("mem/array", {.encryption_key = key, .storage = merging});
      auto outcome = [](const array::array_reader& arr) {
        try {
          return testing::rows(arr.query().read());
        } catch (const std::exception& x) {  // a filter this build lacks: the same error from both
          return std::vector<std::string>{std::string("error: ") + x.what()};
        }
      };
      CHECK(outcome(merged) == outcome(from_disk));
      ++arrays;
    }
  CHECK(arrays >= 10);
}

TEST_CASE("an array written into memory reads back, and copies out to disk") {
  auto st = std::make_shared<storage::memory>();
  using P = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  auto schema =
      format::make_array_schema({.type = format::ArrayType::DENSE,
                                 .dimensions = {format::make_dimension<std::int32_t>("x", 1, 100, 10)},
                                 .attributes = {format::make_attribute(
                                     {.name = "a", .type = format::Datatype::INT32, .filters = P::descriptor()})}});
  array::create("arrays/a", schema, {.storage = st});
  std::vector<std::int32_t> v(40);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * i);
  array::dense_writer f("arrays/a", {{11, 50}}, array::cell_layout::row_major, st);
  f.set<P>("a", v);
  f.commit();
  CHECK_FALSE(fs::exists("arrays/a")); // nothing reached the disk
  auto arr = array::open("arrays/a", {.storage = st});
  auto a = arr.fragments().at(0).read<std::int32_t>("a");
  CHECK(std::vector<std::int32_t>(a.begin(), a.end()) == v);

  const fs::path out = testing::copy_to_temp(data / "tiledb" / "dense_1d_int32" / "array", "memory-out");
  fs::remove_all(out);
  storage::local disk;
  storage::copy_tree(*st, "arrays/a", disk, out);
  auto back = array::open(out).fragments().at(0).read<std::int32_t>("a");
  CHECK(std::vector<std::int32_t>(back.begin(), back.end()) == v);
  fs::remove_all(out);
}


TEST_CASE("where the storage prefers it, a query reads each run of adjacent tiles with one request") {
  // 1000 cells in tiles of 10; a newer fragment over tiles 15 and 16. A
  // query of tiles 10-29 reads of the older fragment tiles 10-14 and 17-29
  // (two runs) of each of its files, of the newer one its two tiles.
  std::vector<int> reads;
  std::vector<std::vector<std::string>> results;
  std::vector<array::aggregate_value> sums;
  for (const bool merge : {true, false}) {
    auto st = std::make_shared<merging_memory>(merge);
    using Z = filter::pipeline<filter::zstd<1>>;
    array::create("/m",
                  format::make_array_schema(
                      {.type = format::ArrayType::DENSE,
                       .dimensions = {format::make_dimension<std::int64_t>("d", 0, 999, 10)},
                       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32,
                                                              .filters = Z::descriptor()}),
                                      format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                              .cell_val_num = format::var_num,
                                                              .nullable = true})}}),
                  {.storage = st});
    for (const auto& [lo, hi, t] : {std::tuple{0, 999, 1}, std::tuple{150, 169, 2}}) {
      array::dense_writer f("/m", {{lo, hi}}, array::cell_layout::row_major, st);
      std::vector<std::int32_t> a;
      std::vector<std::string> s;
      std::vector<std::uint8_t> valid;
      for (int c = lo; c <= hi; ++c) {
        a.push_back(c * 7 + t);
        s.push_back(std::string(static_cast<std::size_t>(c % 5), static_cast<char>('a' + t)));
        valid.push_back(c % 3 ? 1 : 0);
      }
      f.set("a", a).set_var("s", s, valid);
      f.commit({.timestamp = static_cast<std::uint64_t>(t)});
    }
    auto arr = array::open("/m", {.threads = 2, .storage = st});
    st->data_reads = 0;
    results.push_back(testing::rows(arr.query().subarray({{std::int64_t{100}, std::int64_t{299}}}).read()));
    reads.push_back(st->data_reads.load());
    // The same tiles for an aggregate (its own pass over them).
    sums.push_back(arr.query().subarray({{std::int64_t{100}, std::int64_t{299}}}).aggregate(array::aggregate_op::sum, "a"));
  }
  CHECK(results[0] == results[1]);
  CHECK(results[0].size() == 200);
  CHECK(sums[0] == sums[1]);
  CHECK(std::holds_alternative<std::int64_t>(sums[0]));
  // Merged: (2 runs of the older fragment + 1 of the newer) x 4 files (a;
  // s's offsets, values, validity). One by one: 20 tiles x 4.
  CHECK(reads[0] == 12);
  CHECK(reads[1] == 80);
}

TEST_CASE("where the storage prefers it, a whole-column read fetches adjacent tiles together, in bounded runs") {
  // 1000 cells in 20 tiles of 50: int64 `a` and var-size `s`.
  std::vector<std::int64_t> a;
  std::vector<std::string> s;
  for (int i = 0; i < 1000; ++i) a.push_back(i * 7), s.push_back(std::string(static_cast<std::size_t>(i % 5), 'x'));
  auto written = [&](bool merge) {
    auto st = std::make_shared<merging_memory>(merge);
    array::create("/c",
                  format::make_array_schema(
                      {.type = format::ArrayType::DENSE,
                       .dimensions = {format::make_dimension<std::int64_t>("d", 0, 999, 50)},
                       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT64}),
                                      format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                              .cell_val_num = format::var_num})}}),
                  {.storage = st});
    array::dense_writer f("/c", {{0, 999}}, array::cell_layout::row_major, st);
    f.set("a", a).set_var("s", s).commit({.timestamp = 1});
    return st;
  };
  for (const bool merge : {true, false}) {
    CAPTURE(merge);
    auto st = written(merge);
    const auto arr = array::open("/c", {.threads = 2, .storage = st});
    const auto& frag = arr.fragments().at(0);
    REQUIRE(frag.tile_num() == 20);
    st->data_reads = 0;
    const auto got = frag.read<std::int64_t>("a");
    CHECK(std::vector<std::int64_t>(got.begin(), got.end()) == a);
    CHECK(st->data_reads == (merge ? 1 : 20));
    st->data_reads = 0;
    const auto strings = frag.read_var<char>("s");
    CHECK(strings.offsets.size() == 1000);
    CHECK(strings.offsets[3] == 0 + 1 + 2);
    CHECK(st->data_reads == (merge ? 2 : 40));  // the offsets file and the var file
  }
  // With open_options::max_allocation below a's stored bytes (20 tiles of
  // 400 bytes and their headers) but not below its 8000 decoded ones, the
  // runs are cut to fit it: more reads than one, fewer than a tile each.
  auto st = written(true);
  const auto arr = array::open("/c", {.threads = 2, .max_allocation = 8100, .storage = st});
  st->data_reads = 0;
  const auto got = arr.fragments().at(0).read<std::int64_t>("a");
  CHECK(std::vector<std::int64_t>(got.begin(), got.end()) == a);
  CHECK(st->data_reads > 1);
  CHECK(st->data_reads < 20);
}

/// A sparse array of 300 cells in tiles of 10 (`dims` dimensions; cell i
/// at coordinates `coord(i)` in each), written once into a backend that
/// merges reads and once into one that does not, and queried over `box`:
/// the rows of each (which must be equal) and the reads of data files.
template <class Coord>
std::pair<std::vector<std::string>, std::array<int, 2>> sparse_merged_and_not(
    std::size_t dims, Coord&& coord, const std::vector<std::pair<std::int64_t, std::int64_t>>& box,
    std::optional<array::condition> where = std::nullopt) {
  std::vector<std::vector<std::string>> results;
  std::array<int, 2> reads{};
  for (const bool merge : {true, false}) {
    auto st = std::make_shared<merging_memory>(merge);
    std::vector<format::Dimension> dimensions;
    for (std::size_t d = 0; d < dims; ++d)
      dimensions.push_back(format::make_dimension<std::int64_t>(std::string(1, static_cast<char>('x' + d)), 0, 9999,
                                                                dims == 1 ? 100 : 10000));
    array::create("/s",
                  format::make_array_schema(
                      {.type = format::ArrayType::SPARSE,
                       .dimensions = dimensions,
                       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})},
                       .capacity = 10}),
                  {.storage = st});
    std::vector<std::int64_t> c;
    std::vector<std::int32_t> a;
    for (int i = 299; i >= 0; --i) c.push_back(coord(i)), a.push_back(i * 11);  // unordered input
    array::sparse_writer f("/s", st);
    for (std::size_t d = 0; d < dims; ++d) f.set_coords(std::string(1, static_cast<char>('x' + d)), c);
    f.set("a", a).commit({.timestamp = 1});
    auto arr = array::open("/s", {.threads = 2, .storage = st});
    st->data_reads = 0;
    auto q = arr.query().subarray(box);
    if (where) q.where(*where);
    results.push_back(testing::rows(q.read()));
    reads[merge ? 0 : 1] = st->data_reads.load();
  }
  CHECK(results[0] == results[1]);
  return {results[0], reads};
}

TEST_CASE("where the storage prefers it, a sparse query reads each run of adjacent tiles with one request") {
  // One dimension, coordinates 0, 2, 4, ...: [100, 299] holds tiles 5-14,
  // one read each of x and a when merged, ten each when not.
  const auto [rows, reads] = sparse_merged_and_not(1, [](int i) { return 2 * i; }, {{100, 299}});
  CHECK(rows.size() == 100);
  CHECK(reads == std::array<int, 2>{2, 20});
}

TEST_CASE("where the storage prefers it, a sparse query's condition reads its tiles with one request") {
  // As above, with a condition on a: its tiles (5-14) are read once, merged,
  // and kept for the result; a = 11 i < 1100 keeps cells 50-99.
  const auto [rows, reads] =
      sparse_merged_and_not(1, [](int i) { return 2 * i; }, {{100, 299}}, array::field("a") < std::int32_t{1100});
  CHECK(rows.size() == 50);
  CHECK(reads == std::array<int, 2>{2, 20});
}

TEST_CASE("where the storage prefers it, a two-dimensional sparse query merges coordinate and attribute reads") {
  // Cells (i, i): x in [100, 199] meets tiles 10-19 (one space tile, cells
  // in row-major order), one read each of x, y and a when merged.
  const auto [rows, reads] = sparse_merged_and_not(2, [](int i) { return i; }, {{100, 199}, {0, 9999}});
  CHECK(rows.size() == 100);
  CHECK(reads == std::array<int, 2>{3, 30});
}

} // namespace test_memory_array
