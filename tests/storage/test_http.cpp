// The web host backend (include/tilefmt/storage/http.hpp): listing
// documents parsed and refused when malformed, and, run by http_check.sh
// (which serves copies of committed arrays and a group with web/serve.py on
// 127.0.0.1 and sets TILEFMT_HTTP_URL), arrays and a group read over HTTP
// as from disk, in few requests.
#include "tilefmt/storage/http.hpp"

#include <cstdlib>

#include "../support/result_rows.hpp"
#include "../support/testing.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/group/read/group.hpp"

namespace test_http {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

storage::detail::http_listing parse(std::string_view text) {
  return storage::detail::parse_http_listing("http://h/a", text, "http://h/a.tilefmt-listing");
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

} // namespace

TEST_CASE("http: listing documents give sizes and folders") {
  const auto l = parse("# tilefmt listing 1\n12 __schema/__1_1_x\n7 __fragments/f/a0.tdb\n0 __fragments/f/__fragment_metadata.tdb\n"
                       "3 __tiledb_group.tdb\n");
  CHECK(l.files.at("__schema/__1_1_x") == 12);
  CHECK(l.files.at("__fragments/f/__fragment_metadata.tdb") == 0);
  REQUIRE(l.folders.count("") == 1);
  const auto& top = l.folders.at("");
  REQUIRE(top.size() == 3);
  CHECK(top[0].name == "__fragments");
  CHECK(top[0].folder);
  CHECK(top[1].name == "__schema");
  CHECK(top[2].name == "__tiledb_group.tdb");
  CHECK_FALSE(top[2].folder);
  REQUIRE(l.folders.count("__fragments/f") == 1);
  CHECK(l.folders.at("__fragments/f").size() == 2);
}

TEST_CASE("http: a malformed listing is refused, naming the line") {
  for (const char* bad : {"12\n", "x1 a\n", "1 ../up\n", "1 a//b\n", "1 /abs\n", "1 a/./b\n", "123456789012345678901 a\n"}) {
    CAPTURE(bad);
    try {
      parse(std::string("# ok\n") + bad);
      FAIL("accepted");
    } catch (const storage::io_error& e) {
      CHECK(std::string(e.what()).find("line 2") != std::string::npos);
      CHECK(e.path() == fs::path("http://h/a.tilefmt-listing"));
    }
  }
}

TEST_CASE("http: arrays and a group on a web host read as from disk") {
  const std::string url = env("TILEFMT_HTTP_URL");
  if (url.empty()) {
    MESSAGE("TILEFMT_HTTP_URL unset: run by http_check.sh");
    return;
  }
  const fs::path data = TILEFMT_TEST_DATA;
  auto web = std::make_shared<storage::http>();
  for (const char* name : {"tiledb/dense_1d_int32/array", "tiledb/sparse_string_dim/array", "tiledb/nullable_dense/array"}) {
    CAPTURE(name);
    const auto before = web->requests();
    auto remote = array::open(url + "/" + name, {.storage = web});
    auto local = array::open(data / name);
    CHECK(remote.fragments().size() == local.fragments().size());
    CHECK(testing::rows(remote.query().read()) == testing::rows(local.query().read()));
    // Open and read in a few requests per file of the array (the listing;
    // a fragment metadata file's footer, then the sections a read needs;
    // each field's tiles, adjacent ones merged): not one per tile or cell.
    std::uint64_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(data / name)) files += e.is_regular_file();
    CHECK(web->requests() - before <= 3 * files + 1);
  }
  // A member opens through the group's listing.
  auto g = group::open(url + "/groups/experiment", {.storage = web});
  CHECK(g.members().size() == 3);
  auto image = array::open(g.path_of(g.member_named("image")), {.storage = web});
  CHECK(image.query().read().cell_num() == 48 * 64);
  // Nothing is written, and what no listing covers is named.
  CHECK_THROWS_AS(web->write(url + "/tiledb/x", {}), storage::io_error);
  try {
    (void)array::open(url + "-elsewhere/none", {.storage = web});
    FAIL("opened");
  } catch (const storage::io_error& e) {
    CHECK(std::string(e.what()).find("listing") != std::string::npos);
  }
}

} // namespace test_http
