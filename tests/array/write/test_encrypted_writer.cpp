// Writing encrypted arrays (AES-256-GCM). The IVs are random, so encrypted
// files cannot be compared byte for byte: each file is compared after
// decryption instead, every ciphertext replaced by its plaintext and every
// IV and tag by zeros (`cleared`), against what TileDB-Py 0.36.1 wrote for
// the same cells (tests/data/tiledb/encrypted_dense, encrypted_sparse). What
// is written reads back, through every writing path (create, dense and
// sparse fragments, metadata, deletes, evolution, consolidation); a missing
// or wrong key is a typed error. TileDB-Py reading tilefmt's encrypted
// arrays: tests/array/programs/writer_reverse.cpp.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "../../support/result_rows.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/maintain.hpp"
#include "tilefmt/array/maintain/consolidate.hpp"
#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/array/write/global_order_writer.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/zstd.hpp"

namespace test_encrypted_writer {

using namespace tilefmt;
namespace fs = std::filesystem;
using array::field;

namespace {

const fs::path data = fs::path(TILEFMT_TEST_DATA) / "tiledb";

// The key of the TileDB-Py arrays (tests/data/tiledb/manifest.json).
const std::string key_text = "0123456789abcdeF0123456789abcdeF";
const std::vector<std::uint8_t> key(key_text.begin(), key_text.end());

fs::path scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("tilefmt-encrypted-writer-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

std::uint32_t u32_at(const std::vector<std::byte>& b, std::size_t at) {
  REQUIRE(at + 4 <= b.size());
  return codec::load_le<std::uint32_t>(b.data() + at);
}

/// Clears the tile (chunk count, then chunks) at `at` in place: each
/// chunk's AES-256-GCM parts decrypted where they are stored, their IVs and
/// tags zeroed. Returns where the tile ends. Every chunk must be encrypted.
std::size_t clear_tile(std::vector<std::byte>& b, std::size_t at) {
  REQUIRE(at + 8 <= b.size());
  const std::uint64_t chunks = codec::load_le<std::uint64_t>(b.data() + at);
  at += 8;
  auto cipher = filter::detail::aes256gcm_context(false);
  for (std::uint64_t k = 0; k < chunks; ++k) {
    const std::size_t data_len = u32_at(b, at + 4), md_len = u32_at(b, at + 8);
    const std::size_t md = at + 12, d = md + md_len;
    REQUIRE(d + data_len <= b.size());
    const std::size_t parts = std::size_t{u32_at(b, md)} + u32_at(b, md + 4);
    REQUIRE(md_len == 8 + parts * 36);  // the AES filter's metadata, nothing else: it ran last
    std::size_t in = d;
    for (std::size_t p = 0; p < parts; ++p) {
      const std::size_t entry = md + 8 + p * 36, len = u32_at(b, entry);
      REQUIRE(u32_at(b, entry + 4) == len);
      REQUIRE(in + len <= d + data_len);
      std::vector<std::byte> plain(len);
      auto* iv = reinterpret_cast<unsigned char*>(b.data() + entry + 8);
      auto* tag = reinterpret_cast<unsigned char*>(b.data() + entry + 20);
      REQUIRE(filter::detail::aes256gcm_decrypt(cipher.get(), key.data(), iv, tag,
                                                std::span<const std::byte>(b).subspan(in, len), plain));
      std::copy(plain.begin(), plain.end(), b.begin() + static_cast<std::ptrdiff_t>(in));
      std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(entry + 8), 28, std::byte{0});
      in += len;
    }
    REQUIRE(in == d + data_len);
    at = d + data_len;
  }
  return at;
}

/// Clears the generic tile at `at` (its header must say AES_256_GCM).
std::size_t clear_generic_tile(std::vector<std::byte>& b, std::size_t at) {
  codec::reader r(std::span<const std::byte>(b).subspan(at));
  const auto h = codec::decode<format::GenericTileHeader>(r);
  CHECK(h.encryption_type == format::EncryptionType::AES_256_GCM);
  const std::size_t end = clear_tile(b, at + r.offset());
  CHECK(end == at + r.offset() + h.persisted_size);
  return end;
}

/// A file of an encrypted array, cleared: generic tiles (schema, metadata,
/// commits, fragment metadata sections before the plain footer) and data
/// tiles back to back. Empty files and vacuum files stay as they are.
std::vector<std::byte> cleared(const fs::path& file) {
  auto b = storage::local{}.read(file);
  if (b.empty() || file.extension() == ".vac") return b;
  if (file.filename() == "__fragment_metadata.tdb") {
    REQUIRE(b.size() >= 8);
    const std::uint64_t footer = codec::load_le<std::uint64_t>(b.data() + b.size() - 8);
    REQUIRE(footer + 8 <= b.size());
    const std::size_t end = b.size() - 8 - static_cast<std::size_t>(footer);
    std::size_t at = 0;
    while (at < end) at = clear_generic_tile(b, at);
    CHECK(at == end);
  } else if (file.parent_path().parent_path().filename() == "__fragments") {
    std::size_t at = 0;
    while (at < b.size()) at = clear_tile(b, at);
  } else {
    CHECK(clear_generic_tile(b, 0) == b.size());
  }
  return b;
}

std::set<std::string> files_under(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
  return out;
}

/// The same files under both roots, equal once cleared.
void check_same_cleared(const fs::path& ours, const fs::path& theirs, std::size_t expected_files) {
  const auto a = files_under(ours), b = files_under(theirs);
  CHECK(b.size() == expected_files);
  CHECK(a == b);
  for (const auto& f : b) {
    if (!a.count(f)) continue;
    INFO(f);
    const auto x = cleared(ours / f), y = cleared(theirs / f);
    CHECK(x.size() == y.size());
    std::size_t i = 0;
    while (i < std::min(x.size(), y.size()) && x[i] == y[i]) ++i;
    INFO("first difference at byte " << i);
    CHECK(i == std::max(x.size(), y.size()));
  }
}

template <class T>
std::vector<T> load(const fs::path& p) {
  const auto b = storage::local{}.read(p);
  std::vector<T> out(b.size() / sizeof(T));
  codec::load_le_array(b.data(), out.data(), out.size());
  return out;
}

/// Var cells from an expected/ data file and its u64 byte offsets.
std::vector<std::string> strings(const fs::path& dir, const std::string& name) {
  const auto d = storage::local{}.read(dir / (name + ".data"));
  const auto off = load<std::uint64_t>(dir / (name + ".offsets"));
  std::vector<std::string> out;
  for (std::size_t c = 0; c < off.size(); ++c) {
    const std::size_t e = c + 1 < off.size() ? off[c + 1] : d.size();
    out.emplace_back(reinterpret_cast<const char*>(d.data()) + off[c], e - off[c]);
  }
  return out;
}

std::string only_file_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  REQUIRE(names.size() == 1);
  return names[0];
}

std::vector<std::string> dirs_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Write options naming the file as `name` names it, with the key.
array::write_options same_name_as(const std::string& name) {
  auto n = format::parse_timestamped_name(name);
  array::write_options o;
  o.timestamp = n.t1;
  o.label = std::string(n.uuid);
  o.encryption_key = key;
  return o;
}

/// Creates `root` with the schema TileDB-Py wrote into `original`, under
/// the same name.
void create_like(const fs::path& root, const fs::path& original) {
  const std::string name = only_file_in(original / "__schema");
  const auto schema = array::open(original, {.encryption_key = key}).schema();
  CHECK(array::create(root, schema, same_name_as(name)) == name);
}

} // namespace

TEST_CASE("encrypted dense array: the files TileDB-Py wrote, once decrypted, byte for byte") {
  const fs::path original = data / "encrypted_dense" / "array", expected = data / "encrypted_dense" / "expected";
  const fs::path root = scratch("twin-dense");
  create_like(root, original);
  const auto frags = dirs_in(original / "__fragments");
  REQUIRE(frags.size() == 2);
  // TileDB-Py wrote [1, 50], then [5, 16]; expected/ holds their cells by
  // whole space tiles (extent 10): all of the first, cells 5-16 of 1-20.
  const std::pair<std::int64_t, std::int64_t> writes[] = {{1, 50}, {5, 16}};
  for (std::size_t w = 0; w < 2; ++w) {
    const fs::path dir = expected / frags[w] / "tiles";
    auto a = load<std::int32_t>(dir / "a.data");
    auto s = strings(dir, "s");
    const auto first = static_cast<std::ptrdiff_t>(writes[w].first - 1) % 10, n = writes[w].second - writes[w].first + 1;
    a = std::vector<std::int32_t>(a.begin() + first, a.begin() + first + n);
    s = std::vector<std::string>(s.begin() + first, s.begin() + first + n);
    array::dense_writer f(root, {writes[w]}, array::cell_layout::row_major, array::write_options{.encryption_key = key});
    f.set("a", a).set_var("s", s);
    CHECK(f.commit(same_name_as(frags[w])) == frags[w]);
  }
  const std::string meta = only_file_in(original / "__meta");
  array::metadata_writer m(root, array::write_options{.encryption_key = key});
  // TileDB-Py deletes its numpy-shape keys as it puts a value.
  for (const char* k : {"__np_flat_n", "__np_flat_secret", "__np_shape_n", "__np_shape_secret"}) m.remove(k);
  m.put("n", std::vector<std::int64_t>{3}).put_string("secret", "encrypted metadata");
  CHECK(m.commit(same_name_as(meta)) == meta);
  // schema, metadata, 2 x (commit marker, fragment metadata, a0, a1, a1_var)
  check_same_cleared(root, original, 12);
  fs::remove_all(root);
}

TEST_CASE("encrypted sparse array: the files TileDB-Py wrote, once decrypted, byte for byte") {
  const fs::path original = data / "encrypted_sparse" / "array", expected = data / "encrypted_sparse" / "expected";
  const fs::path root = scratch("twin-sparse");
  create_like(root, original);
  const auto frags = dirs_in(original / "__fragments");
  REQUIRE(frags.size() == 1);
  const fs::path dir = expected / frags[0] / "global";
  array::sparse_writer f(root, array::write_options{.encryption_key = key});
  f.set_coords("d", load<std::int32_t>(dir / "d.data")).set("a", load<double>(dir / "a.data")).set_var("s", strings(dir, "s"));
  CHECK(f.commit(same_name_as(frags[0])) == frags[0]);
  // schema, commit marker, fragment metadata, a0, a1, a1_var, d0
  check_same_cleared(root, original, 7);

  // Random IVs: written again, the files differ, and clear to the same bytes.
  const fs::path again = scratch("twin-sparse-again");
  create_like(again, original);
  array::sparse_writer g(again, array::write_options{.encryption_key = key});
  g.set_coords("d", load<std::int32_t>(dir / "d.data")).set("a", load<double>(dir / "a.data")).set_var("s", strings(dir, "s"));
  g.commit(same_name_as(frags[0]));
  const fs::path a0 = fs::path("__fragments") / frags[0] / "a0.tdb";
  CHECK(storage::local{}.read(root / a0) != storage::local{}.read(again / a0));
  CHECK(cleared(root / a0) == cleared(again / a0));
  fs::remove_all(root);
  fs::remove_all(again);
}

namespace {

format::ArraySchema dense_schema() {
  using D = format::Datatype;
  using FT = format::FilterType;
  return format::make_array_schema(
      {.type = format::ArrayType::DENSE,
       .dimensions = {format::make_dimension<std::int32_t>("r", 1, 8, 4), format::make_dimension<std::int32_t>("c", 1, 6, 3)},
       .attributes = {
           format::make_attribute({.name = "a",
                                   .type = D::INT32,
                                   .filters = filter::pipeline<filter::byteshuffle, filter::zstd<1>>::descriptor()}),
           format::make_attribute({.name = "f", .type = D::FLOAT64, .nullable = true}),
           format::make_attribute({.name = "s",
                                   .type = D::STRING_ASCII,
                                   .cell_val_num = format::var_num,
                                   .nullable = true,
                                   .filters = format::compression_pipeline(FT::ZSTD, 3)}),
           format::make_attribute({.name = "k",
                                   .type = D::STRING_ASCII,
                                   .cell_val_num = format::var_num,
                                   .filters = format::compression_pipeline(FT::RLE)})}});
}

format::ArraySchema sparse_schema() {
  using D = format::Datatype;
  return format::make_array_schema(
      {.type = format::ArrayType::SPARSE,
       .dimensions = {format::make_dimension<std::int64_t>("t", 0, 1000, 100), format::make_string_dimension("id")},
       .attributes = {format::make_attribute({.name = "v", .type = D::INT32}),
                      format::make_attribute(
                          {.name = "name", .type = D::STRING_UTF8, .cell_val_num = format::var_num, .nullable = true})}});
}

/// Writes the same arrays at `root` with `k` (empty: unencrypted): a dense
/// and a sparse array, each with two fragments, metadata, the sparse one a
/// delete commit, the dense one an evolved schema and a fragment after it.
void write_arrays(const fs::path& root, const std::vector<std::uint8_t>& k) {
  using P = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  const fs::path dense = root / "dense", sparse = root / "sparse";
  auto with = [&](std::uint64_t t) {
    array::write_options o;
    o.timestamp = t;
    o.encryption_key = k;
    return o;
  };
  array::create(dense, dense_schema(), with(1700000000000));
  for (int w = 0; w < 2; ++w) {
    array::dense_writer f(dense, {{1 + 4 * w, 4 + 4 * w}, {1, 6}}, array::cell_layout::row_major, with(0));
    std::vector<std::int32_t> a;
    std::vector<double> fv;
    std::vector<std::string> s, kinds;
    std::vector<std::uint8_t> f_valid, s_valid;
    for (std::uint64_t i = 0; i < f.cell_num(); ++i) {
      const auto rc = f.cell_coordinates(i);
      a.push_back(static_cast<std::int32_t>(100 * rc[0] + rc[1]));
      fv.push_back(static_cast<double>(rc[0]) / 4.0 - static_cast<double>(rc[1]));
      f_valid.push_back((rc[0] + rc[1]) % 3 != 0);
      s.push_back(std::string(static_cast<std::size_t>(rc[0] * rc[1] % 5), static_cast<char>('a' + rc[1])));
      s_valid.push_back(rc[0] % 3 != 1);
      kinds.push_back(rc[1] < 4 ? "low" : "high");
    }
    f.set<P>("a", a).set("f", fv, f_valid).set_var("s", s, s_valid).set_var("k", kinds);
    f.commit(with(1700000000001 + static_cast<std::uint64_t>(w)));
  }
  array::metadata_writer(dense, with(0)).put("scale", std::vector<double>{0.5, 2}).put_string("unit", "m").commit(with(1700000000003));
  array::metadata_writer(dense, with(0)).put_string("unit", "cm").commit(with(1700000000006));
  array::schema_evolution()
      .add_attribute(format::make_attribute({.name = "extra", .type = format::Datatype::UINT16}))
      .evolve(dense, with(1700000000004));
  array::dense_writer(dense, {{3, 6}, {4, 6}}, array::cell_layout::row_major, with(0))
      .set("a", std::vector<std::int32_t>(12, -1))
      .set("f", std::vector<double>(12, 9.5), std::vector<std::uint8_t>(12, 1))
      .set_var("s", std::vector<std::string>(12, "new"), std::vector<std::uint8_t>(12, 1))
      .set_var("k", std::vector<std::string>(12, "mid"))
      .set("extra", std::vector<std::uint16_t>(12, 7))
      .commit(with(1700000000005));

  array::create(sparse, sparse_schema(), with(1700000000000));
  for (int w = 0; w < 2; ++w) {
    std::vector<std::int64_t> t;
    std::vector<std::string> id, name;
    std::vector<std::int32_t> v;
    std::vector<std::uint8_t> valid;
    for (int i = 0; i < 40; ++i) {
      t.push_back((i * 37 + w * 11) % 1000);
      id.push_back("id" + std::to_string((i * 7) % 13) + std::string(static_cast<std::size_t>(w), '+'));
      v.push_back(i + 1000 * w);
      name.push_back(i % 4 ? "n\xc3\xa9" + std::to_string(i) : "");
      valid.push_back(i % 6 != 5);
    }
    array::sparse_writer(sparse, with(0)).set_coords("t", t).set_coords("id", id).set("v", v).set_var("name", name, valid)
        .commit(with(1700000000001 + static_cast<std::uint64_t>(w)));
  }
  array::metadata_writer(sparse, with(0)).put("count", std::vector<std::int64_t>{80}).commit(with(1700000000003));
  array::metadata_writer(sparse, with(0)).remove("count").put_string("note", "encrypted").commit(with(1700000000004));
  array::delete_cells(sparse, field("v") < std::int32_t{10} || field("t") >= std::int64_t{900}, with(1700000000005));
}

} // namespace

TEST_CASE("every writing path with a key: reads back as the same writes unencrypted do") {
  const fs::path plain = scratch("plain"), enc = scratch("enc");
  write_arrays(plain, {});
  write_arrays(enc, key);
  // Nothing the key does not open: every schema, metadata, commit and
  // fragment metadata file is a generic tile whose header says AES_256_GCM.
  for (const auto& f : files_under(enc))
    if (fs::file_size(enc / f) != 0) CHECK_NOTHROW(cleared(enc / f));

  const auto layout = array::query_layout::row_major;
  for (const char* name : {"dense", "sparse"}) {
    CAPTURE(name);
    const auto p = array::open(plain / name), e = array::open(enc / name, {.encryption_key = key});
    CHECK(e.schema() == p.schema());
    CHECK(e.fragments().size() == p.fragments().size());
    CHECK(e.metadata().to_json() == p.metadata().to_json());
    CHECK(testing::rows(e.query().layout(layout).read()) == testing::rows(p.query().layout(layout).read()));
    // Before the latest writes (and, for the sparse array, the delete).
    const auto pe = array::open(enc / name, {.encryption_key = key, .timestamp_end = 1700000000002});
    const auto pp = array::open(plain / name, {.timestamp_end = 1700000000002});
    CHECK(testing::rows(pe.query().layout(layout).read()) == testing::rows(pp.query().layout(layout).read()));
  }
  const auto d = array::open(enc / "dense", {.encryption_key = key});
  CHECK(d.schema().attribute("extra") != nullptr);
  CHECK(d.metadata().get<double>("scale") == std::vector<double>{0.5, 2});
  const auto r = d.query().layout(layout).read();
  const auto a = r.get<std::int32_t>("a");
  REQUIRE(r.cell_num() == 48);
  CHECK(a[0] == 101);
  CHECK(a[2 * 6 + 3] == -1);   // (3, 4): the fragment after the evolution
  const auto s = array::open(enc / "sparse", {.encryption_key = key});
  const auto v = s.query().read().get<std::int32_t>("v");
  CHECK(std::none_of(v.begin(), v.end(), [](std::int32_t x) { return x < 10; }));
  CHECK_FALSE(s.metadata().contains("count"));
  CHECK(s.metadata().get_string("note") == "encrypted");
  fs::remove_all(plain);
  fs::remove_all(enc);
}


TEST_CASE("encrypted arrays: a missing or wrong key is a typed error, for readers and writers; nothing is written") {
  const fs::path root = scratch("keys"), plain = scratch("keys-plain");
  const array::write_options with_key{.timestamp = 1700000000000, .encryption_key = key};
  array::create(root, sparse_schema(), with_key);
  array::create(plain, sparse_schema(), {.timestamp = 1700000000000});
  auto wrong = key;
  wrong[5] ^= 1;
  const std::vector<std::uint8_t> short_key(key.begin(), key.begin() + 16);
  auto write = [&](const fs::path& p, std::vector<std::uint8_t> k) {
    array::write_options o;
    o.encryption_key = std::move(k);
    array::sparse_writer(p, o).set_coords("t", std::vector<std::int64_t>{1}).set_coords("id", std::vector<std::string>{"x"})
        .set("v", std::vector<std::int32_t>{1}).set_var("name", std::vector<std::string>{"n"}, std::vector<std::uint8_t>{1})
        .commit(o);
  };
  const auto before = files_under(root);

  // Readers: no key, a wrong key, a short key.
  try {
    (void)array::open(root);
    FAIL("opened without the key");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("32-byte key, none was given") != std::string::npos);
  }
  try {
    (void)array::open(root, {.encryption_key = wrong});
    FAIL("opened with a wrong key");
  } catch (const filter::authentication_error& e) {
    CHECK(std::string(e.what()).find("does not authenticate") != std::string::npos);
  }
  CHECK_THROWS_AS((void)array::open(root, {.encryption_key = short_key}), std::invalid_argument);

  // Writers: no key, a wrong key, a short key, a key for an unencrypted array.
  CHECK_THROWS_WITH_AS(write(root, {}), doctest::Contains("the array is encrypted"), std::invalid_argument);
  CHECK_THROWS_AS(write(root, wrong), filter::authentication_error);
  CHECK_THROWS_AS(write(root, short_key), std::invalid_argument);
  CHECK_THROWS_WITH_AS(write(plain, key), doctest::Contains("not encrypted"), std::invalid_argument);
  CHECK_THROWS_AS(array::metadata_writer{root}, std::invalid_argument);
  CHECK_THROWS_AS(array::metadata_writer(root, array::write_options{.encryption_key = wrong}), filter::authentication_error);
  CHECK_THROWS_AS(array::delete_cells(root, field("v") == std::int32_t{1}), std::invalid_argument);
  CHECK_THROWS_AS(array::delete_cells(plain, field("v") == std::int32_t{1}, with_key), std::invalid_argument);
  CHECK_THROWS_AS(array::schema_evolution().drop_attribute("name").evolve(root), std::invalid_argument);
  CHECK_THROWS_AS(array::consolidate_fragments(root), std::invalid_argument);
  CHECK_THROWS_AS(array::consolidate_fragments(root, {.encryption_key = wrong}), filter::authentication_error);
  CHECK_THROWS_AS(array::create(scratch("short"), sparse_schema(), {.encryption_key = short_key}), std::invalid_argument);
  CHECK_FALSE(fs::exists(scratch("short")));
  // A fragment opened with the key commits with it only.
  array::sparse_writer f(root, array::write_options{.encryption_key = key});
  f.set_coords("t", std::vector<std::int64_t>{1}).set_coords("id", std::vector<std::string>{"x"}).set("v", std::vector<std::int32_t>{1});
  f.set_var("name", std::vector<std::string>{"n"}, std::vector<std::uint8_t>{1});
  CHECK_THROWS_AS(f.commit({.encryption_key = wrong}), std::invalid_argument);
  CHECK(files_under(root) == before);  // nothing written by any of them

  write(root, key);
  CHECK(array::open(root, {.encryption_key = key}).query().read().cell_num() == 1);
  fs::remove_all(root);
  fs::remove_all(plain);
}

TEST_CASE("encrypted arrays: consolidated fragments and metadata are encrypted, read back, and vacuum") {
  const fs::path root = scratch("consolidate"), plain = scratch("consolidate-plain");
  write_arrays(root, key);
  write_arrays(plain, {});
  for (const char* name : {"dense", "sparse"}) {
    CAPTURE(name);
    const auto c = array::consolidate_fragments(root / name, {.encryption_key = key});
    const auto cp = array::consolidate_fragments(plain / name);
    REQUIRE(!c.name.empty());
    CHECK(c.replaced.size() == cp.replaced.size());
    const auto m = array::consolidate_metadata(root / name, {.encryption_key = key});
    array::consolidate_metadata(plain / name);
    REQUIRE(!m.name.empty());
    // The new fragment's files and metadata file: every part encrypted.
    for (const auto& f : files_under(root / name / "__fragments" / c.name)) CHECK_NOTHROW(cleared(root / name / "__fragments" / c.name / f));
    CHECK_NOTHROW(cleared(root / name / "__meta" / m.name));
    array::vacuum_fragments(root / name);
    array::vacuum_metadata(root / name);
    array::vacuum_fragments(plain / name);
    array::vacuum_metadata(plain / name);
    const auto e = array::open(root / name, {.encryption_key = key}), p = array::open(plain / name);
    CHECK(e.fragments().size() == 1);
    CHECK(e.metadata().to_json() == p.metadata().to_json());
    const auto layout = array::query_layout::row_major;
    CHECK(testing::rows(e.query().layout(layout).read()) == testing::rows(p.query().layout(layout).read()));
  }
  fs::remove_all(root);
  fs::remove_all(plain);
}

TEST_CASE("encrypted arrays: enumeration files are encrypted, extended by evolutions, and queried by label") {
  const fs::path root = scratch("enums");
  auto color = format::make_attribute({.name = "color", .type = format::Datatype::INT8});
  color.enumeration_name.value.value = "colors";
  const auto schema = format::make_array_schema({.type = format::ArrayType::SPARSE,
                                                 .dimensions = {format::make_dimension<std::int64_t>("x", 0, 999, 100)},
                                                 .attributes = {color},
                                                 .capacity = 10});
  array::write_options o;
  o.timestamp = 1700000000000;
  o.enumerations = {format::make_enumeration("colors", {"red", "green", "blue"})};
  o.encryption_key = key;
  array::create(root, schema, o);
  array::write_options w{.timestamp = 1700000000010, .encryption_key = key};
  array::sparse_writer(root, w)
      .set_coords<std::int64_t>("x", std::vector<std::int64_t>{1, 2, 3})
      .set<std::int8_t>("color", std::vector<std::int8_t>{2, 0, 1})
      .commit(w);
  w.timestamp = 1700000000020;
  array::schema_evolution()
      .extend_enumeration(format::make_enumeration("colors", {"red", "green", "blue", "teal"}))
      .evolve(root, w);
  for (const auto& f : files_under(root))
    if (fs::file_size(root / f) != 0) CHECK_NOTHROW(cleared(root / f));  // every file encrypted
  const auto arr = array::open(root, {.encryption_key = key});
  CHECK(arr.enumeration("colors").string_values() == std::vector<std::string>{"red", "green", "blue", "teal"});
  CHECK(arr.query().where(field("color") == "green").read().get<std::int64_t>("x") == array::column<std::int64_t>{3});
  CHECK_THROWS_AS(array::schema_evolution()
                      .extend_enumeration(format::make_enumeration("colors", {"red", "green", "blue", "teal", "gold"}))
                      .evolve(root),
                  std::invalid_argument);  // no key
  fs::remove_all(root);
}

TEST_CASE("encrypted arrays: the global-order writer and consolidated fragment metadata") {
  const fs::path original = data / "encrypted_sparse" / "array", expected = data / "encrypted_sparse" / "expected";
  const fs::path root = scratch("global-order");
  create_like(root, original);
  const auto frag = dirs_in(original / "__fragments").at(0);
  const fs::path dir = expected / frag / "global";
  const auto d = load<std::int32_t>(dir / "d.data");
  const auto a = load<double>(dir / "a.data");
  const auto s = strings(dir, "s");
  REQUIRE(d.size() == 35);
  {
    array::global_order_writer w(root, same_name_as(frag));
    for (const auto& [from, to] : {std::pair<std::size_t, std::size_t>{0, 13}, {13, 35}}) {
      w.set_coords<std::int32_t>("d", std::vector<std::int32_t>(d.begin() + from, d.begin() + to))
          .set("a", std::vector<double>(a.begin() + from, a.begin() + to))
          .set_var("s", std::vector<std::string>(s.begin() + from, s.begin() + to));
      w.submit();
    }
    CHECK(w.finalize() == frag);
  }
  for (const auto& f : files_under(root))
    if (fs::file_size(root / f) != 0) CHECK_NOTHROW(cleared(root / f));  // every file encrypted
  const auto mine = array::open(root, {.encryption_key = key}), theirs = array::open(original, {.encryption_key = key});
  CHECK(testing::rows(mine.query().read()) == testing::rows(theirs.query().read()));

  // A second fragment, then the footers consolidated into an encrypted `.meta` file.
  array::sparse_writer(root, array::write_options{.encryption_key = key})
      .set_coords("d", std::vector<std::int32_t>{1, 2})
      .set("a", std::vector<double>{0.5, 1.5})
      .set_var("s", std::vector<std::string>{"p", "q"})
      .commit({.encryption_key = key});
  CHECK_THROWS_AS(array::consolidate_fragment_metadata(root), std::invalid_argument);
  const auto c = array::consolidate_fragment_metadata(root, {.encryption_key = key});
  REQUIRE(c.replaced.size() == 2);
  CHECK_NOTHROW(cleared(root / "__fragment_meta" / c.name));
  CHECK(array::open(root, {.encryption_key = key}).query().read().cell_num() == 37);
  fs::remove_all(root);
}

} // namespace test_encrypted_writer
