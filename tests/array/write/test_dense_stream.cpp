// A dense fragment's data files written while its tiles encode, each tile
// appended to its file as soon as it is done: on a local disk by default
// (the files start in a provisional folder and move into the one commit()
// names), anywhere with dense_writer::stream() (named at once). The files are
// those of a write that holds them until commit(), byte for byte.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/format/names.hpp"
#include "tilefmt/storage/local.hpp"

#include "../../support/array_files.hpp"
#include "../../support/forwarding_backend.hpp"
#include "../../support/testing.hpp"

namespace test_dense_stream {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-dense-stream-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

const array::write_options schema_name_options{1700000000000, std::string("0123456789abcdef0123456789abcdef")};
const array::write_options fragment_name_options{1700000000100, std::string("fedcba9876543210fedcba9876543210")};

/// The local file system, counting the bytes appended to files being
/// written and the files made to appear; `streams` false: a storage whose
/// writers cannot move a file at commit (as an object store's), so that a
/// dense writer holds its files until commit().
class counting final : public testing::forwarding_backend<storage::local> {
public:
  explicit counting(bool streams = true) : forwarding_backend(storage::local{storage::local::not_durable}), streams_(streams) {}
  std::uint64_t appended = 0;
  std::size_t files_written = 0;

private:
  void on_append(const fs::path&, std::size_t n) override { appended += n; }
  void on_change(change c, const fs::path&) override { files_written += c == change::write; }
  bool do_streams_writes() const override { return streams_ && inner.streams_writes(); }
  bool streams_;
};

/// A dense array with a fixed-size, a nullable and a nullable var-size attribute.
format::ArraySchema dense_schema() {
  using D = format::Datatype;
  return format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("r", 1, 40, 8), format::make_dimension<std::int32_t>("c", 1, 30, 6)},
       .attributes = {
           format::make_attribute(
               {.name = "a", .type = D::INT32, .filters = format::compression_pipeline(format::FilterType::ZSTD, 1)}),
           format::make_attribute({.name = "f", .type = D::FLOAT64, .nullable = true}),
           format::make_attribute(
               {.name = "s", .type = D::STRING_ASCII, .cell_val_num = format::var_num, .nullable = true})}});
}

const std::vector<std::pair<std::int64_t, std::int64_t>> sub{{3, 37}, {2, 29}};
const std::size_t n = 35 * 28;

/// Sets every attribute of `f` (the subarray's cells, row-major).
void set_dense(array::dense_writer& f) {
  std::vector<std::int32_t> a;
  std::vector<double> d;
  std::vector<std::string> s;
  std::vector<std::uint8_t> dv, sv;
  for (std::size_t i = 0; i < n; ++i) {
    a.push_back(static_cast<std::int32_t>(i * 13 % 1000));
    d.push_back(static_cast<double>(i) / 3.0);
    dv.push_back(i % 7 != 0);
    s.push_back(std::string(i % 5, static_cast<char>('a' + i % 26)));
    sv.push_back(i % 4 != 1);
  }
  f.set("a", a).set("f", d, dv).set_var("s", s, sv);
}

/// The array at `root` written by a dense writer that holds its files until
/// commit(), named by fragment_name_options.
fs::path held_write(const std::string& name) {
  const fs::path root = scratch(name);
  array::create(root, dense_schema(), schema_name_options);
  auto st = std::make_shared<counting>(false);
  array::dense_writer f(root, sub, array::cell_layout::row_major, st);
  set_dense(f);
  CHECK(st->appended == 0);  // nothing streamed
  f.commit(fragment_name_options);
  return root;
}

std::size_t folders_in(const fs::path& dir) {
  std::size_t k = 0;
  for (const auto& e : fs::directory_iterator(dir)) k += e.is_directory();
  return k;
}

} // namespace

TEST_CASE("dense_writer on a local disk: tiles stream to a provisional folder, the fragment named at commit") {
  const fs::path held = held_write("held");
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    const fs::path root = scratch("default");
    array::create(root, dense_schema(), schema_name_options);
    auto st = std::make_shared<counting>();
    array::dense_writer f(root, sub, array::cell_layout::row_major, st);
    f.threads(threads);
    f.set("a", std::vector<std::int32_t>(n, 7));  // set again below: its streamed tiles are replaced
    set_dense(f);
    CHECK(st->appended > 0);  // every tile, before commit
    CHECK(st->files_written == 0);
    CHECK(folders_in(root / "__fragments") == 1);  // the provisional folder,
    CHECK(array::open(root).fragments().empty());   // no fragment to a reader
    const std::string name = f.commit(fragment_name_options);
    CHECK(name == "__1700000000100_1700000000100_fedcba9876543210fedcba9876543210_22");
    CHECK(st->files_written == 8);  // a0, a1 + validity, a2 + var + validity, metadata, marker
    CHECK(folders_in(root / "__fragments") == 1);  // the provisional one gone
    testing::check_same_files(root, held);
    fs::remove_all(root);
  }
  fs::remove_all(held);
}

TEST_CASE("dense_writer on a local disk: tiles without filters stream from the caller's cells, the same files") {
  // 1-D, tiles of 1,000 cells over [0, 9,999]: whole tiles lie in the
  // cells as given (written as chunk headers around them, no encoded copy);
  // a subarray ending mid-tile has a tile gathered and zero-filled; "z"
  // (ZSTD) and "n" (nullable) are encoded as always.
  using D = format::Datatype;
  const auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int64_t>("i", 0, 9'999, 1'000)},
       .attributes = {format::make_attribute({.name = "u", .type = D::FLOAT64}),
                      format::make_attribute({.name = "n", .type = D::INT16, .nullable = true}),
                      format::make_attribute(
                          {.name = "z", .type = D::INT32, .filters = format::compression_pipeline(format::FilterType::ZSTD, 1)})}});
  for (const auto layout : {array::cell_layout::row_major, array::cell_layout::storage})
    for (const std::int64_t hi : {std::int64_t{9'999}, std::int64_t{4'499}}) {
      if (layout == array::cell_layout::storage && hi != 9'999) continue;  // storage takes whole tiles
      CAPTURE(hi);
      const auto n = static_cast<std::size_t>(hi + 1);
      std::vector<double> u(n);
      std::vector<std::int16_t> v(n);
      std::vector<std::int32_t> z(n);
      std::vector<std::uint8_t> valid(n);
      for (std::size_t i = 0; i < n; ++i) {
        u[i] = static_cast<double>(i) * 0.25;
        v[i] = static_cast<std::int16_t>(i % 300);
        z[i] = static_cast<std::int32_t>(i * 7);
        valid[i] = i % 5 != 0;
      }
      fs::path roots[2];
      for (const bool streams : {false, true}) {
        const fs::path root = roots[streams] = scratch(streams ? "raw-streamed" : "raw-held");
        array::create(root, schema, schema_name_options);
        auto st = std::make_shared<counting>(streams);
        array::dense_writer f(root, {{0, hi}}, layout, st);
        f.set("u", u).set("n", v, valid).set("z", z);
        CHECK((st->appended > 0) == streams);
        f.commit(fragment_name_options);
      }
      testing::check_same_files(roots[1], roots[0]);
      const auto r = array::open(roots[1]).query().add_range(0, std::int64_t{0}, hi).read();
      const auto got = r.get<double>("u");
      CHECK(std::vector<double>(got.begin(), got.end()) == u);
      for (const auto& root : roots) fs::remove_all(root);
    }
}

TEST_CASE("dense_writer on a local disk: without options the name is commit()'s time; dropped, nothing is left") {
  const fs::path root = scratch("times");
  array::create(root, dense_schema(), schema_name_options);
  {
    array::dense_writer f(root, sub);
    set_dense(f);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto before = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    const std::string name = f.commit();
    CHECK(format::parse_timestamped_name(name).t1 >= before);  // not the provisional folder's time
    CHECK(fs::is_directory(root / "__fragments" / name));
    CHECK(folders_in(root / "__fragments") == 1);
    CHECK(array::open(root).query().read().cell_num() == 40 * 30);
  }
  fs::remove_all(root);
  array::create(root, dense_schema(), schema_name_options);
  {
    array::dense_writer f(root, sub);
    set_dense(f);
    CHECK(folders_in(root / "__fragments") == 1);
  }
  CHECK(fs::is_empty(root / "__fragments"));
  fs::remove_all(root);
}

TEST_CASE("dense_writer::stream: the same files, named at once") {
  const fs::path held = held_write("held-named");
  for (bool streams : {true, false}) {  // stream() streams where storage cannot move files too
    CAPTURE(streams);
    const fs::path root = scratch("named");
    array::create(root, dense_schema(), schema_name_options);
    auto st = std::make_shared<counting>(streams);
    {
      array::dense_writer f(root, sub, array::cell_layout::row_major, st);
      f.stream(fragment_name_options);
      set_dense(f);
      CHECK(st->appended > 0);
      CHECK(st->files_written == 0);
      CHECK(fs::is_directory(root / "__fragments" / "__1700000000100_1700000000100_fedcba9876543210fedcba9876543210_22"));
      f.commit({});
    }
    CHECK(st->files_written == 8);
    testing::check_same_files(root, held);
    fs::remove_all(root);
  }
  // Dropped before commit: nothing left; stream() after set(): refused.
  const fs::path root = scratch("dropped");
  array::create(root, dense_schema(), schema_name_options);
  {
    array::dense_writer f(root, sub);
    f.stream(fragment_name_options);
    set_dense(f);
  }
  CHECK(fs::is_empty(root / "__fragments"));
  {
    array::dense_writer f(root, sub);
    f.set("a", std::vector<std::int32_t>(n));
    CHECK_THROWS_AS(f.stream(), std::logic_error);
  }
  fs::remove_all(root);
  fs::remove_all(held);
}

} // namespace test_dense_stream
