// The in-memory backend: the same contract as the local one, on paths
// normalised lexically.
#include "tilefmt/storage/memory.hpp"

#include <thread>

#include "../support/testing.hpp"

using namespace tilefmt;

TEST_CASE("memory: folders, files, ranges, listing") {
  storage::memory st;
  CHECK_THROWS_AS(st.write("arr/f", testing::text_bytes("x")), storage::io_error);  // no folder yet
  st.make_folder("arr/__schema");
  CHECK(st.is_folder("arr"));
  CHECK(st.is_folder("arr/__schema/"));
  CHECK(st.is_folder("./arr/x/../__schema"));
  st.write("arr/__schema/s", testing::text_bytes("schema"));
  st.write("arr/a.tdb", testing::text_bytes("0123456789"));
  CHECK(st.file_size("arr/a.tdb") == 10u);
  CHECK(st.read("arr/a.tdb") == testing::text_bytes("0123456789"));
  CHECK(st.read_range("arr/a.tdb", 2, 3) == testing::text_bytes("234"));
  CHECK_THROWS_AS(st.read_range("arr/a.tdb", 9, 2), storage::io_error);
  std::vector<std::byte> into(3);
  st.read_range_into("arr/a.tdb", 2, into);
  CHECK(into == testing::text_bytes("234"));
  CHECK_THROWS_AS(st.read_range_into("arr/a.tdb", 8, into), storage::io_error);
  CHECK_THROWS_AS(st.read("arr/a.tdb", 9), storage::io_error);
  CHECK_THROWS_AS(st.read("arr/__schema"), storage::io_error);  // a folder
  CHECK_THROWS_AS(st.read("arr/none"), storage::io_error);
  CHECK_THROWS_AS(st.make_folder("arr/a.tdb/x"), storage::io_error);
  CHECK_THROWS_AS(st.write("arr/__schema", testing::text_bytes("x")), storage::io_error);
  auto l = st.list("arr");
  REQUIRE(l.size() == 2);
  CHECK(l[0].name == "__schema");
  CHECK(l[0].folder);
  CHECK(l[1].name == "a.tdb");
  CHECK_FALSE(l[1].folder);
  CHECK(st.list("arr/__schema").size() == 1);
  CHECK(st.list("nothing").empty());
  // A sibling whose name extends a folder's is not inside it.
  st.make_folder("arr2");
  st.write("arr2/z", testing::text_bytes("z"));
  CHECK(st.list("arr").size() == 2);
  st.remove("arr");
  CHECK_FALSE(st.exists("arr"));
  CHECK_FALSE(st.exists("arr/a.tdb"));
  CHECK(st.is_file("arr2/z"));
}

TEST_CASE("memory: a file written in pieces appears at commit") {
  storage::memory st;
  st.make_folder("a");
  st.write("a/f", testing::text_bytes("old"));
  auto w = st.open_write("a/f");
  w->append(testing::text_bytes("new "));
  w->append(testing::text_bytes("bytes"));
  CHECK(st.read("a/f") == testing::text_bytes("old"));
  w->commit();
  CHECK(st.read("a/f") == testing::text_bytes("new bytes"));
  {
    auto dropped = st.open_write("a/g");
    dropped->append(testing::text_bytes("x"));
  }
  CHECK_FALSE(st.exists("a/g"));
  // The folder is checked when the file appears.
  auto orphan = st.open_write("b/f");
  CHECK_THROWS_AS(orphan->commit(), storage::io_error);
}

TEST_CASE("memory: absolute paths and the root") {
  storage::memory st;
  st.make_folder("/data/x");
  st.write("/data/x/f", testing::text_bytes("f"));
  CHECK(st.list("/").size() == 1);
  CHECK(st.list("/data").size() == 1);
  CHECK(st.read("/data/x/f") == testing::text_bytes("f"));
  CHECK(st.files().size() == 1);
}

TEST_CASE("memory: readers and a writer on several threads") {
  storage::memory st;
  st.make_folder("d");
  for (int i = 0; i < 16; ++i) st.write("d/f" + std::to_string(i), std::vector<std::byte>(100, std::byte{1}));
  std::vector<std::thread> pool;
  std::vector<int> ok(3, 1);
  pool.emplace_back([&] {
    for (int i = 16; i < 200; ++i) st.write("d/f" + std::to_string(i), std::vector<std::byte>(100, std::byte{2}));
  });
  for (int w = 0; w < 3; ++w)
    pool.emplace_back([&, w] {
      for (int round = 0; round < 200; ++round) {
        if (st.read("d/f" + std::to_string(round % 16)).size() != 100) ok[static_cast<std::size_t>(w)] = 0;
        if (st.list("d").size() < 16) ok[static_cast<std::size_t>(w)] = 0;
      }
    });
  for (auto& p : pool) p.join();
  CHECK(ok == std::vector<int>{1, 1, 1});
  CHECK(st.list("d").size() == 200);
}
