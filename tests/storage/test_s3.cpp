// The S3 backend against an S3-compatible server: the backend contract
// (files, ranges, listings over several pages, removal, limits, many
// threads), arrays written and read through it, every committed TileDB
// array copied there and read as from disk, and an array TileDB-Py wrote
// to the same server; retries against a server that fails on purpose.
// Run by s3_check.sh, which starts the servers (moto, s3_flaky.py)
// and sets AWS_ENDPOINT_URL and the credentials; TILEFMT_S3_BUCKET names an
// empty bucket the tests may fill, and TILEFMT_S3_TILEDB_ARRAY (if set) an
// array TileDB-Py wrote, whose int32 attribute "a" holds 3 * i at cell i.
#include "tilefmt/storage/s3.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "../support/committed_arrays.hpp"
#include "../support/result_rows.hpp"
#include "../support/testing.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"
#include "tilefmt/storage/copy.hpp"
#include "tilefmt/storage/local.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_s3 {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

/// s3://<test bucket>/<name>
fs::path at(const std::string& name) {
  const std::string bucket = env("TILEFMT_S3_BUCKET");
  REQUIRE_MESSAGE(!bucket.empty(), "run by s3_check.sh, which sets TILEFMT_S3_BUCKET");
  return fs::path("s3://" + bucket + "/" + name);
}

std::shared_ptr<storage::s3> store() {
  static auto s = std::make_shared<storage::s3>(storage::s3_options::from_environment());
  return s;
}

} // namespace

TEST_CASE("s3: paths, files, ranges, listings, removal") {
  storage::s3& st = *store();
  CHECK_THROWS_AS(st.read("/local/file"), storage::io_error);       // not s3://
  CHECK_THROWS_AS(st.read(at("a/../b")), storage::io_error);        // no way out of a prefix
  CHECK_THROWS_AS(st.read("s3:///key"), storage::io_error);         // no bucket
  st.make_folder(at("c"));                                           // writes nothing
  CHECK_FALSE(st.is_folder(at("c")));
  st.write(at("c/__schema/s"), testing::text_bytes("schema"));
  st.write(at("c/a.tdb"), testing::text_bytes("0123456789"));
  st.write(at("c/odd name &<>+%.tdb"), testing::text_bytes("x"));  // escaped in URLs and XML
  CHECK(st.is_folder(at("c")));
  CHECK(st.is_folder(at("c/__schema")));
  CHECK_FALSE(st.is_folder(at("c/a.tdb")));
  CHECK(st.file_size(at("c/a.tdb")) == 10u);
  CHECK_FALSE(st.file_size(at("c/__schema")).has_value());  // a prefix, not an object
  CHECK_FALSE(st.file_size(at("c/none")).has_value());
  CHECK(st.read(at("c/a.tdb")) == testing::text_bytes("0123456789"));
  CHECK(st.read(at("c/odd name &<>+%.tdb")) == testing::text_bytes("x"));
  CHECK(st.read_range(at("c/a.tdb"), 2, 3) == testing::text_bytes("234"));
  CHECK(st.read_range(at("c/a.tdb"), 0, 10) == testing::text_bytes("0123456789"));
  CHECK(st.read_range(at("c/a.tdb"), 10, 0).empty());
  CHECK_THROWS_AS(st.read_range(at("c/a.tdb"), 9, 2), storage::io_error);
  CHECK_THROWS_AS(st.read_range(at("c/a.tdb"), 11, 0), storage::io_error);
  std::vector<std::byte> into(3);
  st.read_range_into(at("c/a.tdb"), 2, into);
  CHECK(into == testing::text_bytes("234"));
  CHECK_THROWS_AS(st.read_range_into(at("c/a.tdb"), 8, into), storage::io_error);
  CHECK_THROWS_AS(st.read(at("c/a.tdb"), 9), storage::io_error);  // more than the reader allows
  CHECK_THROWS_AS(st.read(at("c/none")), storage::io_error);
  const auto l = st.list(at("c"));
  REQUIRE(l.size() == 3);
  CHECK(l[0].name == "__schema");
  CHECK(l[0].folder);
  CHECK(l[1].name == "a.tdb");
  CHECK_FALSE(l[1].folder);
  CHECK(l[2].name == "odd name &<>+%.tdb");
  CHECK(st.list(at("c/__schema")).size() == 1);
  CHECK(st.list(at("nothing")).empty());
  // A sibling whose name extends a folder's is not inside it.
  st.write(at("c2/z"), testing::text_bytes("z"));
  CHECK(st.list(at("c")).size() == 3);
  // Replacing an object.
  st.write(at("c/a.tdb"), testing::text_bytes("new"));
  CHECK(st.read(at("c/a.tdb")) == testing::text_bytes("new"));
  st.remove(at("c"));
  CHECK_FALSE(st.is_folder(at("c")));
  CHECK(st.list(at("c")).empty());
  CHECK(st.read(at("c2/z")) == testing::text_bytes("z"));
  st.remove(at("c2/z"));
  CHECK_FALSE(st.file_size(at("c2/z")).has_value());
  st.remove(at("c2/z"));  // nothing there: nothing to do
}

TEST_CASE("s3: a wrong secret is an error naming the server's refusal") {
  if (env("TILEFMT_S3_VERIFIES_SIGNATURES").empty()) return;  // the server checks signatures (s3_check.sh)
  auto o = storage::s3_options::from_environment();
  o.secret_access_key += "x";
  o.retries = 0;
  storage::s3 wrong(o);
  CHECK_THROWS_WITH_AS(wrong.read(at("anything")), doctest::Contains("SignatureDoesNotMatch"), storage::io_error);
  CHECK_THROWS_WITH_AS(wrong.write(at("w"), testing::text_bytes("x")), doctest::Contains("HTTP 403"),
                       storage::io_error);
}

TEST_CASE("s3: no_sign_request sends requests unsigned, whatever the credentials") {
  if (env("TILEFMT_S3_VERIFIES_SIGNATURES").empty()) return;  // the server checks signatures (s3_check.sh)
  store()->write(at("private"), testing::text_bytes("x"));
  auto o = storage::s3_options::from_environment();
  o.no_sign_request = true;
  o.retries = 0;
  storage::s3 anonymous(o);
  // The bucket is private: unsigned, the server refuses what it gives the signed.
  CHECK(store()->read(at("private")).size() == 1);
  CHECK_THROWS_AS(anonymous.read(at("private")), storage::io_error);
}

/// Sets an environment variable for a scope, then puts it back.
class scoped_env {
public:
  scoped_env(const char* name, const std::string& value) : name_(name), had_(std::getenv(name) != nullptr) {
    if (had_) old_ = std::getenv(name);
    if (value.empty())
      ::unsetenv(name);
    else
      ::setenv(name, value.c_str(), 1);
  }
  ~scoped_env() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char* name_;
  bool had_;
  std::string old_;
};

TEST_CASE("s3: credentials and region from the shared AWS files' profile") {
  const auto from_env = storage::s3_options::from_environment();
  const fs::path dir = fs::temp_directory_path() / ("tilefmt-aws-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "credentials") << "# the AWS tools' files\n[default]\naws_access_key_id = wrong\n"
                                       << "aws_secret_access_key = wrong\n\n[tilefmt]\naws_access_key_id = "
                                       << from_env.access_key_id << "\naws_secret_access_key=" << from_env.secret_access_key
                                       << "\n";
    std::ofstream(dir / "config") << "[default]\nregion = eu-north-1\n[profile tilefmt]\n; a comment\nregion = us-west-2\n";
  }
  const scoped_env files("AWS_SHARED_CREDENTIALS_FILE", (dir / "credentials").string()),
      config("AWS_CONFIG_FILE", (dir / "config").string()), key("AWS_ACCESS_KEY_ID", ""),
      secret("AWS_SECRET_ACCESS_KEY", ""), region("AWS_REGION", ""), default_region("AWS_DEFAULT_REGION", "");
  {
    const scoped_env profile("AWS_PROFILE", "tilefmt");
    const auto o = storage::s3_options::from_environment();
    CHECK(o.access_key_id == from_env.access_key_id);
    CHECK(o.secret_access_key == from_env.secret_access_key);
    CHECK(o.region == "us-west-2");
  }
  {
    const scoped_env profile("AWS_PROFILE", "");
    const auto o = storage::s3_options::from_environment();
    CHECK(o.access_key_id == "wrong");
    CHECK(o.region == "eu-north-1");
    // Named by the caller, a profile wins over the environment's.
    CHECK(storage::s3_options::from_environment("tilefmt").access_key_id == from_env.access_key_id);
  }
  {
    // The variables' keys win over the files' default profile.
    const scoped_env k("AWS_ACCESS_KEY_ID", "from-variable"), r("AWS_REGION", "ap-south-1");
    const auto o = storage::s3_options::from_environment();
    CHECK(o.access_key_id == "from-variable");
    CHECK(o.region == "ap-south-1");
  }
  if (!env("TILEFMT_S3_VERIFIES_SIGNATURES").empty()) {
    // The profile's keys sign for the server.
    const scoped_env profile("AWS_PROFILE", "tilefmt");
    auto o = storage::s3_options::from_environment();
    o.region = from_env.region;
    o.endpoint = from_env.endpoint;
    o.path_style = from_env.path_style;
    store()->write(at("profiled"), testing::text_bytes("yz"));
    CHECK(storage::s3(o).read(at("profiled")).size() == 2);
  }
  fs::remove_all(dir);
}

TEST_CASE("s3: requests that fail for a passing reason are tried again") {
  const std::string endpoint = env("TILEFMT_S3_FLAKY_ENDPOINT");
  if (endpoint.empty()) return;  // s3_flaky.py, started by s3_check.sh
  storage::s3_options o;
  o.endpoint = endpoint;
  o.path_style = true;
  o.first_backoff = std::chrono::milliseconds(10);
  o.retries = 3;
  storage::s3 st(o);
  // Three 503s, then the object: within three retries.
  CHECK(st.read("s3://b/3-fails/k") == testing::text_bytes("/b/3-fails/k"));
  // Four are one too many: the last answer's error, named.
  CHECK_THROWS_WITH_AS(st.read("s3://b/4-fails/k"), doctest::Contains("HTTP 503 SlowDown"), storage::io_error);
  o.retries = 0;
  storage::s3 once(o);
  CHECK_THROWS_WITH_AS(once.read("s3://b/1-fails/k"), doctest::Contains("HTTP 503"), storage::io_error);
  // Not a passing failure: no retry.
  CHECK_THROWS_WITH_AS(st.read("s3://b/none"), doctest::Contains("no such object"), storage::io_error);
}

TEST_CASE("s3: requester_pays says so in every request") {
  const std::string endpoint = env("TILEFMT_S3_FLAKY_ENDPOINT");
  if (endpoint.empty()) return;  // s3_flaky.py echoes request headers
  storage::s3_options o;
  o.endpoint = endpoint;
  o.path_style = true;
  o.retries = 0;
  storage::s3 plain(o);
  CHECK_THROWS_WITH_AS(plain.read("s3://b/headers/x-amz-request-payer"), doctest::Contains("no such object"),
                       storage::io_error);
  o.requester_pays = true;
  storage::s3 paying(o);
  CHECK(paying.read("s3://b/headers/x-amz-request-payer") == testing::text_bytes("requester"));
  CHECK(paying.read_range("s3://b/headers/x-amz-request-payer", 0, 9) == testing::text_bytes("requester"));
}

TEST_CASE("s3: server-side encryption of what is written") {
  // s3_check.sh reads back how the server keeps these three objects.
  auto o = storage::s3_options::from_environment();
  storage::s3 none(o);
  none.write(at("sse/none"), testing::text_bytes("plain"));
  o.sse = "aes256";  // TileDB's name for AES256
  storage::s3 aes(o);
  aes.write(at("sse/aes256"), testing::text_bytes("aes"));
  CHECK(aes.read(at("sse/aes256")) == testing::text_bytes("aes"));
  if (const auto key = env("TILEFMT_S3_KMS_KEY"); !key.empty()) {
    o.sse = "kms";
    o.sse_kms_key_id = key;
    storage::s3 kms(o);
    kms.write(at("sse/kms"), testing::text_bytes("kms"));
    CHECK(kms.read(at("sse/kms")) == testing::text_bytes("kms"));
  }
  o.sse = "rot13";
  CHECK_THROWS_WITH_AS(storage::s3{o}, doctest::Contains("sse must be"), std::invalid_argument);
  o.sse = "AES256";
  o.sse_kms_key_id = "k";
  CHECK_THROWS_WITH_AS(storage::s3{o}, doctest::Contains("sse_kms_key_id is for"), std::invalid_argument);
}

TEST_CASE("s3: a role assumed through STS signs the requests") {
  const std::string role = env("TILEFMT_S3_ROLE_ARN");
  if (role.empty()) return;  // s3_check.sh makes the role and a user who may only assume it
  auto o = storage::s3_options::from_environment();
  o.access_key_id = env("TILEFMT_S3_LIMITED_KEY");
  o.secret_access_key = env("TILEFMT_S3_LIMITED_SECRET");
  o.retries = 0;
  storage::s3 alone(o);  // the user's own rights: none on S3
  CHECK_THROWS_WITH_AS(alone.write(at("role/x"), testing::text_bytes("x")), doctest::Contains("AccessDenied"),
                       storage::io_error);
  o.role_arn = role;
  o.role_session_name = "test-s3";
  storage::s3 as_role(o);
  as_role.write(at("role/x"), testing::text_bytes("written as the role"));
  CHECK(as_role.read(at("role/x")) == testing::text_bytes("written as the role"));
  CHECK(as_role.list(at("role")).size() == 1);
  const auto before = as_role.stats().requests;
  CHECK(as_role.file_size(at("role/x")) == 19u);  // the credentials kept: one request, no second AssumeRole
  CHECK(as_role.stats().requests == before + 1);
  as_role.remove(at("role"));
  o.role_arn = "arn:aws:iam::123456789012:role/nobody";
  storage::s3 nobody(o);
  CHECK_THROWS_WITH_AS(nobody.read(at("role/x")), doctest::Contains("STS AssumeRole of arn:aws:iam::123456789012:role/nobody"),
                       storage::io_error);
}

TEST_CASE("s3: large files go up in parts, several at once") {
  auto o = storage::s3_options::from_environment();
  o.multipart_part_size = std::uint64_t{5} << 20;  // S3's smallest
  o.multipart_in_flight = 2;
  o.sse = "AES256";  // asked for at the start, not on the parts (S3 refuses it there)
  storage::s3 st(o);
  std::vector<std::byte> big((std::size_t{12} << 20) + 3);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
  const auto before = st.stats().requests;
  st.write(at("parts/whole"), big);
  CHECK(st.stats().requests - before == 5);  // start, 3 parts, complete
  CHECK(st.file_size(at("parts/whole")) == big.size());
  CHECK(st.read(at("parts/whole")) == big);
  CHECK(st.read_range(at("parts/whole"), (std::size_t{5} << 20) - 2, 4) ==
        std::vector<std::byte>(big.begin() + (5 << 20) - 2, big.begin() + (5 << 20) + 2));
  // In pieces: parts go up as they fill; a file that fits in one part is one PUT.
  auto w = st.open_write(at("parts/pieces"));
  for (std::size_t at_byte = 0; at_byte < big.size(); at_byte += 1'000'003)
    w->append(std::span(big).subspan(at_byte, std::min<std::size_t>(1'000'003, big.size() - at_byte)));
  CHECK_FALSE(st.file_size(at("parts/pieces")).has_value());  // nothing seen before the commit
  w->commit();
  CHECK(st.read(at("parts/pieces")) == big);
  auto exact = st.open_write(at("parts/exact"));  // exactly two parts, the second appended alone
  exact->append(std::span(big).first(5 << 20));
  exact->append(std::span(big).subspan(5 << 20, 5 << 20));
  exact->commit();
  CHECK(st.read(at("parts/exact")) == std::vector<std::byte>(big.begin(), big.begin() + (10 << 20)));
  auto small = st.open_write(at("parts/small"));
  small->append(testing::text_bytes("small"));
  small->commit();
  CHECK(st.read(at("parts/small")) == testing::text_bytes("small"));
  {  // A writer dropped before its commit leaves nothing.
    auto dropped = st.open_write(at("parts/dropped"));
    dropped->append(big);
  }
  CHECK_FALSE(st.file_size(at("parts/dropped")).has_value());
  st.remove(at("parts"));
  o.multipart_part_size = 1 << 20;
  CHECK_THROWS_WITH_AS(storage::s3{o}, doctest::Contains("at least 5 MiB"), std::invalid_argument);
}

TEST_CASE("s3: STS's expiration times") {
  using storage::detail::parse_utc;
  const auto t = parse_utc("2026-11-30T06:00:05Z");
  REQUIRE(t.has_value());
  CHECK(std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count() == 1796018405);
  CHECK_FALSE(parse_utc("2026-11-30 06:00:05Z").has_value());
  CHECK_FALSE(parse_utc("2026-11-3").has_value());
  CHECK_FALSE(parse_utc("").has_value());
  CHECK_FALSE(parse_utc("2826-11-30T06:00:05Z").has_value());  // past a nanosecond clock's end (found by fuzzing)
  CHECK_FALSE(parse_utc("2026-13-30T06:00:05Z").has_value());
}

TEST_CASE("s3: a listing of more than one page") {
  storage::s3& st = *store();
  // ListObjectsV2 answers 1000 keys a page; 1,003 need two.
  const std::size_t n = 1003;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < n; i += 8) st.write(at("many/f" + std::to_string(100000 + i)), testing::text_bytes("x"));
    });
  for (auto& t : threads) t.join();
  const auto l = st.list(at("many"));
  REQUIRE(l.size() == n);
  for (std::size_t i = 0; i < n; ++i) CHECK(l[i].name == "f" + std::to_string(100000 + i));
  st.remove(at("many"));
  CHECK(st.list(at("many")).empty());
}

TEST_CASE("s3: one backend, many threads") {
  storage::s3& st = *store();
  for (int i = 0; i < 16; ++i) st.write(at("threads/" + std::to_string(i)), testing::text_bytes(std::string(1000 + i, 'a' + i % 26)));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 40; ++k) {
        const int i = (t * 7 + k) % 16;
        const auto whole = st.read(at("threads/" + std::to_string(i)));
        const auto part = st.read_range(at("threads/" + std::to_string(i)), 10, 20);
        if (whole != testing::text_bytes(std::string(1000 + i, 'a' + i % 26)) ||
            part != testing::text_bytes(std::string(20, 'a' + i % 26)))
          ++wrong;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(wrong == 0);
  st.remove(at("threads"));
}

TEST_CASE("s3: arrays written and read through the backend, as in memory") {
  auto s3 = store();
  auto mem = std::make_shared<storage::memory>();
  for (const bool dense : {true, false}) {
    CAPTURE(dense);
    const auto schema = format::make_array_schema(
        {.type = dense ? format::ArrayType::DENSE : format::ArrayType::SPARSE,
         .dimensions = {format::make_dimension<std::int32_t>("r", 1, 40, 8),
                        format::make_dimension<std::int32_t>("c", 1, 40, 8)},
         .attributes = {format::make_attribute({.name = "v"}),
                        format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                .cell_val_num = format::var_num})},
         .capacity = 50});
    const fs::path remote = at(dense ? "arrays/dense" : "arrays/sparse");
    const fs::path local = dense ? "/dense" : "/sparse";
    for (const auto& [root, st] : std::vector<std::pair<fs::path, std::shared_ptr<storage::backend>>>{
             {remote, s3}, {local, mem}}) {
      array::create(root, schema, {.storage = st});
      for (int w = 0; w < 3; ++w) {  // three overlapping writes
        const int r0 = 1 + w * 7, r1 = r0 + 15;
        std::vector<std::int32_t> rows, cols, v;
        std::vector<std::string> s;
        for (int r = r0; r <= r1; ++r)
          for (int c = 1; c <= 40; c += (dense ? 1 : 3)) {
            rows.push_back(r), cols.push_back(c), v.push_back(r * 1000 + c + w);
            s.push_back(std::string(static_cast<std::size_t>((r + c + w) % 5), 'x'));
          }
        if (dense) {
          array::dense_writer f(root, {{r0, r1}, {1, 40}}, array::cell_layout::row_major, st);
          f.set("v", v).set_var("s", s);
          f.commit({.timestamp = static_cast<std::uint64_t>(10 + w)});
        } else {
          array::sparse_writer f(root, st);
          f.set_coords("r", rows).set_coords("c", cols).set("v", v).set_var("s", s);
          f.commit({.timestamp = static_cast<std::uint64_t>(10 + w)});
        }
      }
    }
    auto a = array::open(remote, {.threads = 4, .storage = s3});
    auto b = array::open(local, {.storage = mem});
    CHECK(a.fragments().size() == 3);
    CHECK(testing::rows(a.query().read()) == testing::rows(b.query().read()));
    CHECK(testing::rows(a.query().subarray({{5, 20}, {3, 9}}).read()) ==
          testing::rows(b.query().subarray({{5, 20}, {3, 9}}).read()));
    // Time travel: before the last write.
    auto a11 = array::open(remote, {.timestamp_end = 11, .storage = s3});
    auto b11 = array::open(local, {.timestamp_end = 11, .storage = mem});
    CHECK(testing::rows(a11.query().read()) == testing::rows(b11.query().read()));
  }
}

TEST_CASE("s3: a 1% query fetches the tiles it needs, not the array") {
  // 1,000,000 int32 cells in 100 tiles of 10,000 (4 MB, zstd): a query of
  // 10,000 cells inside one tile fetches that tile and the metadata.
  auto s3 = store();
  const fs::path root = at("arrays/one_percent");
  using zstd = filter::pipeline<filter::zstd<1>>;
  array::create(root,
                format::make_array_schema({.type = format::ArrayType::DENSE,
                                           .dimensions = {format::make_dimension<std::int64_t>("d", 0, 999'999, 10'000)},
                                           .attributes = {format::make_attribute({.name = "a", .filters = zstd::descriptor()})}}),
                {.storage = s3});
  std::vector<std::int32_t> a(1'000'000);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int32_t>(i * 2654435761u);  // compresses little
  array::dense_writer f(root, {{0, 999'999}}, array::cell_layout::row_major, s3);
  f.set("a", a);
  f.commit({.timestamp = 1});
  std::uint64_t stored = 0;
  for (const auto& frag : s3->list(root / "__fragments"))
    for (const auto& file : s3->list(root / "__fragments" / frag.name)) stored += *s3->file_size(root / "__fragments" / frag.name / file.name);
  const auto before = s3->stats();
  auto arr = array::open(root, {.storage = s3});
  const auto opened = s3->stats();
  const auto res = arr.query().subarray({{std::int64_t{420'000}, std::int64_t{429'999}}}).read();
  const auto after = s3->stats();
  const auto got = res.get<std::int32_t>("a");
  REQUIRE(got.size() == 10'000);
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == a[420'000 + i]);
  const std::uint64_t query_bytes = after.bytes_received - opened.bytes_received;
  MESSAGE("the fragment's files: " << stored << " bytes; opening: " << opened.requests - before.requests
                                   << " requests, " << opened.bytes_received - before.bytes_received
                                   << " bytes; the 1% query: " << after.requests - opened.requests << " requests, "
                                   << query_bytes << " bytes");
  CHECK(query_bytes * 50 < stored);  // about one tile of a hundred, not the array
  // Five adjacent tiles: one ranged GET, not five.
  const auto wide = arr.query().subarray({{std::int64_t{400'000}, std::int64_t{449'999}}}).read();
  const auto after_wide = s3->stats();
  const auto wide_a = wide.get<std::int32_t>("a");
  REQUIRE(wide_a.size() == 50'000);
  for (std::size_t i = 0; i < wide_a.size(); i += 997) CHECK(wide_a[i] == a[400'000 + i]);
  MESSAGE("a 5% query over five adjacent tiles: " << after_wide.requests - after.requests << " requests, "
                                                 << after_wide.bytes_received - after.bytes_received << " bytes");
  CHECK(after_wide.requests - after.requests == 1);
}

TEST_CASE("s3: every committed TileDB array, copied there, reads as from disk") {
  CHECK(testing::check_committed_arrays(store(), fs::path(TILEFMT_TEST_DATA) / "tiledb",
                                        [](const std::string& name) { return at("tiledb/" + name); }) >= 15);
}

TEST_CASE("s3: an array TileDB-Py wrote there") {
  const std::string uri = env("TILEFMT_S3_TILEDB_ARRAY");
  if (uri.empty()) return;  // s3_check.sh sets it when TileDB-Py is there
  auto arr = array::open(fs::path(uri), {.storage = store()});
  const auto res = arr.query().read();
  const auto a = res.get<std::int32_t>("a");
  REQUIRE(a.size() == 100);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == static_cast<std::int32_t>(3 * i));
}

} // namespace test_s3
