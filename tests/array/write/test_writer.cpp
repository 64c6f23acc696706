// Writing arrays: the files are byte for byte those TileDB 2.30 wrote for
// the same schema and cells (tests/data/writer/twin, made by
// tests/data/writer/make_twin.py) and, at older format versions, those
// libtiledb 2.0-2.12 wrote (tests/data/releases); they read back, and bad
// input is refused before anything is written.
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/array/write/tile_metadata.hpp"
#include "tilefmt/array/support/radix_sort.hpp"
#include "tilefmt/format/feature_versions.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>

#include "../../support/testing.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/zstd.hpp"

namespace test_writer {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

const fs::path data = fs::path(TILEFMT_TEST_DATA);
const fs::path twin = data / "writer" / "twin";
const fs::path twin_var = data / "writer" / "twin_var";
const fs::path twin_col = data / "writer" / "twin_col";
const fs::path twin_sparse = data / "writer" / "twin_sparse";

using IntP = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
using FloatP = filter::pipeline<filter::bitshuffle, filter::lz4<>>;

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-writer-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

/// The schema of make_twin.py, declared from the compile-time pipelines.
format::ArraySchema twin_schema() {
  return format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("rows", 1, 8, 4),
                      format::make_dimension<std::int32_t>("cols", 1, 6, 3)},
       .attributes = {
           format::make_attribute({.name = "a", .type = format::Datatype::INT32, .filters = IntP::descriptor()}),
           format::make_attribute({.name = "b", .type = format::Datatype::FLOAT64, .filters = FloatP::descriptor()})}});
}

std::int32_t a_at(std::int64_t r, std::int64_t c) { return static_cast<std::int32_t>(10 * r + c - 3 * (r * c % 5)); }
double b_at(std::int64_t r, std::int64_t c) { return static_cast<double>(r) + static_cast<double>(c) / 8.0; }

/// The values of make_twin.py in storage order.
std::pair<std::vector<std::int32_t>, std::vector<double>> twin_values(const array::dense_writer& f) {
  std::vector<std::int32_t> a;
  std::vector<double> b;
  for (std::uint64_t i = 0; i < f.cell_num(); ++i) {
    auto rc = f.cell_coordinates(i);
    a.push_back(a_at(rc[0], rc[1]));
    b.push_back(b_at(rc[0], rc[1]));
  }
  return {a, b};
}

/// The timestamp and label of a timestamped name, to write under the same name.
array::write_options same_name_as(const std::string& name) {
  auto n = format::parse_timestamped_name(name);
  return {n.t1, std::string(n.uuid)};
}

std::string only_file_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  REQUIRE(names.size() == 1);
  return names[0];
}

std::string only_dir_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  REQUIRE(names.size() == 1);
  return names[0];
}

/// Every regular file under `root`, relative to it.
std::set<std::string> files_under(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
  return out;
}

void check_same_bytes(const fs::path& ours, const fs::path& theirs) {
  auto a = tilefmt::storage::local{}.read(ours), b = tilefmt::storage::local{}.read(theirs);
  INFO(ours.string());
  CHECK(a.size() == b.size());
  std::size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  INFO("first difference at byte " << i);
  CHECK(i == n);
}

/// Every file TileDB wrote under `theirs` is under `ours` with the same
/// bytes, and there are no others.
void check_same_files(const fs::path& ours_root, const fs::path& theirs_root, std::size_t expected_files) {
  // The committed twins lack the empty folders (git keeps none); TileDB makes these.
  for (const char* d : {"__schema/__enumerations", "__commits", "__fragments", "__fragment_meta", "__meta", "__labels"})
    CHECK(fs::is_directory(ours_root / d));
  auto ours = files_under(ours_root), theirs = files_under(theirs_root);
  CHECK(theirs.size() == expected_files);
  CHECK(ours == theirs);
  for (const auto& f : theirs)
    if (ours.count(f)) check_same_bytes(ours_root / f, theirs_root / f);
}

/// Creates the array of `twin_dir` under its schema name and opens a
/// fragment over rows 1-4, cols 1-6.
array::dense_writer create_like(const fs::path& root, const fs::path& twin_dir, const format::ArraySchema& schema) {
  const std::string schema_name = only_file_in(twin_dir / "__schema");
  CHECK(array::create(root, schema, same_name_as(schema_name)) == schema_name);
  return array::dense_writer(root, {{1, 4}, {1, 6}}, array::cell_layout::storage);
}

/// Writes the twin's array under the twin's names into `root`.
void write_twin(const fs::path& root, bool compile_time) {
  const std::string frag_name = only_dir_in(twin / "__fragments");
  auto f = create_like(root, twin, twin_schema());
  auto [a, b] = twin_values(f);
  if (compile_time)
    f.set<IntP>("a", a).set<FloatP>("b", b);
  else
    f.set("a", a).set("b", b);
  CHECK(f.commit(same_name_as(frag_name)) == frag_name);
}

} // namespace

TEST_CASE("create + dense_writer write the files TileDB 2.30 wrote, byte for byte") {
  for (bool compile_time : {true, false}) {
    CAPTURE(compile_time);
    fs::path root = scratch(compile_time ? "twin-ct" : "twin-rt");
    write_twin(root, compile_time);
    check_same_files(root, twin, 5);  // schema, a0, a1, fragment metadata, commit marker
    fs::remove_all(root);
  }
}

namespace {

/// The schema of make_twin.py's twin_var.
format::ArraySchema twin_var_schema() {
  using D = format::Datatype;
  using FT = format::FilterType;
  auto var = [](std::string name, D type, bool nullable, format::FilterPipeline f = {}) {
    return format::make_attribute({.name = std::move(name),
                                   .type = type,
                                   .cell_val_num = format::var_num,
                                   .nullable = nullable,
                                   .filters = std::move(f)});
  };
  return format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("rows", 1, 8, 4),
                      format::make_dimension<std::int32_t>("cols", 1, 6, 3)},
       .attributes = {
           var("s", D::STRING_ASCII, false, format::compression_pipeline(FT::ZSTD, 1)),
           format::make_attribute(
               {.name = "n", .type = D::INT32, .nullable = true, .filters = format::compression_pipeline(FT::LZ4)}),
           var("ns", D::STRING_ASCII, true), var("nu", D::STRING_UTF8, true),
           var("r", D::STRING_ASCII, false, format::compression_pipeline(FT::RLE)),
           var("d", D::STRING_UTF8, false, format::compression_pipeline(FT::DICTIONARY)),
           format::make_attribute({.name = "c", .type = D::CHAR, .nullable = true}),
           format::make_attribute({.name = "u", .type = D::UINT8})}});
}

std::string repeat(const std::string& s, std::int64_t n) {
  std::string out;
  for (std::int64_t i = 0; i < n; ++i) out += s;
  return out;
}

/// make_twin.py's var_values() and var_validity(), in storage order.
struct var_cells {
  std::vector<std::string> s, ns, nu, r, d;
  std::vector<std::int32_t> n;
  std::vector<char> c;
  std::vector<std::uint8_t> u;
  std::vector<std::uint8_t> n_valid, ns_valid, nu_valid, c_valid;

  explicit var_cells(const array::dense_writer& f) {
    for (std::uint64_t i = 0; i < f.cell_num(); ++i) {
      auto rc = f.cell_coordinates(i);
      const std::int64_t r = rc[0], col = rc[1];
      s.push_back(repeat(std::string("r") + std::to_string(r) + "c" + std::to_string(col), 1 + (r * col) % 3));
      n.push_back(static_cast<std::int32_t>(10 * r + col));
      ns.push_back(repeat(std::string(1, "ab"[(r + col) % 2]), (r + col) % 4));
      nu.push_back(repeat("\xc3\xa9", r % 3));
      this->r.push_back(col < 4 ? "run" : "other");
      d.push_back(std::vector<std::string>{"x", "yy", "zzz"}[static_cast<std::size_t>((r * col) % 3)]);
      c.push_back("abcdef"[(r + col) % 6]);
      u.push_back(static_cast<std::uint8_t>(r * 7 + col));
      n_valid.push_back(col <= 3 && (r + col) % 3 != 0);
      ns_valid.push_back((r * col) % 4 != 0);
      nu_valid.push_back((r + 2 * col) % 5 != 0);
      c_valid.push_back((r + col) % 4 != 1);
    }
  }
};

void write_twin_var(const fs::path& root) {
  auto f = create_like(root, twin_var, twin_var_schema());
  var_cells v(f);
  f.set_var("s", v.s).set("n", v.n, v.n_valid).set_var("ns", v.ns, v.ns_valid).set_var("nu", v.nu, v.nu_valid);
  f.set_var("r", v.r).set_var("d", v.d).set("c", v.c, v.c_valid).set("u", v.u);
  CHECK(f.commit(same_name_as(only_dir_in(twin_var / "__fragments"))) == only_dir_in(twin_var / "__fragments"));
}

std::vector<std::string> strings_of(const array::var_column<char>& col) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < col.offsets.size(); ++i) {
    const std::size_t end = i + 1 < col.offsets.size() ? col.offsets[i + 1] : col.values.size();
    out.emplace_back(col.values.begin() + static_cast<std::ptrdiff_t>(col.offsets[i]),
                     col.values.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return out;
}

} // namespace

TEST_CASE("var-size and nullable attributes: the files TileDB 2.30 wrote, byte for byte") {
  fs::path root = scratch("twin-var");
  write_twin_var(root);
  // schema, commit marker, fragment metadata, 8 fixed or offsets files,
  // 5 var files, 4 validity files
  check_same_files(root, twin_var, 20);

  // What the tile metadata says, read back: the second tile of n is all
  // null and keeps zero min/max; nu (UTF-8) has no min/max and so no nulls
  // counted; ns counts them.
  auto arr = array::open(root);
  const auto& frag = arr.fragments()[0];
  var_cells v(array::dense_writer(root, {{1, 4}, {1, 6}}, array::cell_layout::storage));
  CHECK(strings_of(frag.read_var<char>("s")) == v.s);
  CHECK(strings_of(frag.read_var<char>("r")) == v.r);
  CHECK(strings_of(frag.read_var<char>("d")) == v.d);
  CHECK(strings_of(frag.read_var<char>("ns")) == v.ns);
  CHECK(std::ranges::equal(frag.read_validity("ns"), v.ns_valid));
  CHECK(std::ranges::equal(frag.read_validity("n"), v.n_valid));
  auto n = frag.read<std::int32_t>("n");
  CHECK(std::vector<std::int32_t>(n.begin(), n.end()) == v.n);
  fs::remove_all(root);
}

namespace {

const fs::path twin_dense_global = data / "writer" / "twin_dense_global";

/// twin_var's schema with b FLOAT64 [BITSHUFFLE, LZ4] (make_twin.py's twin_dense_global).
format::ArraySchema twin_dense_global_schema() {
  auto s = twin_var_schema();
  s.attributes.value.push_back(format::make_attribute(
      {.name = "b", .type = format::Datatype::FLOAT64, .filters = FloatP::descriptor()}));
  return s;
}

/// twin_dense_global's cells in global order (storage order over rows 1-4,
/// cols 1-6), cells [from, to) of them set on `w`.
struct dense_global_cells {
  var_cells v;
  std::vector<double> b;
  explicit dense_global_cells(const array::dense_writer& f) : v(f) {
    for (std::uint64_t i = 0; i < f.cell_num(); ++i) {
      auto rc = f.cell_coordinates(i);
      b.push_back(b_at(rc[0], rc[1]));
    }
  }
  template <class W>
  void set_on(W& w, std::size_t from, std::size_t to) const {
    auto cut = [&](const auto& all) { return std::vector(all.begin() + static_cast<std::ptrdiff_t>(from),
                                                         all.begin() + static_cast<std::ptrdiff_t>(to)); };
    w.set_var("s", cut(v.s)).set("n", cut(v.n), cut(v.n_valid)).set_var("ns", cut(v.ns), cut(v.ns_valid));
    w.set_var("nu", cut(v.nu), cut(v.nu_valid)).set_var("r", cut(v.r)).set_var("d", cut(v.d));
    w.set("c", cut(v.c), cut(v.c_valid)).set("u", cut(v.u)).set("b", cut(b));
  }
};

} // namespace

TEST_CASE("dense_global_order_writer: TileDB's global-order write in four submissions, byte for byte") {
  const fs::path root = scratch("dense-global");
  const std::string schema_name = only_file_in(twin_dense_global / "__schema");
  CHECK(array::create(root, twin_dense_global_schema(), same_name_as(schema_name)) == schema_name);
  const dense_global_cells cells(array::dense_writer(root, {{1, 4}, {1, 6}}, array::cell_layout::storage));
  const std::string frag_name = only_dir_in(twin_dense_global / "__fragments");
  {
    array::dense_global_order_writer w(root, {{1, 4}, {1, 6}}, same_name_as(frag_name));
    CHECK(w.cell_num() == 24);
    std::size_t at = 0;
    std::vector<std::size_t> tiles;
    for (std::size_t n : {5, 1, 9, 9}) {  // make_twin.py's DENSE_GLOBAL_SUBMISSIONS
      cells.set_on(w, at, at + n);
      w.submit();
      at += n;
      tiles.push_back(w.tile_num());
    }
    CHECK(tiles == std::vector<std::size_t>{0, 0, 1, 2});  // tiles of 12 cells, written as they fill
    CHECK(w.buffered_bytes() == 0);
    CHECK(w.finalize() == frag_name);
  }
  // schema, commit marker, fragment metadata, 9 fixed or offsets files, 5
  // var files, 4 validity files
  check_same_files(root, twin_dense_global, 21);
  fs::remove_all(root);
}

TEST_CASE("dense_global_order_writer: the same files however the cells are cut; the cells read back") {
  const array::write_options name{1700000000123, "0123456789abcdef0123456789abcdef"};
  const fs::path once = scratch("dense-global-once");
  array::create(once, twin_dense_global_schema(), name);  // the same schema name in every array
  const dense_global_cells cells(array::dense_writer(once, {{1, 8}, {1, 6}}, array::cell_layout::storage));
  {
    array::dense_global_order_writer w(once, {{1, 8}, {1, 6}}, name);
    cells.set_on(w, 0, 48);
    w.submit();
    w.finalize();
  }
  const auto frag = "__fragments/" + only_dir_in(once / "__fragments");
  for (const std::vector<std::size_t>& cuts : {std::vector<std::size_t>{1, 11, 12, 24}, {13, 13, 13, 9},
                                               std::vector<std::size_t>(48, 1)}) {
    const fs::path root = scratch("dense-global-cut");
    array::create(root, twin_dense_global_schema(), name);
    array::dense_global_order_writer w(root, {{1, 8}, {1, 6}}, name);
    std::size_t at = 0;
    for (std::size_t n : cuts) {
      cells.set_on(w, at, at + n);
      w.submit();
      at += n;
      // Never more than the partly filled tile between submissions.
      CHECK(w.buffered_bytes() < 12 * 200);
      CHECK(w.tile_num() == at / 12);
    }
    w.finalize();
    CHECK(files_under(root / frag) == files_under(once / frag));
    for (const auto& f : files_under(once / frag)) {
      INFO(f);
      check_same_bytes(root / frag / f, once / frag / f);
    }
    fs::remove_all(root);
  }
  // Read back through the query layer, row-major over the whole domain.
  const auto r = array::open(once).query().read();
  const auto b = r.get<double>("b");
  std::vector<double> want(48);
  for (std::int64_t row = 1; row <= 8; ++row)
    for (std::int64_t col = 1; col <= 6; ++col) want[static_cast<std::size_t>((row - 1) * 6 + col - 1)] = b_at(row, col);
  CHECK(std::vector<double>(b.begin(), b.end()) == want);
  fs::remove_all(once);
}

TEST_CASE("dense_global_order_writer: what TileDB refuses is refused, and a refused submission writes nothing") {
  const fs::path root = scratch("dense-global-bad");
  array::create(root, twin_dense_global_schema());
  // Not whole space tiles (rows extent 4, cols extent 3 from 1), outside the domain, a sparse array.
  CHECK_THROWS_WITH_AS(array::dense_global_order_writer(root, {{1, 4}, {2, 4}}),
                       doctest::Contains("does not consist of whole tiles of extent 3"), std::invalid_argument);
  CHECK_THROWS_AS(array::dense_global_order_writer(root, {{1, 12}, {1, 6}}), std::invalid_argument);
  CHECK_THROWS_AS(array::dense_global_order_writer(root, {{1, 4}}), std::invalid_argument);
  const dense_global_cells cells(array::dense_writer(root, {{1, 4}, {1, 6}}, array::cell_layout::storage));
  {
    array::dense_global_order_writer w(root, {{1, 4}, {1, 6}});
    // An attribute left out; attributes of different cell counts.
    w.set("u", std::vector<std::uint8_t>(5));
    CHECK_THROWS_WITH_AS(w.submit(), doctest::Contains("attribute \"s\" has no cells"), std::invalid_argument);
    CHECK(w.submitted() == 0);
    w.set("u", std::vector<std::uint8_t>(5));
    CHECK_THROWS_WITH_AS(w.set("b", std::vector<double>(4)), doctest::Contains("needs 5 values (5 cells), got 4"),
                         std::invalid_argument);
    CHECK_THROWS_AS(w.submit(), std::invalid_argument);  // u alone: refused, the submission dropped
    // More cells than the subarray has left: refused, and the writer goes on.
    cells.set_on(w, 0, 20);
    w.submit();
    cells.set_on(w, 0, 5);
    CHECK_THROWS_WITH_AS(w.submit(), doctest::Contains("the subarray has 4 left of its 24"), std::invalid_argument);
    CHECK(w.submitted() == 20);
    // Short of the subarray: TileDB refuses to finalize.
    CHECK_THROWS_WITH_AS(w.finalize(), doctest::Contains("20 cells written, the subarray has 24"),
                         std::invalid_argument);
    cells.set_on(w, 20, 22);
    CHECK_THROWS_AS(w.finalize(), std::logic_error);  // set, not submitted
    w.submit();
    cells.set_on(w, 22, 24);
    w.submit();
    w.finalize();
    CHECK_THROWS_AS(w.submit(), std::logic_error);
  }
  auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 1);
  auto u = arr.fragments()[0].read<std::uint8_t>("u");
  CHECK(std::vector<std::uint8_t>(u.begin(), u.end()) == cells.v.u);
  {
    // Dropped unfinished: no fragment, nothing left of it.
    array::dense_global_order_writer w(root, {{5, 8}, {1, 6}});
    cells.set_on(w, 0, 12);
    w.submit();
    CHECK(w.tile_num() == 1);
  }
  CHECK(array::open(root).fragments().size() == 1);
  CHECK(files_under(root / "__fragments").size() == files_under(root / "__fragments" / only_dir_in(root / "__fragments")).size());
  fs::remove_all(root);
}

namespace {

/// The schema of make_twin.py's twin_col.
format::ArraySchema twin_col_schema() {
  using D = format::Datatype;
  auto s = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("rows", 1, 8, 2),
                      format::make_dimension<std::int32_t>("cols", 1, 6, 3)},
       .attributes = {format::make_attribute({.name = "s",
                                              .type = D::STRING_ASCII,
                                              .cell_val_num = format::var_num,
                                              .filters = format::compression_pipeline(format::FilterType::ZSTD, 1)}),
                      format::make_attribute(
                          {.name = "ns", .type = D::STRING_ASCII, .cell_val_num = format::var_num, .nullable = true}),
                      format::make_attribute({.name = "p", .type = D::INT32, .cell_val_num = 2, .nullable = true}),
                      format::make_attribute({.name = "f", .type = D::FLOAT64, .nullable = true})}});
  s.cell_order = format::Layout::COL_MAJOR;
  s.tile_order = format::Layout::COL_MAJOR;
  return s;
}

} // namespace

TEST_CASE("column-major cells, more tiles than attributes: the files TileDB 2.30 wrote, byte for byte") {
  fs::path root = scratch("twin-col");
  const std::string schema_name = only_file_in(twin_col / "__schema");
  CHECK(array::create(root, twin_col_schema(), same_name_as(schema_name)) == schema_name);
  array::dense_writer f(root, {{1, 8}, {1, 6}}, array::cell_layout::storage);
  CHECK(f.tile_num() == 8);
  std::vector<std::string> s, ns;
  std::vector<std::int32_t> p;
  std::vector<double> fv;
  std::vector<std::uint8_t> ns_valid, p_valid, f_valid;
  for (std::uint64_t i = 0; i < f.cell_num(); ++i) {
    auto rc = f.cell_coordinates(i);
    const std::int64_t r = rc[0], c = rc[1];
    s.push_back(repeat(std::string("c") + std::to_string(c), 1 + r % 2));
    ns.push_back(std::string(static_cast<std::size_t>((r * c) % 3), 'q'));
    p.push_back(static_cast<std::int32_t>(r));
    p.push_back(static_cast<std::int32_t>(c));
    fv.push_back(r == 3 && c == 2   ? std::nan("")
                 : r == 5 && c == 5 ? -std::numeric_limits<double>::infinity()
                                    : static_cast<double>(r) + static_cast<double>(c) / 4.0);
    ns_valid.push_back((r + c) % 3 != 0);
    p_valid.push_back((r * c) % 5 != 1);
    f_valid.push_back((r + 2 * c) % 4 != 0);
  }
  f.set_var("s", s).set_var("ns", ns, ns_valid).set("p", p, p_valid).set("f", fv, f_valid);
  const std::string frag_name = only_dir_in(twin_col / "__fragments");
  CHECK(f.commit(same_name_as(frag_name)) == frag_name);
  check_same_files(root, twin_col, 12);
  fs::remove_all(root);
}

namespace {

/// The schema of make_twin.py's twin_sparse.
format::ArraySchema twin_sparse_schema() {
  using D = format::Datatype;
  auto s = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int32_t>("x", 1, 100, 10),
                      format::make_dimension<std::int64_t>("y", -50, 49, 25)},
       .attributes = {
           format::make_attribute(
               {.name = "a", .type = D::INT32, .filters = format::compression_pipeline(format::FilterType::ZSTD, 1)}),
           format::make_attribute({.name = "f", .type = D::FLOAT64, .nullable = true}),
           format::make_attribute({.name = "s", .type = D::STRING_ASCII, .cell_val_num = format::var_num})}});
  s.capacity = 4;
  return s;
}

/// make_twin.py's sparse_cells(), in the order written.
struct sparse_cells {
  std::vector<std::int32_t> x, a;
  std::vector<std::int64_t> y;
  std::vector<double> f;
  std::vector<std::uint8_t> f_valid;
  std::vector<std::string> s;
  sparse_cells() {
    for (int i = 0; i < 23; ++i) {
      x.push_back((i * 37) % 100 + 1);
      y.push_back(((i * 53) % 100) - 50);
      a.push_back(i * 3 - 20);
      f.push_back(i / 4.0);
      f_valid.push_back(i % 5 != 2);
      s.push_back(repeat(std::string("v") + std::to_string(i * 7 % 11), 1 + i % 3));
    }
  }
};

array::sparse_writer sparse_twin_fragment(const fs::path& root) {
  const std::string schema_name = only_file_in(twin_sparse / "__schema");
  CHECK(array::create(root, twin_sparse_schema(), same_name_as(schema_name)) == schema_name);
  return array::sparse_writer(root);
}

} // namespace

TEST_CASE("sparse fragments: the files TileDB 2.30 wrote, byte for byte") {
  fs::path root = scratch("twin-sparse");
  auto f = sparse_twin_fragment(root);
  sparse_cells c;
  f.set_coords("x", c.x).set_coords("y", c.y).set("a", c.a).set("f", c.f, c.f_valid).set_var("s", c.s);
  CHECK(f.cell_num() == 23);
  const std::string frag_name = only_dir_in(twin_sparse / "__fragments");
  CHECK(f.commit(same_name_as(frag_name)) == frag_name);
  // schema, commit marker, fragment metadata, a0, a1 + validity, a2 + var, d0, d1
  check_same_files(root, twin_sparse, 10);

  // Read back: the cells in global order, the R-tree's leaves one per data tile.
  auto arr = array::open(root);
  const auto& frag = arr.fragments()[0];
  CHECK_FALSE(frag.dense());
  CHECK(frag.tile_num() == 6);
  auto xs = frag.read<std::int32_t>("x");
  auto ys = frag.read<std::int64_t>("y");
  auto as = frag.read<std::int32_t>("a");
  REQUIRE(xs.size() == 23);
  for (std::size_t k = 0; k < 23; ++k) {
    // The value written with these coordinates.
    std::size_t i = 0;
    while (i < 23 && !(c.x[i] == xs[k] && c.y[i] == ys[k])) ++i;
    REQUIRE(i < 23);
    CHECK(as[k] == c.a[i]);
    if (k) CHECK((xs[k - 1] - 1) / 10 <= (xs[k] - 1) / 10);  // space tiles of x (extent 10 from 1) in row-major order
  }
  fs::remove_all(root);
}

TEST_CASE("sparse fragments: the same files with any thread count, attributes set before or after the coordinates") {
  sparse_cells c;
  const std::string frag_name = only_dir_in(twin_sparse / "__fragments");
  for (int variant = 0; variant < 3; ++variant) {
    INFO("variant " << variant);
    fs::path root = scratch("sparse-threads-" + std::to_string(variant));
    auto f = sparse_twin_fragment(root);
    if (variant == 0) {
      f.threads(1).set_coords("x", c.x).set_coords("y", c.y).set("a", c.a).set("f", c.f, c.f_valid).set_var("s", c.s);
    } else if (variant == 1) {  // attributes kept until the coordinates are there
      f.threads(3).set("a", c.a).set("f", c.f, c.f_valid).set_var("s", c.s).set_coords("x", c.x).set_coords("y", c.y);
    } else {  // attributes encoded as they are set: the coordinates cannot change any more
      f.threads(3).set_coords("x", c.x).set_coords("y", c.y).set("a", c.a).set("f", c.f, c.f_valid).set_var("s", c.s);
      CHECK_THROWS_AS(f.set_coords("x", c.x), std::logic_error);
    }
    CHECK(f.commit(same_name_as(frag_name)) == frag_name);
    check_same_files(root, twin_sparse, 10);
    fs::remove_all(root);
  }
}

TEST_CASE("radix_sort: stable, by a range of bits, on one or several threads") {
  std::vector<std::uint64_t> v(300000);
  std::uint64_t state = 12345;
  for (auto& x : v) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x = state >> 3;  // keys of few distinct values below, to test stability
  }
  for (unsigned threads : {1u, 4u})
    for (const auto& bits : {std::pair{0, 64}, std::pair{20, 43}, std::pair{5, 7}}) {
      const int from = bits.first, to = bits.second;
      auto ours = v, want = v;
      array::detail::radix_sort(ours, from, to, threads);
      const std::uint64_t mask = to - from == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (to - from)) - 1;
      std::stable_sort(want.begin(), want.end(),
                       [&](std::uint64_t p, std::uint64_t q) { return ((p >> from) & mask) < ((q >> from) & mask); });
      INFO("threads " << threads << ", bits " << from << "-" << to);
      CHECK(ours == want);
    }
}

TEST_CASE("dense fragments: cells given row-major are stored as the same cells given in storage order") {
  using D = format::Datatype;
  using L = format::Layout;
  for (L tile_order : {L::ROW_MAJOR, L::COL_MAJOR})
    for (L cell_order : {L::ROW_MAJOR, L::COL_MAJOR}) {
      auto schema = format::make_array_schema(
          {.type = format::ArrayType::DENSE,
           .dimensions = {format::make_dimension<std::int32_t>("rows", 1, 12, 4),
                          format::make_dimension<std::int32_t>("cols", 1, 10, 5)},
           .attributes = {format::make_attribute({.name = "a", .type = D::INT32, .filters = IntP::descriptor()}),
                          format::make_attribute({.name = "n", .type = D::FLOAT64, .nullable = true})},
           .tile_order = tile_order,
           .cell_order = cell_order});
      fs::path rows_root = scratch("rows"), storage_root = scratch("storage");
      array::create(rows_root, schema, {.timestamp = 1, .label = std::string(32, 'a')});
      array::create(storage_root, schema, {.timestamp = 1, .label = std::string(32, 'a')});
      auto value = [](std::int64_t r, std::int64_t c) { return static_cast<std::int32_t>(100 * r + c); };
      std::vector<std::int32_t> a_rows, a_storage;
      std::vector<double> n_rows, n_storage;
      std::vector<std::uint8_t> v_rows, v_storage;
      for (std::int64_t r = 1; r <= 12; ++r)
        for (std::int64_t c = 1; c <= 10; ++c) {
          a_rows.push_back(value(r, c));
          n_rows.push_back(static_cast<double>(r) / 4.0 - static_cast<double>(c));
          v_rows.push_back((r + c) % 3 != 0);
        }
      array::dense_writer by_rows(rows_root, {{1, 12}, {1, 10}}, array::cell_layout::row_major);
      array::dense_writer stored(storage_root, {{1, 12}, {1, 10}}, array::cell_layout::storage);
      for (std::uint64_t i = 0; i < stored.cell_num(); ++i) {
        const auto rc = stored.cell_coordinates(i);
        const std::size_t k = static_cast<std::size_t>((rc[0] - 1) * 10 + rc[1] - 1);
        a_storage.push_back(a_rows[k]);
        n_storage.push_back(n_rows[k]);
        v_storage.push_back(v_rows[k]);
      }
      by_rows.threads(1).set<IntP>("a", a_rows).set("n", n_rows, v_rows);
      stored.threads(3).set<IntP>("a", a_storage).set("n", n_storage, v_storage);
      const array::write_options name{.timestamp = 2, .label = std::string(32, 'b')};
      CHECK(by_rows.commit(name) == stored.commit(name));
      const auto frag = only_dir_in(rows_root / "__fragments");
      for (const auto& f : files_under(rows_root / "__fragments" / frag))
        check_same_bytes(rows_root / "__fragments" / frag / f, storage_root / "__fragments" / frag / f);
      fs::remove_all(rows_root);
      fs::remove_all(storage_root);
    }
}

TEST_CASE("sparse fragments: cells TileDB refuses are refused, and nothing is written") {
  fs::path root = scratch("sparse-bad");
  auto f = sparse_twin_fragment(root);
  sparse_cells c;
  CHECK_THROWS_AS(f.set_coords("x", c.y), std::invalid_argument);                       // int64 for an int32 dimension
  CHECK_THROWS_AS(f.set_coords("z", c.x), std::invalid_argument);                       // no such dimension
  f.set_coords("x", c.x);
  CHECK_THROWS_AS(f.set_coords("y", std::vector<std::int64_t>(22, 0)), std::invalid_argument);  // 22 cells, not 23
  f.set_coords("y", c.y).set("a", c.a).set("f", c.f, c.f_valid);
  CHECK_THROWS_AS(f.commit(), std::invalid_argument);  // "s" has no cells
  f.set_var("s", c.s);
  {
    auto g = array::sparse_writer(root);  // the same cell twice
    auto x = c.x;
    auto y = c.y;
    x[5] = x[9];
    y[5] = y[9];
    g.set_coords("x", x).set_coords("y", y).set("a", c.a).set("f", c.f, c.f_valid).set_var("s", c.s);
    CHECK_THROWS_AS(g.commit(), std::invalid_argument);
  }
  {
    auto g = array::sparse_writer(root);  // outside the domain
    auto x = c.x;
    x[3] = 101;
    g.set_coords("x", x).set_coords("y", c.y).set("a", c.a).set("f", c.f, c.f_valid).set_var("s", c.s);
    CHECK_THROWS_AS(g.commit(), std::invalid_argument);
  }
  CHECK(array::list_array(root).fragments.empty());
  CHECK_NOTHROW(f.commit());
  CHECK(array::list_array(root).fragments.size() == 1);
  CHECK_THROWS_AS(array::dense_writer(root, {{1, 10}, {-50, -26}}, array::cell_layout::storage),
                  std::invalid_argument); // the array is sparse
  fs::remove_all(root);
}

TEST_CASE("var-size and nullable attributes: bad cells are refused") {
  fs::path root = scratch("var-bad");
  auto f = create_like(root, twin_var, twin_var_schema());
  var_cells v(f);
  auto refused = [](auto&& call) { CHECK_THROWS_AS(call(), std::invalid_argument); };
  refused([&] { f.set("s", v.u); });                          // var attribute through set
  refused([&] { f.set_var("u", v.s); });                      // fixed attribute through set_var
  refused([&] { f.set("n", v.n); });                          // nullable without validity
  refused([&] { f.set("u", v.u, v.c_valid); });               // validity for a non-nullable attribute
  refused([&] { f.set("n", v.n, std::vector<std::uint8_t>(3, 1)); });  // validity of the wrong length
  std::vector<char> chars{'a', 'b', 'c'};
  std::vector<std::uint64_t> offsets(24, 0);
  offsets[5] = 2;
  offsets[6] = 1;  // decreasing
  refused([&] { f.set_var<char>("s", std::span<const char>(chars), std::span<const std::uint64_t>(offsets)); });
  offsets[6] = 4;  // past the values
  refused([&] { f.set_var<char>("s", std::span<const char>(chars), std::span<const std::uint64_t>(offsets)); });
  offsets.assign(24, 1);  // the first is not 0
  refused([&] { f.set_var<char>("s", std::span<const char>(chars), std::span<const std::uint64_t>(offsets)); });
  offsets.assign(23, 0);  // one per cell
  refused([&] { f.set_var<char>("s", std::span<const char>(chars), std::span<const std::uint64_t>(offsets)); });
  // Nothing was written: the fragment commits only whole.
  CHECK_THROWS_AS(f.commit(), std::invalid_argument);
  CHECK(array::list_array(root).fragments.empty());
  fs::remove_all(root);
}

TEST_CASE("a written array reads back: values, non-empty domain, tile metadata") {
  fs::path root = scratch("roundtrip");
  write_twin(root, true);
  auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 1);
  const auto& f = arr.fragments()[0];
  CHECK(f.dense());
  CHECK(f.format_version() == 22);
  CHECK(f.tile_num() == 2);
  CHECK(f.cell_num() == 24);
  CHECK(f.non_empty_domain().ranges[0].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 4});
  CHECK(f.non_empty_domain().ranges[1].as<std::int32_t>() == std::pair<std::int32_t, std::int32_t>{1, 6});
  auto a = f.read<std::int32_t>("a");
  auto b = f.read<double>("b");
  REQUIRE(a.size() == 24);
  REQUIRE(b.size() == 24);
  // Storage order: tile (rows 1-4, cols 1-3), then tile (rows 1-4, cols 4-6), row-major inside.
  CHECK(a[0] == a_at(1, 1));
  CHECK(a[1] == a_at(1, 2));
  CHECK(a[3] == a_at(2, 1));
  CHECK(a[12] == a_at(1, 4));
  CHECK(a[23] == a_at(4, 6));
  CHECK(b[23] == b_at(4, 6));
  // The same reader over TileDB's own twin gives the same cells.
  auto t = array::open(twin);
  auto ta = t.fragments()[0].read<std::int32_t>("a");
  auto tb = t.fragments()[0].read<double>("b");
  CHECK(std::vector<std::int32_t>(a.begin(), a.end()) == std::vector<std::int32_t>(ta.begin(), ta.end()));
  CHECK(std::vector<double>(b.begin(), b.end()) == std::vector<double>(tb.begin(), tb.end()));
  fs::remove_all(root);
}

TEST_CASE("fragments of several writes, column-major orders, a 1D uint16 array") {
  fs::path root = scratch("orders");
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int64_t>("x", -10, 9, 5),
                      format::make_dimension<std::int64_t>("y", 0, 3, 2)},
       .attributes = {
           format::make_attribute({.name = "v", .type = format::Datatype::INT64, .filters = IntP::descriptor()}),
           format::make_attribute({.name = "w", .type = format::Datatype::CHAR, .cell_val_num = 2})}});
  schema.tile_order = format::Layout::COL_MAJOR;
  schema.cell_order = format::Layout::COL_MAJOR;
  array::create(root, schema, {.timestamp = 1000});
  array::dense_writer f1(root, {{-10, -1}, {0, 3}}, array::cell_layout::storage);
  CHECK(f1.tile_num() == 4);
  CHECK(f1.cells_per_tile() == 10);
  // Column-major: x fastest inside a tile, and the first tiles go down x.
  CHECK(f1.cell_coordinates(0) == std::vector<std::int64_t>{-10, 0});
  CHECK(f1.cell_coordinates(1) == std::vector<std::int64_t>{-9, 0});
  CHECK(f1.cell_coordinates(5) == std::vector<std::int64_t>{-10, 1});
  CHECK(f1.cell_coordinates(10) == std::vector<std::int64_t>{-5, 0});
  CHECK(f1.cell_coordinates(20) == std::vector<std::int64_t>{-10, 2});
  std::vector<std::int64_t> v;
  std::vector<char> w;
  for (std::uint64_t i = 0; i < f1.cell_num(); ++i) {
    auto c = f1.cell_coordinates(i);
    v.push_back(c[0] * 100 + c[1]);
    w.push_back(static_cast<char>('a' + (c[0] + 10)));
    w.push_back(static_cast<char>('A' + c[1]));
  }
  f1.set<IntP>("v", v).set("w", w);
  auto n1 = f1.commit({.timestamp = 2000});
  array::dense_writer f2(root, {{0, 4}, {2, 3}}, array::cell_layout::storage);
  std::vector<std::int64_t> v2(10, 7);
  std::vector<char> w2(20, 'z');
  f2.set("v", v2).set("w", w2);
  auto n2 = f2.commit({.timestamp = 3000});
  CHECK(n1 < n2);

  auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 2);
  auto rv = arr.fragments()[0].read<std::int64_t>("v");
  CHECK(std::vector<std::int64_t>(rv.begin(), rv.end()) == v);
  auto rw = arr.fragments()[0].read<char>("w");
  CHECK(std::vector<char>(rw.begin(), rw.end()) == w);
  auto rv2 = arr.fragments()[1].read<std::int64_t>("v");
  CHECK(std::vector<std::int64_t>(rv2.begin(), rv2.end()) == v2);
  // Opening before the second write sees only the first.
  CHECK(array::open(root, {.timestamp_end = 2500}).fragments().size() == 1);
  fs::remove_all(root);
}

TEST_CASE("tile metadata follows TileDB's expressions: NaN, saturated sums, strings") {
  using array::detail::compute_tile_stats;
  // Tiles hold little-endian values, whatever the host's order.
  auto bytes = [](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    std::vector<std::byte> out(v.size() * sizeof(T));
    for (std::size_t i = 0; i < v.size(); ++i) codec::store_le<T>(out.data() + i * sizeof(T), v[i]);
    return out;
  };
  {
    // min = (min < v) ? min : v: a NaN replaces the running min and max, and later values compare false against it.
    std::vector<double> v{2.0, std::nan(""), 1.0};
    auto st = compute_tile_stats(format::Datatype::FLOAT64, 1, bytes(v), 8);
    CHECK(codec::load_le<double>(st.min.data()) == 1.0);
    CHECK(codec::load_le<double>(st.max.data()) == 1.0);
  }
  {
    std::vector<std::int64_t> v{std::numeric_limits<std::int64_t>::max(), 1, -5};
    auto st = compute_tile_stats(format::Datatype::INT64, 1, bytes(v), 8);
    CHECK(format::sum_as<std::int64_t>(st.sum) == std::numeric_limits<std::int64_t>::max());
  }
  {
    std::vector<std::uint8_t> v{250, 3, 9};
    auto st = compute_tile_stats(format::Datatype::UINT8, 1, bytes(v), 1);
    CHECK(format::sum_as<std::uint64_t>(st.sum) == 262);
    CHECK(std::to_integer<int>(st.min[0]) == 3);
    CHECK(std::to_integer<int>(st.max[0]) == 250);
  }
  {
    std::string s = "mmaazz";
    std::vector<std::byte> b(reinterpret_cast<const std::byte*>(s.data()), reinterpret_cast<const std::byte*>(s.data()) + s.size());
    auto st = compute_tile_stats(format::Datatype::CHAR, 2, b, 2);
    CHECK(st.min == std::vector<std::byte>{std::byte{'a'}, std::byte{'a'}});
    CHECK(st.max == std::vector<std::byte>{std::byte{'z'}, std::byte{'z'}});
    CHECK(st.sum == 0);  // no sums for cells of two values
  }
  {
    std::vector<std::int32_t> v{1, 2, 3, 4};  // two cells of two values: no min/max, no sum
    auto st = compute_tile_stats(format::Datatype::INT32, 2, bytes(v), 8);
    CHECK_FALSE(array::detail::has_min_max(format::Datatype::INT32, 2));
    CHECK(st.min == std::vector<std::byte>(8, std::byte{0}));  // what TileDB's buffer holds; not stored
    CHECK(st.sum == 0);
  }
}

TEST_CASE("bad input is refused with std::invalid_argument before a fragment is written") {
  fs::path root = scratch("errors");
  array::create(root, twin_schema(), {.timestamp = 5});
  // An existing array is not created over.
  CHECK_THROWS_AS(array::create(root, twin_schema()), array::io_error);
  // Subarrays: not whole tiles, outside the domain, empty, wrong rank.
  CHECK_THROWS_AS(array::dense_writer(root, {{1, 3}, {1, 6}}, array::cell_layout::storage), std::invalid_argument);
  CHECK_THROWS_AS(array::dense_writer(root, {{2, 5}, {1, 6}}, array::cell_layout::storage), std::invalid_argument);
  CHECK_THROWS_AS(array::dense_writer(root, {{1, 12}, {1, 6}}, array::cell_layout::storage), std::invalid_argument);
  CHECK_THROWS_AS(array::dense_writer(root, {{0, 3}, {1, 6}}, array::cell_layout::storage), std::invalid_argument);
  CHECK_THROWS_AS(array::dense_writer(root, {{4, 1}, {1, 6}}, array::cell_layout::storage), std::invalid_argument);
  CHECK_THROWS_AS(array::dense_writer(root, {{1, 4}}, array::cell_layout::storage), std::invalid_argument);
  array::dense_writer f(root, {{1, 4}, {1, 3}}, array::cell_layout::storage);
  std::vector<std::int32_t> a(12, 1);
  std::vector<double> b(12, 0.5);
  CHECK_THROWS_AS(f.set("a", std::vector<std::int32_t>(11)), std::invalid_argument);    // cell count
  CHECK_THROWS_AS(f.set("a", std::vector<std::int64_t>(12)), std::invalid_argument);    // value size
  CHECK_THROWS_AS(f.set("nope", a), std::invalid_argument);                             // no such attribute
  CHECK_THROWS_AS(f.set<FloatP>("a", a), std::invalid_argument);                        // not the declared pipeline
  using OtherLevel = filter::pipeline<filter::byteshuffle, filter::zstd<3>>;
  CHECK_THROWS_AS(f.set<OtherLevel>("a", a), std::invalid_argument);
  f.set<IntP>("a", a);
  CHECK_THROWS_AS(f.commit(), std::invalid_argument);  // b missing
  f.set("b", b);
  CHECK_THROWS_AS(f.commit({.timestamp = 9, .label = std::string("xyz")}), std::invalid_argument);
  CHECK_THROWS_AS(f.commit({.timestamp = 9, .label = std::string(32, 'A')}), std::invalid_argument);
  CHECK(array::open(root).fragments().empty());
  auto name = f.commit({.timestamp = 9});
  CHECK(format::parse_timestamped_name(name).t1 == 9);
  CHECK_THROWS_AS(f.commit(), std::logic_error);
  CHECK_THROWS_AS(f.set("b", b), std::logic_error);
  CHECK(array::open(root).fragments().size() == 1);
  fs::remove_all(root);

  // Schemas this writer or TileDB refuses.
  auto bad = [](auto&& edit) {
    auto s = twin_schema();
    edit(s);
    return s;
  };
  fs::path r2 = scratch("errors-schema");
  CHECK_THROWS_AS(array::create(r2, bad([](auto& s) { s.attributes.value.clear(); })), std::invalid_argument);
  CHECK_THROWS_AS(array::create(r2, bad([](auto& s) { s.attributes.value[1].name.value = "a"; })), std::invalid_argument);
  CHECK_THROWS_AS(array::create(r2, bad([](auto& s) { s.attributes.value[1].name.value = "rows"; })), std::invalid_argument);
  CHECK_THROWS_AS(array::create(r2, bad([](auto& s) { s.domain.dimensions.value[0].null_tile_extent = 1; s.domain.dimensions.value[0].tile_extent.value.clear(); })),
                  std::invalid_argument);
  CHECK_THROWS_AS(array::create(r2, bad([](auto& s) {
                    s.domain.dimensions.value[1] = format::make_dimension<double>("cols", 0, 1, 0.5);
                  })),
                  std::invalid_argument);
  CHECK_THROWS_AS(array::create(r2, bad([](auto& s) {
                    s.domain.dimensions.value[1] = format::make_dimension<std::int64_t>("cols", 1, 6, 3);
                  })),
                  std::invalid_argument);
  CHECK_THROWS_AS(array::create(r2, twin_schema(), {.label = std::string("not hex")}), std::invalid_argument);
  CHECK_FALSE(fs::exists(r2));

  // Sparse arrays: created, but written by sparse_writer, not dense_writer.
  auto sparse = twin_schema();
  sparse.array_type = format::ArrayType::SPARSE;
  array::create(r2, sparse);
  CHECK_THROWS_AS(array::dense_writer(r2, {{1, 4}, {1, 6}}, array::cell_layout::storage), std::invalid_argument);
  fs::remove_all(r2);
  CHECK_THROWS_AS(array::dense_writer(r2, {{1, 4}, {1, 6}}, array::cell_layout::storage),
                  array::io_error); // no array
}

TEST_CASE("labels: 32 lowercase hex digits, in creation order within a millisecond") {
  auto l1 = array::detail::random_label(77), l2 = array::detail::random_label(77);
  CHECK(l1.size() == 32);
  CHECK(format::detail::is_hex_label(l1));
  CHECK(l1.substr(0, 8) < l2.substr(0, 8));
  CHECK(l1.substr(8) != l2.substr(8));
}

TEST_CASE("dense fragments over partial tiles, cells in row-major order: the files TileDB 2.30 wrote") {
  const fs::path twin_partial = data / "writer" / "twin_partial";
  fs::path root = scratch("twin-partial");
  using D = format::Datatype;
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("rows", 1, 8, 4),
                      format::make_dimension<std::int32_t>("cols", 1, 6, 3)},
       .attributes = {
           format::make_attribute(
               {.name = "a", .type = D::INT32, .filters = format::compression_pipeline(format::FilterType::ZSTD, 1)}),
           format::make_attribute({.name = "n", .type = D::FLOAT64, .nullable = true}),
           format::make_attribute(
               {.name = "s", .type = D::STRING_ASCII, .cell_val_num = format::var_num, .nullable = true})}});
  const std::string schema_name = only_file_in(twin_partial / "__schema");
  CHECK(array::create(root, schema, same_name_as(schema_name)) == schema_name);
  CHECK_THROWS_AS(array::dense_writer(root, {{2, 6}, {2, 5}}, array::cell_layout::storage),
                  std::invalid_argument); // storage order needs whole tiles
  array::dense_writer f(root, {{2, 6}, {2, 5}}, array::cell_layout::row_major);
  CHECK(f.tile_num() == 4);
  CHECK(f.cell_num() == 20);
  // make_twin.py's partial_cells(), row-major over rows 2-6, cols 2-5.
  std::vector<std::int32_t> a;
  std::vector<double> n;
  std::vector<std::string> s;
  std::vector<std::uint8_t> n_valid, s_valid;
  for (std::uint64_t i = 0; i < f.cell_num(); ++i) {
    auto rc = f.cell_coordinates(i);
    const std::int64_t r = rc[0], c = rc[1];
    CHECK(rc == std::vector<std::int64_t>{2 + static_cast<std::int64_t>(i / 4), 2 + static_cast<std::int64_t>(i % 4)});
    a.push_back(static_cast<std::int32_t>(100 * r + c));
    n.push_back(static_cast<double>(r) - static_cast<double>(c) / 8.0);
    n_valid.push_back((r + c) % 4 != 0);
    s.push_back(std::string(static_cast<std::size_t>((r * c) % 5), 'p'));
    s_valid.push_back((r * c) % 3 != 0);
  }
  f.set("a", a).set("n", n, n_valid).set_var("s", s, s_valid);
  const std::string frag_name = only_dir_in(twin_partial / "__fragments");
  CHECK(f.commit(same_name_as(frag_name)) == frag_name);
  check_same_files(root, twin_partial, 9);
  fs::remove_all(root);
}

// ---------------------------------------------------------------------------
// Older format versions (5-22): the folders and files each libtiledb made,
// byte for byte where tests/data/releases has that release's own array.

TEST_CASE("create at every format version 5-22: the folders that version's libtiledb made, fragments at that version") {
  for (std::uint32_t v = format::oldest_written_version; v <= format::written_version; ++v) {
    CAPTURE(v);
    const fs::path root = scratch("v" + std::to_string(v));
    auto schema = format::make_array_schema(
        {.type = format::ArrayType::DENSE,
         .dimensions = {format::make_dimension<std::int64_t>("d", 0, 15, 4)},
         .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::UINT16}),
                        format::make_attribute({.name = "s",
                                                .type = format::Datatype::STRING_ASCII,
                                                .cell_val_num = format::var_num,
                                                .filters = format::compression_pipeline(format::FilterType::ZSTD, 1)})}});
    const std::string schema_name = array::create(root, schema, {.timestamp = 1600000000000, .format_version = v});
    CHECK((schema_name == "__array_schema.tdb") == (v < 10));
    CHECK(fs::is_regular_file(root / (v < 10 ? fs::path("__array_schema.tdb") : fs::path("__schema") / schema_name)));
    CHECK(fs::exists(root / "__lock.tdb") == (v < 11));
    CHECK(fs::is_directory(root / "__fragments") == (v >= 12));
    CHECK(fs::is_directory(root / "__labels") == (v >= 18));
    CHECK(fs::is_directory(root / "__schema" / "__enumerations") == (v >= 20));

    std::vector<std::uint16_t> a(16);
    std::vector<std::string> s(16);
    for (std::size_t i = 0; i < 16; ++i) {
      a[i] = static_cast<std::uint16_t>(i * 3);
      s[i] = std::string(i % 4, static_cast<char>('a' + i));
    }
    const std::string name = array::dense_writer(root, {{0, 15}}, array::cell_layout::storage)
                                 .set("a", a)
                                 .set_var("s", s)
                                 .commit({.timestamp = 1600000000001});
    const format::TimestampedName n = format::parse_timestamped_name(name);
    CHECK(n.version == v);
    CHECK(fs::is_regular_file(v >= 12 ? root / "__commits" / (name + ".wrt") : root / (name + ".ok")));
    CHECK(fs::is_directory(v >= 12 ? root / "__fragments" / name : root / name));
    // The one folder a fragment name names (the write streamed its files
    // from a provisional one, moved at commit).
    std::size_t fragment_folders = 0;
    for (const auto& e : fs::directory_iterator(v >= 12 ? root / "__fragments" : root))
      fragment_folders += e.is_directory() && format::is_timestamped_name(e.path().filename().string());
    CHECK(fragment_folders == 1);
    // Data files by attribute name before 9, by index from 9 (as format/data_files.hpp says).
    CHECK(fs::is_regular_file((v >= 12 ? root / "__fragments" / name : root / name) / (v < 9 ? "a.tdb" : "a0.tdb")));

    const auto arr = array::open(root);
    CHECK(arr.schema().version.value == v);
    REQUIRE(arr.fragments().size() == 1);
    CHECK(arr.fragments()[0].format_version() == v);
    const auto r = arr.query().read();
    const auto got = r.get<std::uint16_t>("a");
    CHECK(std::vector<std::uint16_t>(got.begin(), got.end()) == a);
    CHECK(r.byte_offsets("s").size() == 16);
    // The fragment summary, processed conditions and tile metadata exist only
    // from the versions that have them.
    const auto& footer = arr.fragments()[0].footer();
    CHECK(footer.tile_min_offsets.value.empty() == (v < 11));
    CHECK((footer.fragment_min_max_sum_null_count_offset.value != 0) == (v >= 12));
    fs::remove_all(root);
  }
}

TEST_CASE("create refuses what the target version lacks, and versions it does not write") {
  const fs::path root = scratch("refuse-version");
  auto with_attr = [](format::Attribute a) {
    return format::make_array_schema({.type = format::ArrayType::DENSE,
                                      .dimensions = {format::make_dimension<std::int32_t>("d", 1, 8, 4)},
                                      .attributes = {std::move(a)}});
  };
  using D = format::Datatype;
  using FT = format::FilterType;
  const auto plain = with_attr(format::make_attribute({.name = "a", .type = D::INT32}));
  CHECK_THROWS_AS(array::create(root, plain, {.format_version = 4}), std::invalid_argument);
  CHECK_THROWS_AS(array::create(root, plain, {.format_version = 23}), std::invalid_argument);
  const auto nullable = with_attr(format::make_attribute({.name = "a", .type = D::INT32, .nullable = true}));
  CHECK_THROWS_AS(array::create(root, nullable, {.format_version = 6}), std::invalid_argument);
  const auto xor_filter = with_attr(format::make_attribute({.name = "a", .type = D::INT32, .filters = format::compression_pipeline(FT::XOR)}));
  CHECK_THROWS_AS(array::create(root, xor_filter, {.format_version = 15}), std::invalid_argument);
  const auto boolean = with_attr(format::make_attribute({.name = "a", .type = D::BOOL}));
  CHECK_THROWS_AS(array::create(root, boolean, {.format_version = 13}), std::invalid_argument);
  CHECK_FALSE(fs::exists(root));  // nothing written
  // The first versions that have them are accepted.
  CHECK_NOTHROW(array::create(root / "n7", nullable, {.format_version = 7}));
  CHECK_NOTHROW(array::create(root / "x16", xor_filter, {.format_version = 16}));
  CHECK_NOTHROW(array::create(root / "b14", boolean, {.format_version = 14}));
  fs::remove_all(root);
}

TEST_CASE("dense_1d of every libtiledb 2.0-2.12: tilefmt's twin is byte-identical (tests/data/releases)") {
  // Same schema, same cells, same timestamps and labels: every file equals
  // the one that release wrote, fragment metadata included.
  for (const char* release : {"2.0.8", "2.1.6", "2.2.2", "2.2.9", "2.3.3", "2.4.3", "2.6.4", "2.7.2", "2.8.3",
                              "2.9.5", "2.10.4", "2.11.3", "2.12.3"}) {
    CAPTURE(release);
    const fs::path original = data / "releases" / release / "dense_1d";
    const auto arr = array::open(original);
    REQUIRE(arr.fragments().size() == 2);
    const std::uint32_t v = arr.fragments()[0].format_version();
    const fs::path root = scratch(std::string("twin-") + release);
    array::write_options create_opt{.format_version = v};
    if (v >= 10) {
      const auto sn = format::parse_timestamped_name(arr.fragments()[0].footer().array_schema_name.value.value);
      create_opt.timestamp = sn.t1;
      create_opt.label = sn.uuid;
    }
    array::create(root, arr.schema(), create_opt);
    const std::vector<std::pair<std::int64_t, std::int64_t>> boxes[] = {{{1, 100}}, {{11, 40}}};
    for (std::size_t w = 0; w < 2; ++w) {
      const auto& frag = arr.fragments()[w];
      std::vector<std::int32_t> values(static_cast<std::size_t>(boxes[w][0].second - boxes[w][0].first + 1));
      std::iota(values.begin(), values.end(), w == 0 ? 0 : 1000);
      array::dense_writer(root, boxes[w], array::cell_layout::row_major)
          .set("a", values)
          .commit({.timestamp = frag.timestamp_start(), .label = frag.name().uuid});
    }
    // Empty folders are not kept by git: compare files only.
    const auto want = files_under(original);
    CHECK(files_under(root) == want);
    for (const auto& f : want) {
      CAPTURE(f);
      CHECK(storage::local{}.read(root / f) == storage::local{}.read(original / f));
    }
    fs::remove_all(root);
  }
}

TEST_CASE("a fragment appended to an array libtiledb 2.3 made keeps its format version 9") {
  const fs::path root = testing::copy_to_temp(data / "releases" / "2.3.3" / "dense_1d", "append-v9");
  const std::string name = array::dense_writer(root, {{41, 50}}).set("a", std::vector<std::int32_t>(10, -7)).commit();
  CHECK(format::parse_timestamped_name(name).version == 9u);
  CHECK(fs::is_regular_file(root / (name + ".ok")));
  const auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 3);
  for (const auto& f : arr.fragments()) CHECK(f.format_version() == 9);
  std::vector<std::int32_t> want(100);
  std::iota(want.begin(), want.end(), 0);
  std::iota(want.begin() + 10, want.begin() + 40, 1000);
  std::fill(want.begin() + 40, want.begin() + 50, -7);
  const auto got = arr.query().read().get<std::int32_t>("a");
  CHECK(std::vector<std::int32_t>(got.begin(), got.end()) == want);
  fs::remove_all(root);
}

TEST_CASE("Hilbert cell order: the files TileDB-Py 0.36.1 wrote for the same cells, byte for byte (sparse_hilbert)") {
  const fs::path original = data / "tiledb" / "sparse_hilbert" / "array";
  const auto arr = array::open(original);
  REQUIRE(arr.schema().cell_order == format::Layout::HILBERT);
  REQUIRE(arr.fragments().size() == 1);
  const auto& frag = arr.fragments()[0];
  const auto sn = format::parse_timestamped_name(frag.footer().array_schema_name.value.value);
  const fs::path root = scratch("hilbert-twin");
  array::create(root, arr.schema(), {.timestamp = sn.t1, .label = sn.uuid});
  // The cells in storage order; the writer sorts them again, so reverse them first.
  auto x = frag.read<std::int32_t>("x"), y = frag.read<std::int32_t>("y"), v = frag.read<std::int32_t>("v");
  std::vector<std::int32_t> xs(x.rbegin(), x.rend()), ys(y.rbegin(), y.rend()), vs(v.rbegin(), v.rend());
  array::sparse_writer(root).set_coords("x", xs).set_coords("y", ys).set("v", vs).commit(
      {.timestamp = frag.timestamp_start(), .label = frag.name().uuid});
  const auto want = files_under(original);
  CHECK(files_under(root) == want);
  for (const auto& f : want) check_same_bytes(root / f, original / f);
  fs::remove_all(root);
}

TEST_CASE("Hilbert cell order at format 8: cells stored in libtiledb 2.2's order (its wider integer domains)") {
  // libtiledb 2.2 mapped an integer coordinate to the curve over hi - lo + 1
  // (detail/hilbert.hpp); a twin of its array stores the cells as it did.
  const fs::path original = data / "releases" / "2.2.9" / "sparse_hilbert";
  const auto arr = array::open(original);
  REQUIRE(arr.schema().version.value == 8u);
  const fs::path root = scratch("hilbert-v8");
  array::create(root, arr.schema(), {.format_version = 8});
  for (const auto& frag : arr.fragments()) {
    auto x = frag.read<std::int64_t>("x"), y = frag.read<std::int64_t>("y");
    auto v = frag.read<float>("v");
    auto s = frag.read_var<char>("s");
    std::vector<std::string> strings;
    for (std::size_t c = 0; c < s.offsets.size(); ++c) {
      const std::size_t e = c + 1 < s.offsets.size() ? s.offsets[c + 1] : s.values.size();
      strings.emplace_back(s.values.data() + s.offsets[c], e - s.offsets[c]);
    }
    // Given in reverse: the writer's sort alone puts them back.
    std::vector<std::int64_t> xs(x.rbegin(), x.rend()), ys(y.rbegin(), y.rend());
    std::vector<float> vs(v.rbegin(), v.rend());
    std::vector<std::string> ss(strings.rbegin(), strings.rend());
    array::sparse_writer(root).set_coords("x", xs).set_coords("y", ys).set("v", vs).set_var("s", ss).commit(
        {.timestamp = frag.timestamp_start(), .label = frag.name().uuid});
  }
  const auto twin = array::open(root);
  REQUIRE(twin.fragments().size() == arr.fragments().size());
  for (std::size_t f = 0; f < arr.fragments().size(); ++f) {
    const auto a = arr.fragments()[f].read<std::int64_t>("x"), b = twin.fragments()[f].read<std::int64_t>("x");
    CHECK(std::vector<std::int64_t>(a.begin(), a.end()) == std::vector<std::int64_t>(b.begin(), b.end()));
    const auto c = arr.fragments()[f].read<float>("v"), d = twin.fragments()[f].read<float>("v");
    CHECK(std::vector<float>(c.begin(), c.end()) == std::vector<float>(d.begin(), d.end()));
  }
  fs::remove_all(root);
}

namespace {

/// A field's cells of one fragment, as its tiles hold them.
struct stored_cells {
  std::vector<std::byte> values;
  std::vector<std::uint64_t> offsets;  // var: byte offsets into values
  std::vector<std::uint8_t> validity;
};

stored_cells stored(const array::fragment& frag, const std::string& name) {
  stored_cells out;
  const auto f = frag.field(name);
  for (std::size_t t = 0; t < frag.tile_num(); ++t) {
    const auto tile = frag.read_tile(f, t);
    if (f.var())
      for (std::size_t c = 0; c < frag.tile_cells(t); ++c) out.offsets.push_back(out.values.size() + tile.offsets.at(c));
    out.values.insert(out.values.end(), tile.values.begin(), tile.values.end());
    out.validity.insert(out.validity.end(), tile.validity.begin(), tile.validity.end());
  }
  return out;
}

/// Writes the sparse array at `original` again into `root` through the
/// writer: the same schema and cells, the same timestamps and labels.
void sparse_twin(const fs::path& original, const fs::path& root) {
  const auto arr = array::open(original);
  const auto sn = format::parse_timestamped_name(arr.fragments().at(0).footer().array_schema_name.value.value);
  array::create(root, arr.schema(), {.timestamp = sn.t1, .label = sn.uuid});
  for (const auto& frag : arr.fragments()) {
    array::sparse_writer w(root);
    for (const auto& d : arr.schema().domain.dimensions) {
      const auto c = stored(frag, d.name.value);
      if (d.is_var()) {
        std::vector<std::string> s;
        for (std::size_t i = 0; i < c.offsets.size(); ++i) {
          const std::size_t e = i + 1 < c.offsets.size() ? c.offsets[i + 1] : c.values.size();
          s.emplace_back(reinterpret_cast<const char*>(c.values.data()) + c.offsets[i], e - c.offsets[i]);
        }
        w.set_coords(d.name.value, s);
      } else if (d.type.value == format::Datatype::FLOAT64) {
        std::vector<double> v(c.values.size() / 8);
        codec::load_le_array(c.values.data(), v.data(), v.size());
        w.set_coords(d.name.value, v);
      } else {
        REQUIRE(format::datatype_size(d.type.value) == 4);  // the arrays used here: INT32
        std::vector<std::int32_t> v(c.values.size() / 4);
        codec::load_le_array(c.values.data(), v.data(), v.size());
        w.set_coords(d.name.value, v);
      }
    }
    for (const auto& a : arr.schema().attributes) {
      const auto c = stored(frag, a.name.value);
      const auto values = std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(c.values.data()), c.values.size());
      if (a.is_var()) {
        w.set_var<std::uint8_t>(a.name.value, values, c.offsets, c.validity);
      } else if (format::datatype_size(a.type) == 4) {
        std::vector<std::uint32_t> v(c.values.size() / 4);
        codec::load_le_array(c.values.data(), v.data(), v.size());
        w.set(a.name.value, v, c.validity);
      } else {
        w.set(a.name.value, std::vector<std::uint8_t>(values.begin(), values.end()), c.validity);
      }
    }
    w.commit({.timestamp = frag.timestamp_start(), .label = frag.name().uuid});
  }
}

} // namespace

TEST_CASE("string dimensions: the files TileDB-Py 0.36.1 wrote for the same cells, byte for byte") {
  for (const char* name : {"sparse_string_dim", "sparse_string_dim_duplicates"}) {
    CAPTURE(name);
    const fs::path original = data / "tiledb" / name / "array";
    const fs::path root = scratch(std::string("strings-") + name);
    sparse_twin(original, root);
    const auto want = files_under(original);
    CHECK(files_under(root) == want);
    for (const auto& f : want) check_same_bytes(root / f, original / f);
    fs::remove_all(root);
  }
}

TEST_CASE("string dimensions: bytewise order, duplicates refused, strings given for other dimensions refused") {
  const fs::path root = scratch("strings-api");
  auto schema = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int32_t>("k", 0, 9, 5)},
       .attributes = {format::make_attribute({.name = "v", .type = format::Datatype::INT32})}});
  format::Dimension s;
  s.name.value = "s";
  s.type.value = format::Datatype::STRING_ASCII;
  s.cell_val_num.value = format::var_num;
  schema.domain.dimensions.value.insert(schema.domain.dimensions.value.begin(), s);
  schema.capacity = 2;
  array::create(root, schema, {.timestamp = 1700000000000});
  CHECK_THROWS_AS(array::sparse_writer(root).set_coords("k", std::vector<std::string>{"x"}), std::invalid_argument);
  CHECK_THROWS_AS(array::sparse_writer(root).set_coords("s", std::vector<std::int32_t>{1}), std::invalid_argument);
  CHECK_THROWS_AS(array::sparse_writer(root)
                      .set_coords("s", std::vector<std::string>{"b", "b"})
                      .set_coords("k", std::vector<std::int32_t>{1, 1})
                      .set("v", std::vector<std::int32_t>{1, 2})
                      .commit(),
                  std::invalid_argument);
  array::sparse_writer(root)
      .set_coords("s", std::vector<std::string>{"b", "\xc3\xa9", "a", "ab", "b"})
      .set_coords("k", std::vector<std::int32_t>{1, 0, 7, 3, 0})
      .set("v", std::vector<std::int32_t>{1, 2, 3, 4, 5})
      .commit({.timestamp = 1700000000001});
  const auto arr = array::open(root);
  const auto& f = arr.fragments().at(0);
  CHECK(f.tile_num() == 3);
  const auto v = f.read<std::int32_t>("v");
  // Space tiles of k first (the string dimension has none): k in [0, 4]
  // holds "ab" < "b" (k 0, then 1) < "\xc3\xa9" (bytes compare unsigned);
  // k in [5, 9] holds "a".
  CHECK(std::vector<std::int32_t>(v.begin(), v.end()) == std::vector<std::int32_t>{4, 5, 1, 2, 3});
  auto [lo, hi] = f.non_empty_domain().ranges.at(0).as_strings();
  CHECK(lo == "a");
  CHECK(hi == "\xc3\xa9");
  fs::remove_all(root);
}

} // namespace test_writer
