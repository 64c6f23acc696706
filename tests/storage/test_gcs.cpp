// The GCS backend (storage/gcs.hpp) against gcp-storage-emulator: the
// backend contract (files, ranges, listings, removal, names that need
// escaping, limits), every committed TileDB array copied there and read as
// from disk, arrays written through it, and a service account's sign-in
// against gcs_token_server.py (the JWT's signature checked with openssl,
// the token sent as a bearer, kept between requests). Run by gcs_check.sh,
// which starts both and sets TILEFMT_GCS_ENDPOINT, TILEFMT_GCS_TOKEN_SERVER
// and TILEFMT_GCS_KEY_FILE.
#include "tilefmt/storage/gcs.hpp"

#include <fstream>

#include "../support/committed_arrays.hpp"
#include "../support/result_rows.hpp"
#include "../support/testing.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/storage/copy.hpp"
#include "tilefmt/storage/local.hpp"

namespace test_gcs {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

storage::gcs_options emulator() {
  storage::gcs_options o;
  o.endpoint = env("TILEFMT_GCS_ENDPOINT");
  REQUIRE_MESSAGE(!o.endpoint.empty(), "run by gcs_check.sh, which sets TILEFMT_GCS_ENDPOINT");
  o.anonymous = true;
  o.project = "tilefmt-test";
  o.retries = 1;
  return o;
}

std::shared_ptr<storage::gcs> store() {
  static auto s = [] {
    auto st = std::make_shared<storage::gcs>(emulator());
    st->create_bucket("tilefmt-test");
    return st;
  }();
  return s;
}

fs::path at(const std::string& name) { return fs::path("gs://tilefmt-test/" + name); }

} // namespace

TEST_CASE("gcs: paths, files, ranges, listings, removal") {
  storage::gcs& st = *store();
  CHECK_THROWS_AS(st.read("/local/file"), storage::io_error);         // not gs://
  CHECK_THROWS_AS(st.read(at("a/../b")), storage::io_error);          // no way out of a prefix
  CHECK_THROWS_AS(st.read("gs:///key"), storage::io_error);           // no bucket
  CHECK_THROWS_AS(st.read("gs://tilefmt-test"), storage::io_error);   // a bucket, not an object
  st.make_folder(at("c"));                                            // writes nothing
  CHECK_FALSE(st.is_folder(at("c")));
  st.write(at("c/__schema/s"), testing::text_bytes("schema"));
  st.write(at("c/a.tdb"), testing::text_bytes("0123456789"));
  st.write(at("c/odd name &+%.tdb"), testing::text_bytes("x"));  // escaped in URLs
  CHECK(st.is_folder(at("c")));
  CHECK(st.is_folder(at("c/__schema")));
  CHECK_FALSE(st.is_folder(at("c/a.tdb")));
  CHECK(st.file_size(at("c/a.tdb")) == 10u);
  CHECK(st.file_size("gcs://tilefmt-test/c/a.tdb") == 10u);  // TileDB's scheme
  CHECK_FALSE(st.file_size(at("c/__schema")).has_value());   // a prefix, not an object
  CHECK_FALSE(st.file_size(at("c/none")).has_value());
  CHECK(st.read(at("c/a.tdb")) == testing::text_bytes("0123456789"));
  CHECK(st.read(at("c/odd name &+%.tdb")) == testing::text_bytes("x"));
  CHECK(st.read_range(at("c/a.tdb"), 2, 3) == testing::text_bytes("234"));
  CHECK(st.read_range(at("c/a.tdb"), 0, 10) == testing::text_bytes("0123456789"));
  CHECK(st.read_range(at("c/a.tdb"), 10, 0).empty());
  CHECK_THROWS_AS(st.read_range(at("c/a.tdb"), 9, 2), storage::io_error);
  CHECK_THROWS_AS(st.read_range(at("c/a.tdb"), 11, 0), storage::io_error);
  CHECK_THROWS_AS(st.read(at("c/a.tdb"), 9), storage::io_error);  // more than the reader allows
  CHECK_THROWS_WITH_AS(st.read(at("c/none")), doctest::Contains("no such object"), storage::io_error);
  const auto l = st.list(at("c"));
  REQUIRE(l.size() == 3);
  CHECK(l[0].name == "__schema");
  CHECK(l[0].folder);
  CHECK(l[1].name == "a.tdb");
  CHECK_FALSE(l[1].folder);
  CHECK(l[2].name == "odd name &+%.tdb");
  CHECK(st.list(at("c/__schema")).size() == 1);
  CHECK(st.list(at("nothing")).empty());
  st.write(at("c2/z"), testing::text_bytes("z"));  // a sibling whose name extends c's
  CHECK(st.list(at("c")).size() == 3);
  st.write(at("c/a.tdb"), testing::text_bytes("new"));  // replaced
  CHECK(st.read(at("c/a.tdb")) == testing::text_bytes("new"));
  st.remove(at("c"));
  CHECK_FALSE(st.is_folder(at("c")));
  CHECK(st.read(at("c2/z")) == testing::text_bytes("z"));
  st.remove(at("c2/z"));
  CHECK_FALSE(st.file_size(at("c2/z")).has_value());
  CHECK(st.stats().requests > 0);
}

TEST_CASE("gcs: a bucket that is not there is an error naming it") {
  storage::gcs& st = *store();
  CHECK_THROWS_WITH_AS(st.list("gs://no-such-bucket/x"), doctest::Contains("GCS GET (list): HTTP 404"),
                       storage::io_error);
}

TEST_CASE("gcs: every committed TileDB array, copied there, reads as from disk") {
  CHECK(testing::check_committed_arrays(store(), fs::path(TILEFMT_TEST_DATA) / "tiledb",
                                        [](const std::string& name) { return at("tiledb/" + name); }) >= 15);
}

TEST_CASE("gcs: an array written there, with time travel") {
  auto gcs = store();
  const fs::path root = at("arrays/sparse");
  array::create(root,
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("d", 1, 1000, 100)},
                                           .attributes = {format::make_attribute({.name = "v"})}}),
                {.storage = gcs});
  for (int w = 0; w < 2; ++w) {
    std::vector<std::int32_t> d, v;
    for (int i = 1; i <= 50; ++i) d.push_back(i * 7 + w), v.push_back(i * 100 + w);
    array::sparse_writer f(root, gcs);
    f.set_coords("d", d).set("v", v);
    f.commit({.timestamp = static_cast<std::uint64_t>(10 + w)});
  }
  auto all = array::open(root, {.storage = gcs});
  CHECK(all.fragments().size() == 2);
  CHECK(all.query().read().cell_num() == 100);
  auto first = array::open(root, {.timestamp_end = 10, .storage = gcs});
  const auto r = first.query().read();
  REQUIRE(r.cell_num() == 50);
  CHECK(r.get<std::int32_t>("v")[49] == 5000);
}

TEST_CASE("gcs: a service account signs in, and its token is sent and kept") {
  const std::string server = env("TILEFMT_GCS_TOKEN_SERVER"), key_file = env("TILEFMT_GCS_KEY_FILE");
  if (server.empty()) return;  // gcs_token_server.py, started by gcs_check.sh
  std::ifstream in(key_file);
  storage::gcs_options o;
  o.endpoint = server;
  o.service_account_key.assign(std::istreambuf_iterator<char>(in), {});
  o.retries = 0;
  storage::gcs st(o);
  const auto first = st.read("gs://b/authorization");
  CHECK(first == testing::text_bytes("Bearer token-1"));
  CHECK(st.read("gs://b/authorization") == first);  // the same token: not asked for again
  storage::gcs anonymous([&] {
    auto a = o;
    a.anonymous = true;
    return a;
  }());
  CHECK(anonymous.read("gs://b/authorization").empty());
  // A key the token server does not know: its refusal, named.
  auto wrong = o;
  const auto other_key = std::string(R"({"client_email": "reader@tilefmt-test.iam.gserviceaccount.com", "token_uri": ")") +
                         server + R"(/token", "private_key": "not a key"})";
  wrong.service_account_key = other_key;
  storage::gcs bad(wrong);
  CHECK_THROWS_WITH_AS(bad.read("gs://b/authorization"), doctest::Contains("not a PEM private key"), storage::io_error);
  wrong.service_account_key = "{";
  CHECK_THROWS_WITH_AS(storage::gcs{wrong}, doctest::Contains("service account key: not JSON"), storage::io_error);
}

} // namespace test_gcs
