// The local file system backend: whole and ranged reads, listings, atomic
// writes, and refusing what an array may not hold (FIFOs, links, folders,
// files larger than the caller allows).
#include "tilefmt/storage/local.hpp"

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "../support/testing.hpp"

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

struct temp_folder {
  fs::path path;
  explicit temp_folder(const std::string& name)
      : path(fs::temp_directory_path() / ("tilefmt-storage-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};


} // namespace

TEST_CASE("local: write, read, read a range, list, remove") {
  temp_folder t("basic");
  storage::local st;
  st.make_folder(t.path / "a" / "b");
  CHECK(st.is_folder(t.path / "a" / "b"));
  st.write(t.path / "a" / "f.tdb", testing::text_bytes("hello, world"));
  st.write(t.path / "a" / "e.tdb", {});
  CHECK(st.file_size(t.path / "a" / "f.tdb") == 12u);
  CHECK(st.file_size(t.path / "a" / "e.tdb") == 0u);
  CHECK_FALSE(st.file_size(t.path / "a" / "missing").has_value());
  CHECK_FALSE(st.file_size(t.path / "a" / "b").has_value());  // a folder is no file
  CHECK(st.read(t.path / "a" / "f.tdb") == testing::text_bytes("hello, world"));
  CHECK(st.read_range(t.path / "a" / "f.tdb", 7, 5) == testing::text_bytes("world"));
  CHECK(st.read_range(t.path / "a" / "f.tdb", 12, 0).empty());
  CHECK_THROWS_AS(st.read_range(t.path / "a" / "f.tdb", 8, 5), storage::io_error);
  CHECK_THROWS_AS(st.read_range(t.path / "a" / "f.tdb", ~std::uint64_t{0}, 2), storage::io_error);
  std::vector<std::byte> into(5, std::byte{0xee});  // read_range_into: the caller's buffer
  st.read_range_into(t.path / "a" / "f.tdb", 7, into);
  CHECK(into == testing::text_bytes("world"));
  CHECK_THROWS_AS(st.read_range_into(t.path / "a" / "f.tdb", 8, into), storage::io_error);
  // No temporary file is left behind by the atomic write.
  auto entries = st.list(t.path / "a");
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].name == "b");
  CHECK(entries[0].folder);
  CHECK(entries[1].name == "e.tdb");
  CHECK(entries[2].name == "f.tdb");
  CHECK_FALSE(entries[2].folder);
  CHECK(st.list(t.path / "missing").empty());
  st.write(t.path / "a" / "f.tdb", testing::text_bytes("replaced"));
  CHECK(st.read(t.path / "a" / "f.tdb") == testing::text_bytes("replaced"));
  st.remove(t.path / "a");
  CHECK_FALSE(st.exists(t.path / "a"));
  st.remove(t.path / "a");  // absent: nothing to do
}

TEST_CASE("local: a write that fails leaves no temporary file") {
  temp_folder t("failed-write");
  storage::local st;
  st.make_folder(t.path / "a" / "taken");
  st.write(t.path / "a" / "taken" / "f.tdb", testing::text_bytes("x"));
  // The rename cannot replace a folder: the write fails after its
  // temporary file was written, and removes it.
  CHECK_THROWS_AS(st.write(t.path / "a" / "taken", testing::text_bytes("data")), storage::io_error);
  CHECK_FALSE(fs::exists(t.path / "a" / "taken.tmp"));
  CHECK(st.read(t.path / "a" / "taken" / "f.tdb") == testing::text_bytes("x"));
  // No folder: nothing is created.
  CHECK_THROWS_AS(st.write(t.path / "missing" / "f.tdb", testing::text_bytes("data")), storage::io_error);
  CHECK_FALSE(fs::exists(t.path / "missing"));
}

TEST_CASE("local: a file written in pieces appears whole at commit, and not at all uncommitted") {
  temp_folder t("pieces");
  for (bool durable : {true, false}) {
    CAPTURE(durable);
    storage::local st = durable ? storage::local{} : storage::local{storage::local::not_durable};
    const fs::path p = t.path / "f.tdb";
    st.write(p, testing::text_bytes("old"));
    auto w = st.open_write(p);
    w->append(testing::text_bytes("first "));
    // Each piece is in the temporary file already; the name keeps the old file.
    CHECK(fs::file_size(t.path / "f.tdb.tmp") == 6);
    CHECK(st.read(p) == testing::text_bytes("old"));
    w->append(testing::text_bytes(""));
    w->append(testing::text_bytes("second"));
    CHECK(w->size() == 12);
    w->commit();
    CHECK(st.read(p) == testing::text_bytes("first second"));
    CHECK_FALSE(fs::exists(t.path / "f.tdb.tmp"));
    CHECK_THROWS_AS(w->append(testing::text_bytes("late")), std::logic_error);
    CHECK_THROWS_AS(w->commit(), std::logic_error);
    {
      auto dropped = st.open_write(p);
      dropped->append(testing::text_bytes("never"));
    }
    CHECK(st.read(p) == testing::text_bytes("first second"));
    CHECK_FALSE(fs::exists(t.path / "f.tdb.tmp"));
    {
      auto fresh = st.open_write(t.path / "new.tdb");
    }
    CHECK_FALSE(st.exists(t.path / "new.tdb"));
    st.remove(p);
  }
  // No folder: refused at once, nothing created.
  storage::local st;
  CHECK_THROWS_AS(st.open_write(t.path / "missing" / "f.tdb"), storage::io_error);
  // A rename that fails (over a folder) removes the temporary file.
  st.make_folder(t.path / "taken");
  auto w = st.open_write(t.path / "taken");
  w->append(testing::text_bytes("data"));
  CHECK_THROWS_AS(w->commit(), storage::io_error);
  CHECK_FALSE(fs::exists(t.path / "taken.tmp"));
}

TEST_CASE("local: durable and plain writes, folders made at any depth, relative paths") {
  temp_folder t("durable");
  storage::local durable;
  storage::local plain(storage::local::not_durable);
  CHECK(durable.durable());
  CHECK_FALSE(plain.durable());
  for (auto* st : {&durable, &plain}) {
    const fs::path dir = t.path / (st->durable() ? "d" : "p") / "x" / "y";
    st->make_folder(dir);
    st->make_folder(dir);  // already there
    CHECK(st->is_folder(dir));
    st->write(dir / "f.tdb", testing::text_bytes("abc"));
    st->write(dir / "f.tdb", testing::text_bytes("abcd"));
    CHECK(st->read(dir / "f.tdb") == testing::text_bytes("abcd"));
    CHECK(st->list(dir).size() == 1);
  }
  const fs::path cwd = fs::current_path();
  fs::current_path(t.path);
  durable.make_folder("rel/sub");
  durable.write("rel/sub/f.tdb", testing::text_bytes("r"));
  durable.write("top.tdb", testing::text_bytes("t"));
  fs::current_path(cwd);
  CHECK(durable.read(t.path / "rel" / "sub" / "f.tdb") == testing::text_bytes("r"));
  CHECK(durable.read(t.path / "top.tdb") == testing::text_bytes("t"));
}

TEST_CASE("local: a read larger than allowed fails before allocating") {
  temp_folder t("limit");
  storage::local st;
  st.write(t.path / "f", testing::text_bytes("0123456789"));
  CHECK(st.read(t.path / "f", 10).size() == 10);
  try {
    (void)st.read(t.path / "f", 9);
    FAIL("no error");
  } catch (const storage::io_error& e) {
    CHECK(std::string(e.what()).find("10 bytes") != std::string::npos);
    CHECK(e.path() == t.path / "f");
  }
}

TEST_CASE("local: FIFOs, folders and symbolic links are not read") {
  temp_folder t("kinds");
  storage::local st;
  REQUIRE(::mkfifo((t.path / "fifo").c_str(), 0600) == 0);
  st.write(t.path / "target", testing::text_bytes("secret"));
  fs::create_symlink(t.path / "target", t.path / "link");
  fs::create_directory(t.path / "dir");
  // A FIFO with no writer would block an ordinary open: here it fails at once.
  CHECK_THROWS_AS(st.read(t.path / "fifo"), storage::io_error);
  CHECK_THROWS_AS(st.read_range(t.path / "fifo", 0, 1), storage::io_error);
  CHECK_FALSE(st.file_size(t.path / "fifo").has_value());
  CHECK_THROWS_AS(st.read(t.path / "link"), storage::io_error);
  CHECK_FALSE(st.file_size(t.path / "link").has_value());
  CHECK_THROWS_AS(st.read(t.path / "dir"), storage::io_error);
  CHECK_THROWS_AS(st.read(t.path / "missing"), storage::io_error);
  CHECK_THROWS_AS(st.read(fs::path("/dev/zero")), storage::io_error);
}

TEST_CASE("local: reads from many threads at once") {
  temp_folder t("threads");
  storage::local st;
  std::vector<std::byte> data(1 << 16);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7);
  st.write(t.path / "f", data);
  std::vector<std::thread> pool;
  std::vector<int> ok(4, 0);
  for (int w = 0; w < 4; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t at = static_cast<std::size_t>(w) * 100; at + 1000 <= data.size(); at += 4000) {
        auto got = st.read_range(t.path / "f", at, 1000);
        if (!std::equal(got.begin(), got.end(), data.begin() + static_cast<std::ptrdiff_t>(at))) return;
      }
      ok[static_cast<std::size_t>(w)] = 1;
    });
  for (auto& p : pool) p.join();
  CHECK(ok == std::vector<int>{1, 1, 1, 1});
}
