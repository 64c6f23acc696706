// What both fragment writers share: the files of a fragment and the order in
// which they reach storage (data files, fragment metadata, then the commit
// marker, so that a reader never sees a committed fragment with a file
// missing), and the checks on what set() is given.
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/array/write/fragment_builder.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "../../support/forwarding_backend.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_fragment_builder {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
/// A memory backend that records the order of writes.
class write_log final : public testing::forwarding_backend<storage::memory> {
public:
  std::vector<std::string> writes;

private:
  void on_change(change c, const fs::path& p) override {
    if (c == change::write) writes.push_back(p.filename().string());
  }
};
} // namespace

TEST_CASE("fragment_builder: data files, then fragment metadata, then the commit marker") {
  auto st = std::make_shared<write_log>();
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int32_t>("x", 0, 99, 10)},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32}),
                      format::make_attribute({.name = "s",
                                              .type = format::Datatype::STRING_ASCII,
                                              .cell_val_num = format::var_num,
                                              .nullable = true})},
       .capacity = 2});
  array::create("arr", schema, {.storage = st});
  st->writes.clear();
  array::sparse_writer f("arr", st);
  f.set_coords<std::int32_t>("x", std::vector<std::int32_t>{3, 1, 2});
  f.set("a", std::vector<std::int32_t>{30, 10, 20});
  f.set_var("s", std::vector<std::string>{"c", "", "bb"}, std::vector<std::uint8_t>{1, 0, 1});
  const std::string name = f.commit({.timestamp = 5, .label = "0123456789abcdef0123456789abcdef"});
  CHECK(name == "__5_5_0123456789abcdef0123456789abcdef_22");
  const std::vector<std::string> expected{"a0.tdb", "a1.tdb", "a1_var.tdb", "a1_validity.tdb", "d0.tdb",
                                          "__fragment_metadata.tdb", name + ".wrt"};
  CHECK(st->writes == expected);
  CHECK_THROWS_AS(f.commit(), std::logic_error);  // a fragment commits once
}

namespace {
/// An object store's latency: every write takes 20 ms; how many were under
/// way at once, and the order they ended in, are kept.
class slow_store final : public testing::forwarding_backend<storage::memory> {
public:
  std::atomic<int> now{0}, most{0};
  std::mutex m;
  std::vector<std::string> started, ended;

private:
  bool do_prefers_merged_reads() const override { return true; }
  void on_change(change c, const fs::path& p) override {
    if (c != change::write) return;
    {
      std::lock_guard lock(m);
      started.push_back(p.filename().string());
    }
    const int n = ++now;
    for (int seen = most; n > seen && !most.compare_exchange_weak(seen, n);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --now;
    std::lock_guard lock(m);
    ended.push_back(p.filename().string());
  }
};
} // namespace

TEST_CASE("fragment_builder: on an object store the files go up together, the commit marker alone and last") {
  auto st = std::make_shared<slow_store>();
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int32_t>("x", 0, 99, 10)},
       .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32}),
                      format::make_attribute({.name = "b", .type = format::Datatype::FLOAT64}),
                      format::make_attribute({.name = "s",
                                              .type = format::Datatype::STRING_ASCII,
                                              .cell_val_num = format::var_num,
                                              .nullable = true})}});
  array::create("arr", schema, {.storage = st});
  array::sparse_writer f("arr", st);
  f.set_coords<std::int32_t>("x", std::vector<std::int32_t>{3, 1, 2});
  f.set("a", std::vector<std::int32_t>{30, 10, 20});
  f.set("b", std::vector<double>{3, 1, 2});
  f.set_var("s", std::vector<std::string>{"c", "", "bb"}, std::vector<std::uint8_t>{1, 0, 1});
  st->started.clear();
  st->ended.clear();
  st->most = 0;
  const std::string name = f.commit({.timestamp = 5});
  // Six data files and the metadata under way together (each write waits
  // 20 ms, long enough for the others to start), then the marker.
  CHECK(st->most >= 4);
  REQUIRE(st->ended.size() == 8);
  CHECK(st->started.back() == name + ".wrt");
  CHECK(st->ended.back() == name + ".wrt");
  auto read = array::open("arr", {.storage = st});
  CHECK(read.query().read().cell_num() == 3);
  // One at a time when asked.
  array::sparse_writer g("arr", st);
  g.set_coords<std::int32_t>("x", std::vector<std::int32_t>{5});
  g.set("a", std::vector<std::int32_t>{50});
  g.set("b", std::vector<double>{5});
  g.set_var("s", std::vector<std::string>{"e"}, std::vector<std::uint8_t>{1});
  st->most = 0;
  g.commit({.timestamp = 6, .io_concurrency = 1});
  CHECK(st->most == 1);
}

TEST_CASE("fragment_builder: set() checks names, types, counts and validity") {
  auto st = std::make_shared<storage::memory>();
  array::create("arr",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int32_t>("x", 1, 4, 4)},
                     .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32}),
                                    format::make_attribute({.name = "n", .type = format::Datatype::INT8, .nullable = true})}}),
                {.storage = st});
  array::dense_writer f("arr", {{1, 4}}, array::cell_layout::row_major, st);
  CHECK_THROWS_AS(f.set("nope", std::vector<std::int32_t>(4)), std::invalid_argument);
  CHECK_THROWS_AS(f.set("a", std::vector<std::int64_t>(4)), std::invalid_argument);
  CHECK_THROWS_AS(f.set("a", std::vector<std::int32_t>(3)), std::invalid_argument);
  CHECK_THROWS_AS(f.set("n", std::vector<std::int8_t>(4)), std::invalid_argument);  // nullable: validity needed
  CHECK_THROWS_AS(f.set("a", std::vector<std::int32_t>(4), std::vector<std::uint8_t>(4, 1)), std::invalid_argument);
  CHECK_THROWS_AS(f.commit(), std::invalid_argument);  // every attribute must be set
  f.set("a", std::vector<std::int32_t>{1, 2, 3, 4});
  f.set("n", std::vector<std::int8_t>{1, 2, 3, 4}, std::vector<std::uint8_t>{1, 1, 0, 1});
  CHECK_NOTHROW(f.commit());
  CHECK(array::list_array(*st, "arr").fragments.size() == 1);
}

} // namespace test_fragment_builder
