// Global-order writes in several submissions (array/write/global_order_writer.hpp):
// the files are byte for byte those TileDB 2.30 wrote for the same cells in
// the same submissions (tests/data/writer/twin_sparse_global, made by
// tests/data/writer/make_twin.py) and those of one sparse_writer write of
// every cell, however the cells are cut into submissions; cells out of the
// global order are refused; tiles reach storage as they fill, and the writer
// holds no more than one tile per field between submissions.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/array/write/global_order_writer.hpp"
#include "tilefmt/storage/local.hpp"
#include "tilefmt/storage/memory.hpp"

#include "../../support/array_files.hpp"
#include "../../support/forwarding_backend.hpp"
#include "../../support/testing.hpp"

namespace test_global_order_writer {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

const fs::path twin_sparse_global = fs::path(TILEFMT_TEST_DATA) / "writer" / "twin_sparse_global";

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-global-order-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

array::write_options same_name_as(const std::string& name) {
  auto n = format::parse_timestamped_name(name);
  return {n.t1, std::string(n.uuid)};
}

std::string only_entry_in(const fs::path& dir, bool folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (folder ? e.is_directory() : e.is_regular_file()) names.push_back(e.path().filename().string());
  REQUIRE(names.size() == 1);
  return names[0];
}

using testing::check_same_files;
using testing::files_under;

/// The schemas written: twin_sparse's (x INT32, y INT64; a INT32 ZSTD(1),
/// f FLOAT64 nullable, s ASCII var), and variants of it.
enum class variant { twin, strings_col_major_dups, hilbert };

format::ArraySchema schema_of(variant v, std::uint64_t capacity) {
  using D = format::Datatype;
  std::vector<format::Dimension> dims{format::make_dimension<std::int32_t>("x", 1, 100, 10)};
  if (v == variant::strings_col_major_dups)
    dims.push_back(format::make_string_dimension("k"));
  else
    dims.push_back(format::make_dimension<std::int64_t>("y", -50, 49, 25));
  auto s = format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = dims,
       .attributes = {
           format::make_attribute(
               {.name = "a", .type = D::INT32, .filters = format::compression_pipeline(format::FilterType::ZSTD, 1)}),
           format::make_attribute({.name = "f", .type = D::FLOAT64, .nullable = true}),
           format::make_attribute(
               {.name = "s", .type = D::STRING_ASCII, .cell_val_num = format::var_num, .nullable = v != variant::twin})}});
  s.capacity = capacity;
  if (v == variant::strings_col_major_dups) {
    s.tile_order = format::Layout::COL_MAJOR;
    s.cell_order = format::Layout::COL_MAJOR;
    s.allows_dups.value = true;
  }
  if (v == variant::hilbert) s.cell_order = format::Layout::HILBERT;
  return s;
}

struct cells {
  std::vector<std::int32_t> x, a;
  std::vector<std::int64_t> y;
  std::vector<std::string> k, s;
  std::vector<double> f;
  std::vector<std::uint8_t> f_valid, s_valid;
  bool strings = false, s_nullable = false;

  std::size_t size() const { return x.size(); }

  /// Cells [b, e).
  cells slice(std::size_t b, std::size_t e) const {
    cells out;
    out.strings = strings;
    out.s_nullable = s_nullable;
    auto cut = [&](const auto& from, auto& to) {
      if (!from.empty()) to.assign(from.begin() + static_cast<std::ptrdiff_t>(b), from.begin() + static_cast<std::ptrdiff_t>(e));
    };
    cut(x, out.x), cut(a, out.a), cut(y, out.y), cut(k, out.k), cut(s, out.s), cut(f, out.f);
    cut(f_valid, out.f_valid), cut(s_valid, out.s_valid);
    return out;
  }

  /// Gives the cells to a sparse_writer or a global_order_writer.
  template <class W>
  void set_on(W& w) const {
    w.set_coords("x", x);
    if (strings)
      w.set_coords("k", k);
    else
      w.set_coords("y", y);
    w.set("a", a).set("f", f, f_valid);
    if (s_nullable)
      w.set_var("s", s, s_valid);
    else
      w.set_var("s", s);
  }
};

/// `n` cells in no order, of distinct coordinates (unless `dups`).
cells some_cells(variant v, std::size_t n, std::uint64_t seed) {
  cells c;
  c.strings = v == variant::strings_col_major_dups;
  c.s_nullable = v != variant::twin;
  std::set<std::pair<std::int64_t, std::string>> seen;
  std::uint64_t state = seed;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  while (c.size() < n) {
    const auto x = static_cast<std::int32_t>(next() % 100 + 1);
    const auto y = static_cast<std::int64_t>(next() % 100) - 50;
    const std::string k = std::string(1 + next() % 3, static_cast<char>('a' + next() % 4));
    if (!c.strings && !seen.insert({x * 1000 + y, ""}).second) continue;
    if (c.strings && next() % 5 != 0 && !seen.insert({x, k}).second) continue;  // some duplicates
    const std::size_t i = c.size();
    c.x.push_back(x);
    c.y.push_back(y);
    c.k.push_back(k);
    c.a.push_back(static_cast<std::int32_t>(i * 7) - 300);
    c.f.push_back(static_cast<double>(i) / 8.0);
    c.f_valid.push_back(i % 5 != 2);
    c.s.push_back(std::string(i % 4, static_cast<char>('p' + i % 7)));
    c.s_valid.push_back(i % 6 != 1);
  }
  if (!c.strings) c.k.clear();
  if (c.strings) c.y.clear();
  return c;
}

/// The cells of the array's only fragment, in the order stored (the global order).
cells stored_cells(const fs::path& root, const cells& like) {
  auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 1);
  const auto& fr = arr.fragments()[0];
  cells c;
  c.strings = like.strings;
  c.s_nullable = like.s_nullable;
  auto strings = [](const array::var_column<char>& v) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.offsets.size(); ++i) {
      const std::size_t b = v.offsets[i], e = i + 1 < v.offsets.size() ? v.offsets[i + 1] : v.values.size();
      out.emplace_back(v.values.begin() + static_cast<std::ptrdiff_t>(b), v.values.begin() + static_cast<std::ptrdiff_t>(e));
    }
    return out;
  };
  auto x = fr.read<std::int32_t>("x");
  c.x.assign(x.begin(), x.end());
  if (c.strings) {
    c.k = strings(fr.read_var<char>("k"));
  } else {
    auto y = fr.read<std::int64_t>("y");
    c.y.assign(y.begin(), y.end());
  }
  auto a = fr.read<std::int32_t>("a");
  c.a.assign(a.begin(), a.end());
  auto f = fr.read<double>("f");
  c.f.assign(f.begin(), f.end());
  auto fv = fr.read_validity("f");
  c.f_valid.assign(fv.begin(), fv.end());
  c.s = strings(fr.read_var<char>("s"));
  if (c.s_nullable) {
    auto sv = fr.read_validity("s");
    c.s_valid.assign(sv.begin(), sv.end());
  }
  return c;
}

const array::write_options schema_name_options{1700000000000, std::string("0123456789abcdef0123456789abcdef")};
const array::write_options fragment_name_options{1700000000100, std::string("fedcba9876543210fedcba9876543210")};

/// Writes `c` (in global order) in submissions of the given sizes.
std::string write_in_submissions(const fs::path& root, const cells& c, const std::vector<std::size_t>& sizes,
                                 std::shared_ptr<storage::backend> st = {}) {
  array::global_order_writer w(root, fragment_name_options, st);
  std::size_t at = 0;
  for (std::size_t n : sizes) {
    c.slice(at, at + n).set_on(w);
    w.submit();
    at += n;
  }
  REQUIRE(at == c.size());
  CHECK(w.cell_num() == c.size());
  return w.finalize();
}

} // namespace

TEST_CASE("global_order_writer: TileDB-Py's global-order write in four submissions, byte for byte (twin_sparse_global)") {
  // make_twin.py's sparse_cells(), in TileDB's global order.
  cells c;
  for (int i = 0; i < 23; ++i) {
    c.x.push_back((i * 37) % 100 + 1);
    c.y.push_back(((i * 53) % 100) - 50);
    c.a.push_back(i * 3 - 20);
    c.f.push_back(i / 4.0);
    c.f_valid.push_back(i % 5 != 2);
    std::string s;
    for (int r = 0; r < 1 + i % 3; ++r) s += "v" + std::to_string(i * 7 % 11);
    c.s.push_back(s);
  }
  std::vector<std::size_t> order(23);
  for (std::size_t i = 0; i < 23; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) {
    auto key = [&](std::size_t i) { return std::tuple((c.x[i] - 1) / 10, (c.y[i] + 50) / 25, c.x[i], c.y[i]); };
    return key(p) < key(q);
  });
  cells g;
  for (std::size_t i : order) {
    g.x.push_back(c.x[i]), g.y.push_back(c.y[i]), g.a.push_back(c.a[i]), g.f.push_back(c.f[i]);
    g.f_valid.push_back(c.f_valid[i]), g.s.push_back(c.s[i]);
  }

  const fs::path root = scratch("twin");
  const std::string schema_name = only_entry_in(twin_sparse_global / "__schema", false);
  CHECK(array::create(root, schema_of(variant::twin, 4), same_name_as(schema_name)) == schema_name);
  const std::string frag_name = only_entry_in(twin_sparse_global / "__fragments", true);
  {
    array::global_order_writer w(root, same_name_as(frag_name));
    std::size_t at = 0;
    for (std::size_t n : {5, 1, 9, 8}) {  // make_twin.py's GLOBAL_SUBMISSIONS
      g.slice(at, at + n).set_on(w);
      w.submit();
      at += n;
    }
    CHECK(w.tile_num() == 5);  // the sixth, short tile is written by finalize
    CHECK(w.finalize() == frag_name);
  }
  // schema, commit marker, fragment metadata, a0, a1 + validity, a2 + var, d0, d1
  CHECK(files_under(twin_sparse_global).size() == 10);
  check_same_files(root, twin_sparse_global);
  fs::remove_all(root);

  // The same in memory (the backend's default writer: pieces gathered, one
  // write at commit; nothing under a data file's name before it).
  auto mem = std::make_shared<storage::memory>();
  auto o = same_name_as(schema_name);
  o.storage = mem;
  array::create("twin", schema_of(variant::twin, 4), o);
  {
    array::global_order_writer w("twin", same_name_as(frag_name), mem);
    std::size_t at = 0;
    for (std::size_t n : {5, 1, 9, 8}) {
      g.slice(at, at + n).set_on(w);
      w.submit();
      at += n;
      CHECK_FALSE(mem->exists("twin/__fragments/" + frag_name + "/a0.tdb"));
    }
    w.finalize();
  }
  const auto theirs = files_under(twin_sparse_global);
  std::size_t files = 0;
  for (const auto& [path, bytes] : mem->files()) {
    const std::string rel = path.substr(std::string("twin/").size());
    INFO(rel);
    REQUIRE(theirs.count(rel) == 1);
    CHECK(theirs.at(rel) == bytes);
    ++files;
  }
  CHECK(files == theirs.size());
}

TEST_CASE("global_order_writer: any cut into submissions gives the files of one sparse_writer write") {
  for (variant v : {variant::twin, variant::strings_col_major_dups, variant::hilbert}) {
    const std::uint64_t capacity = v == variant::twin ? 7 : v == variant::hilbert ? 6 : 5;
    CAPTURE(static_cast<int>(v));
    const cells given = some_cells(v, 211, 17 + static_cast<std::uint64_t>(v));
    const fs::path one = scratch("one");
    array::create(one, schema_of(v, capacity), schema_name_options);
    {
      array::sparse_writer f(one);
      given.set_on(f);
      f.commit(fragment_name_options);
    }
    const cells g = stored_cells(one, given);
    REQUIRE(g.size() == 211);

    std::vector<std::vector<std::size_t>> cuts{{211}, std::vector<std::size_t>(211, 1)};
    cuts.push_back({capacity, capacity * 3, 211 - capacity * 4});  // at tile boundaries
    std::vector<std::size_t> uneven;
    for (std::size_t at = 0, n = 1; at < 211; at += n, n = n * 3 % 29 + 1) uneven.push_back(std::min(n, 211 - at));
    cuts.push_back(uneven);
    cuts.push_back({0, 100, 0, 111});  // empty submissions change nothing
    for (const auto& sizes : cuts) {
      CAPTURE(sizes.size());
      const fs::path many = scratch("many");
      array::create(many, schema_of(v, capacity), schema_name_options);
      write_in_submissions(many, g, sizes);
      check_same_files(many, one);
      fs::remove_all(many);
    }
    fs::remove_all(one);
  }
}

TEST_CASE("global_order_writer: cells out of the global order are refused, the submission dropped, the writer usable") {
  const fs::path one = scratch("refused-one");
  array::create(one, schema_of(variant::twin, 4), schema_name_options);
  const cells given = some_cells(variant::twin, 40, 5);
  {
    array::sparse_writer f(one);
    given.set_on(f);
    f.commit(fragment_name_options);
  }
  const cells g = stored_cells(one, given);

  const fs::path root = scratch("refused");
  array::create(root, schema_of(variant::twin, 4), schema_name_options);
  {
    array::global_order_writer w(root, fragment_name_options);
    g.slice(0, 10).set_on(w);
    w.submit();
    auto refused = [&](const cells& c, const std::string& words) {
      c.set_on(w);
      try {
        w.submit();
        FAIL("accepted");
      } catch (const std::invalid_argument& e) {
        CHECK_MESSAGE(std::string(e.what()).find(words) != std::string::npos, e.what());
      }
    };
    // Within a submission: two cells swapped.
    cells swapped = g.slice(10, 20);
    std::swap(swapped.x[3], swapped.x[4]), std::swap(swapped.y[3], swapped.y[4]);
    refused(swapped, "succeed (" + std::to_string(swapped.x[4]) + ", " + std::to_string(swapped.y[4]) + ") in the global order");
    // Before the last cell submitted: in an earlier space tile, then in the same one.
    refused(g.slice(0, 1), "comes before last written coordinate in the global order");
    cells before = g.slice(9, 10);
    refused(before, "Duplicate coordinates (" + std::to_string(before.x[0]) + ", " + std::to_string(before.y[0]) +
                        ") are not allowed");
    // The refused submissions left nothing behind: the writer goes on.
    g.slice(10, 40).set_on(w);
    w.submit();
    w.finalize();
  }
  check_same_files(root, one);

  // The writer refuses cells set but not submitted, finalize without cells,
  // coordinates outside the domain, and anything after finalize.
  const fs::path other = scratch("refused-other");
  array::create(other, schema_of(variant::twin, 4), schema_name_options);
  {
    array::global_order_writer w(other, fragment_name_options);
    CHECK_THROWS_AS(w.finalize(), std::invalid_argument);
    cells out = g.slice(0, 2);
    out.y[1] = 50;
    out.set_on(w);
    CHECK_THROWS_WITH_AS(w.submit(), doctest::Contains("outside the domain"), std::invalid_argument);
    g.slice(0, 2).set_on(w);
    CHECK_THROWS_AS(w.finalize(), std::logic_error);
    w.submit();
    w.finalize();
    CHECK_THROWS_AS(w.submit(), std::logic_error);
    CHECK_THROWS_AS(g.slice(2, 3).set_on(w), std::logic_error);
  }
  CHECK(array::open(other).fragments().size() == 1);
  fs::remove_all(one);
  fs::remove_all(root);
  fs::remove_all(other);
}

TEST_CASE("global_order_writer: a check in Hilbert order is by Hilbert value, and refuses a smaller one") {
  const fs::path one = scratch("hilbert-one");
  array::create(one, schema_of(variant::hilbert, 6), schema_name_options);
  const cells given = some_cells(variant::hilbert, 30, 9);
  {
    array::sparse_writer f(one);
    given.set_on(f);
    f.commit(fragment_name_options);
  }
  const cells g = stored_cells(one, given);
  const fs::path root = scratch("hilbert");
  array::create(root, schema_of(variant::hilbert, 6), schema_name_options);
  array::global_order_writer w(root, fragment_name_options);
  g.slice(0, 10).set_on(w);
  w.submit();
  g.slice(0, 1).set_on(w);
  CHECK_THROWS_WITH_AS(w.submit(), doctest::Contains("comes before last written coordinate in the hilbert order"),
                       std::invalid_argument);
  cells reversed = g.slice(10, 30);
  std::reverse(reversed.x.begin(), reversed.x.end());
  std::reverse(reversed.y.begin(), reversed.y.end());
  reversed.set_on(w);
  CHECK_THROWS_WITH_AS(w.submit(), doctest::Contains("in the hilbert order"), std::invalid_argument);
  g.slice(10, 30).set_on(w);
  w.submit();
  w.finalize();
  check_same_files(root, one);
  fs::remove_all(one);
  fs::remove_all(root);
}

namespace {

/// The local file system, counting the bytes appended to files being
/// written and the files made to appear.
class counting final : public testing::forwarding_backend<storage::local> {
public:
  counting() : forwarding_backend(storage::local{storage::local::not_durable}) {}
  std::uint64_t appended = 0;
  std::size_t files_written = 0;

private:
  void on_append(const fs::path&, std::size_t n) override { appended += n; }
  void on_change(change c, const fs::path&) override { files_written += c == change::write; }
};

} // namespace

TEST_CASE("global_order_writer: tiles reach storage as they fill; the writer holds one tile per field") {
  const cells given = some_cells(variant::twin, 3000, 23);
  const std::uint64_t capacity = 50;
  const fs::path one = scratch("bounded-one");
  array::create(one, schema_of(variant::twin, capacity), schema_name_options);
  {
    array::sparse_writer f(one);
    given.set_on(f);
    f.commit(fragment_name_options);
  }
  const cells g = stored_cells(one, given);

  const fs::path root = scratch("bounded");
  array::create(root, schema_of(variant::twin, capacity), schema_name_options);
  auto st = std::make_shared<counting>();
  // A tile's cells: x 4, y 8, a 4, f 8 + validity 1, s 8 (offset) + at most 3 characters.
  const std::uint64_t bound = capacity * (4 + 8 + 4 + 8 + 1 + 8 + 3);
  std::uint64_t most = 0, before = 0;
  std::string name;
  {
    array::global_order_writer w(root, fragment_name_options, st);
    const fs::path dir = root / "__fragments" / format::make_timestamped_name(1700000000100, 1700000000100,
                                                                              *fragment_name_options.label, 22);
    for (std::size_t at = 0; at < 3000; at += 137) {
      g.slice(at, std::min<std::size_t>(at + 137, 3000)).set_on(w);
      w.submit();
      most = std::max(most, w.buffered_bytes());
      // Every full tile is in the data files' temporary files already; no
      // file has appeared under its name.
      CHECK(st->appended > before);
      before = st->appended;
      CHECK(w.tile_num() == w.cell_num() / capacity);
      CHECK(st->files_written == 0);
      CHECK(fs::exists(dir / "a0.tdb.tmp"));
      CHECK_FALSE(fs::exists(dir / "a0.tdb"));
    }
    CHECK(most > 0);
    CHECK(most <= bound);
    name = w.finalize();
  }
  CHECK(st->files_written == 9);  // 7 data files, the fragment metadata, the commit marker
  std::uint64_t data_bytes = 0;
  for (const auto& e : fs::directory_iterator(root / "__fragments" / name))
    if (e.path().filename() != "__fragment_metadata.tdb") data_bytes += fs::file_size(e.path());
  CHECK(st->appended == data_bytes);
  check_same_files(root, one);
  fs::remove_all(one);
  fs::remove_all(root);
}

TEST_CASE("global_order_writer: a writer dropped before finalize leaves no fragment and no file") {
  const fs::path root = scratch("dropped");
  array::create(root, schema_of(variant::twin, 4), schema_name_options);
  const cells given = some_cells(variant::twin, 30, 3);
  {
    array::sparse_writer f(root);
    given.set_on(f);
    f.commit({1700000000050, std::string("00000000000000000000000000000000")});
  }
  const cells g = stored_cells(root, given);
  {
    array::global_order_writer w(root, fragment_name_options);
    g.set_on(w);
    w.submit();
    CHECK(fs::directory_iterator(root / "__fragments") != fs::directory_iterator());
  }
  std::size_t folders = 0;
  for (const auto& e : fs::directory_iterator(root / "__fragments")) folders += e.is_directory();
  CHECK(folders == 1);  // the sparse_writer's
  CHECK(array::open(root).fragments().size() == 1);
  fs::remove_all(root);
}

} // namespace test_global_order_writer
