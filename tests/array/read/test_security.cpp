// Arrays from other people: names read from files never reach outside the
// array, what is not a regular file is never read, and no damaged size makes
// the reader allocate what the input cannot justify. Every array is opened
// from a recording backend, which proves which paths were touched.
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <mutex>
#include <set>

#include "../../support/forwarding_backend.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/storage/copy.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_security {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

/// An in-memory backend that records every path a read asks for.
class recording final : public testing::forwarding_backend<storage::memory> {
public:
  /// Paths asked for that do not lie inside `root`.
  std::set<std::string> outside(const fs::path& root) const {
    std::lock_guard lock(m);
    std::set<std::string> out;
    const std::string r = root.lexically_normal().generic_string();
    for (const auto& p : seen) {
      const std::string n = fs::path(p).lexically_normal().generic_string();
      if (n != r && n.compare(0, r.size() + 1, r + "/") != 0) out.insert(p);
    }
    return out;
  }

private:
  void on_read(const fs::path& p) const override {
    std::lock_guard lock(m);
    seen.insert(p.string());
  }
  mutable std::mutex m;
  mutable std::set<std::string> seen;
};

/// `src` (a folder on disk) copied into a recording backend at /arrays/<name>.
std::shared_ptr<recording> load(const fs::path& src, const std::string& name) {
  auto st = std::make_shared<recording>();
  storage::copy_tree(storage::local{}, src, st->inner, "/arrays/" + name);
  return st;
}


/// The fragment metadata file with its footer's schema name replaced.
std::vector<std::byte> with_schema_name(std::vector<std::byte> file, const std::string& name) {
  const std::uint64_t len = codec::load_le<std::uint64_t>(file.data() + file.size() - 8);
  const std::size_t at = file.size() - 8 - static_cast<std::size_t>(len);
  const std::uint64_t old_len = codec::load_le<std::uint64_t>(file.data() + at + 4);
  std::vector<std::byte> out(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(at + 4));
  std::byte n[8];
  codec::store_le<std::uint64_t>(n, name.size());
  out.insert(out.end(), n, n + 8);
  auto t = testing::text_bytes(name);
  out.insert(out.end(), t.begin(), t.end());
  out.insert(out.end(), file.begin() + static_cast<std::ptrdiff_t>(at + 12 + old_len), file.end() - 8);
  codec::store_le<std::uint64_t>(n, out.size() - at);
  out.insert(out.end(), n, n + 8);
  return out;
}

fs::path first_fragment(const storage::backend& st, const fs::path& root) {
  auto l = array::list_array(st, root);
  REQUIRE_FALSE(l.fragments.empty());
  return l.fragments.front().path;
}

} // namespace

TEST_CASE("a footer's schema name cannot lead outside the array") {
  const fs::path root = "/arrays/victim";
  auto st = load(data / "tiledb/dense_1d_int32/array", "victim");
  storage::copy_tree(storage::local{}, data / "tiledb/nullable_dense/array", st->inner, "/arrays/other");
  const auto other_schema = st->inner.list("/arrays/other/__schema").front().name;
  const fs::path meta = first_fragment(*st, root) / "__fragment_metadata.tdb";
  const auto original = st->inner.read(meta);
  REQUIRE_NOTHROW(array::open(root, {.storage = st}));

  for (std::string name : {"../../other/__schema/" + other_schema, "/arrays/other/__schema/" + other_schema,
                           std::string(".."), std::string(""), "__schema/" + other_schema, std::string("a\\b"),
                           std::string("__1_2_0123456789abcdef0123456789abcdef/x"), std::string("not_a_schema")}) {
    CAPTURE(name);
    st->inner.write(meta, with_schema_name(original, name));
    try {
      array::open(root, {.storage = st});
      FAIL("opened");
    } catch (const format_error& e) {
      CHECK(e.file() == meta.string());
      CHECK(e.field().find("array_schema_name") != std::string::npos);
      CHECK(e.offset() > 0);
    }
    CHECK(st->outside(root).empty());
  }
  st->inner.write(meta, original);
  CHECK(array::open(root, {.storage = st}).fragments().size() == 2);
}

TEST_CASE("an enumeration's file name in the schema cannot lead outside the array") {
  const fs::path root = "/arrays/victim";
  auto st = load(data / "tiledb/enumeration/array", "victim");
  storage::copy_tree(storage::local{}, data / "tiledb/enumeration/array", st->inner, "/arrays/other");
  const auto schema_file = root / "__schema" / st->inner.list(root / "__schema").front().name;
  const auto tile = filter::read_generic_tile(st->inner.read(schema_file));
  auto schema = codec::decode<format::ArraySchema>(tile.payload);
  REQUIRE(schema.enumerations.value.value.size() == 1);
  const std::string file = schema.enumerations.value.value[0].filename.value;
  REQUIRE(array::open(root, {.storage = st}).enumeration("colors").name.value == "colors");
  for (const std::string& name : {"../../../other/__schema/__enumerations/" + file, "/arrays/other/__schema/__enumerations/" + file,
                                  std::string(".."), std::string("")}) {
    CAPTURE(name);
    schema.enumerations.value.value[0].filename.value = name;
    st->inner.write(schema_file, filter::write_generic_tile(codec::encode(schema), tile.header.version));
    const auto arr = array::open(root, {.storage = st});
    CHECK_THROWS_AS((void)arr.enumeration("colors"), format_error);
    CHECK(st->outside(root).empty());
  }
}

TEST_CASE("a truncated v10 fragment metadata file gives an error, not a huge allocation") {
  // Truncated to 1425 bytes, the footer's schema name decoded as empty and
  // the reader used to read the folder __schema/ as a file.
  const fs::path root = "/arrays/v10";
  auto st = load(data / "legacy/zero_var_chunks_v10", "v10");
  const fs::path meta = first_fragment(*st, root) / "__fragment_metadata.tdb";
  auto bytes = st->inner.read(meta);
  for (std::size_t n : {std::size_t{1425}, bytes.size() - 1, bytes.size() / 2, std::size_t{9}, std::size_t{0}}) {
    CAPTURE(n);
    st->inner.write(meta, std::span<const std::byte>(bytes).first(n));
    CHECK_THROWS_AS(array::open(root, {.storage = st}), format_error);
    CHECK(st->outside(root).empty());
  }
}

TEST_CASE("on disk: a FIFO, a device link or a symbolic link in an array is refused, not read") {
  const fs::path root = testing::copy_to_temp(data / "tiledb/dense_1d_int32/array", "fifo");
  // A newer schema file that is a FIFO: opening it for reading would block.
  const fs::path fifo = root / "__schema" / "__1995306643017_1995306643017_144fa1a2796eedda3dd08433bd3cc3e2";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_AS(array::open(root), array::io_error);
  fs::remove(fifo);
  // A symbolic link to a file outside the array, in place of fragment metadata.
  const fs::path meta = first_fragment(storage::local{}, root) / "__fragment_metadata.tdb";
  fs::rename(meta, root / "elsewhere");
  fs::create_symlink(root / "elsewhere", meta);
  CHECK_THROWS_AS(array::open(root), array::io_error);
  fs::remove(meta);
  fs::create_symlink("/dev/zero", meta);
  CHECK_THROWS_AS(array::open(root), array::io_error);
  fs::remove_all(root);
}

TEST_CASE("data file names from a schema cannot leave a fragment folder") {
  CHECK(format::data_file_name(7, format::FieldKind::attribute, 0, "a", format::DataFile::var) == "a_var.tdb");
  CHECK(format::data_file_name(22, format::FieldKind::dimension, 2, "x", format::DataFile::fixed) == "d2.tdb");
  CHECK(format::data_file_name(8, format::FieldKind::attribute, 0, "../a/b", format::DataFile::fixed) ==
        "..%2Fa%2Fb.tdb");
  CHECK_THROWS_AS(format::data_file_name(7, format::FieldKind::attribute, 0, "../../etc/x", format::DataFile::fixed),
                  format_error);
  CHECK_THROWS_AS(format::data_file_name(4, format::FieldKind::attribute, 0, "", format::DataFile::fixed),
                  format_error);
  CHECK_THROWS_AS(format::data_file_name(4, format::FieldKind::attribute, 0, "a\\b", format::DataFile::fixed),
                  format_error);
}

TEST_CASE("open_options::max_allocation bounds every file, generic tile and data tile") {
  // An array in memory with one 16 KiB tile; its metadata files are a few KiB.
  auto st = std::make_shared<recording>();
  const fs::path root = "/arrays/bounded";
  array::create(root,
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int32_t>("x", 1, 4096, 4096)},
                     .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32})}}),
                {.storage = st});
  array::dense_writer f(root, {{1, 4096}}, array::cell_layout::row_major, st);
  f.set("a", std::vector<std::int32_t>(4096, 7));
  f.commit();
  CHECK(array::open(root, {.storage = st}).fragments()[0].read<std::int32_t>("a")[4095] == 7);
  auto arr = array::open(root, {.max_allocation = 8192, .storage = st});
  const auto& frag = arr.fragments()[0];
  try {
    (void)frag.read_tile(frag.field("a"), 0);
    FAIL("read");
  } catch (const format_error& e) {
    CHECK(std::string(e.what()).find("a tile may claim") != std::string::npos);
    CHECK(e.field().find("tile 0") != std::string::npos);
  }
  // A whole-column read allocates the column at once: it is refused before
  // any tile is read (a fuzzed footer declared a column of 2^61 bytes).
  for (auto read : {+[](const array::fragment& fr) { (void)fr.read<std::int32_t>("a"); },
                    +[](const array::fragment& fr) { (void)fr.read_bytes("a"); }}) {
    try {
      read(frag);
      FAIL("read");
    } catch (const format_error& e) {
      CHECK(std::string(e.what()).find("its column would hold 16384 bytes, more than the 8192 one read") !=
            std::string::npos);
      CHECK(e.field().find("field a") != std::string::npos);
      CHECK(e.file().ends_with("__fragment_metadata.tdb"));
    }
  }
  CHECK_THROWS_AS(array::open(root, {.max_allocation = 16, .storage = st}), array::io_error);
  // A generic tile whose header declares a huge unfiltered size.
  const fs::path schema = root / "__schema" / st->inner.list(root / "__schema").front().name;
  auto bytes = st->inner.read(schema);
  codec::store_le<std::uint64_t>(bytes.data() + 12, std::uint64_t{1} << 50);
  st->inner.write(schema, bytes);
  try {
    array::open(root, {.storage = st});
    FAIL("opened");
  } catch (const format_error& e) {
    CHECK(e.file() == schema.string());
    CHECK(e.offset() == 12);
  }
  CHECK(st->outside(root).empty());
}

TEST_CASE("consolidated fragment metadata: a footer outside the payload names its offset field") {
  auto c = format::make_consolidated_fragment_metadata(
      {{"__a", std::vector<std::byte>(10)}, {"__bbbbb", std::vector<std::byte>(20)}});
  c.fragments.value[1].offset = 1000;
  try {
    (void)format::consolidated_footer(c, 1);
    FAIL("no error");
  } catch (const format_error& e) {
    // count (4) + entry 0 (8 + 3 + 8) + entry 1's name (8 + 7)
    CHECK(e.offset() == 4 + 19 + 15);
    auto payload = codec::encode(c);
    CHECK(codec::load_le<std::uint64_t>(payload.data() + e.offset()) == 1000);
  }
}

} // namespace test_security
