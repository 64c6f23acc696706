// Damaged arrays: every file of a few committed arrays (schema, fragment
// metadata, fixed, var, validity and timestamp data files, commit files,
// array metadata) truncated or with flipped bytes in turn. Each time: a
// tilefmt exception naming the file (and, for data files, the fragment,
// field and tile), or values read as stored; the other fragments read
// exactly as before. Run under ASan+UBSan too: no crash, no UB.
#include "tilefmt/array/read/array.hpp"

#include <filesystem>
#include <map>

#include "../../support/testing.hpp"

namespace test_corruption {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

fs::path copy_array(const fs::path& src, const std::string& name) { return testing::copy_to_temp(src, name); }

/// Every tile of every field of a fragment, concatenated.
std::map<std::string, std::vector<std::byte>> read_all(const array::fragment& frag) {
  std::map<std::string, std::vector<std::byte>> out;
  auto fields = frag.fields();
  for (const auto& s : frag.special_fields()) fields.push_back(s);
  for (const auto& f : fields) {
    auto& bytes = out[f.name];
    for (std::size_t t = 0; t < frag.tile_num(); ++t) {
      auto tile = frag.read_tile(f, t);
      bytes.insert(bytes.end(), tile.values.begin(), tile.values.end());
      for (auto o : tile.offsets) {
        std::byte b[8];
        codec::store_le<std::uint64_t>(b, o);
        bytes.insert(bytes.end(), b, b + 8);
      }
      for (auto v : tile.validity) bytes.push_back(std::byte{v});
    }
  }
  return out;
}

enum class kind { schema, fragment_metadata, data, var, validity, timestamps, commit, metadata, other };

kind kind_of(const fs::path& p) {
  const std::string n = p.filename().string(), dir = p.parent_path().filename().string();
  if (dir == "__schema") return kind::schema;
  if (dir == "__meta") return kind::metadata;
  if (dir == "__commits") return kind::commit;
  if (n == "__fragment_metadata.tdb") return kind::fragment_metadata;
  if (n.ends_with("_var.tdb")) return kind::var;
  if (n.ends_with("_validity.tdb")) return kind::validity;
  if (n == "t.tdb" || n == "dt.tdb" || n == "dci.tdb") return kind::timestamps;
  if (n.ends_with(".tdb")) return kind::data;
  return kind::other;
}

struct tally {
  std::map<kind, int> errors;
  int tries = 0;
};

void corrupt_every_file(const fs::path& src, const std::string& name, tally& seen) {
  auto root = copy_array(src, name);
  array::open_options opt;
  opt.skip_damaged_fragments = true;
  std::map<std::string, std::map<std::string, std::vector<std::byte>>> baseline;
  {
    auto arr = array::open(root, opt);
    REQUIRE(arr.damaged_fragments().empty());
    for (const auto& f : arr.fragments()) baseline[f.name().stem()] = read_all(f);
  }
  std::vector<fs::path> files;
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.file_size() > 0 && kind_of(e.path()) != kind::other) files.push_back(e.path());

  for (const auto& file : files) {
    const kind k = kind_of(file);
    const std::string frag_dir = file.parent_path().filename().string();
    auto original = tilefmt::storage::local{}.read(file);
    const std::size_t n = original.size();
    for (int variant = 0; variant < 5; ++variant) {
      CAPTURE(file.string());
      CAPTURE(variant);
      auto bytes = original;
      switch (variant) {
      case 0: bytes.resize(n / 2); break;
      case 1: bytes.resize(n - 1); break;
      case 2: bytes[n / 3] ^= std::byte{0xff}; break;
      case 3: bytes[(2 * n) / 3] ^= std::byte{0x41}; break;
      default: bytes[n > 9 ? n - 9 : 0] ^= std::byte{0x80}; break;  // a footer length or last tile offset
      }
      tilefmt::storage::local{}.write(file, bytes);
      ++seen.tries;
      auto names_file = [&](const std::string& what) {
        return what.find(file.filename().string()) != std::string::npos;
      };
      try {
        auto arr = array::open(root, opt);
        for (const auto& [frag, why] : arr.damaged_fragments()) {
          // Only the fragment that holds the file, or one written with a
          // damaged (older) schema.
          CHECK((frag.path.filename() == frag_dir || k == kind::schema));
          CHECK(names_file(why));
          ++seen.errors[k];
        }
        for (const auto& frag : arr.fragments()) {
          const std::string fname = frag.name().stem();
          if (fname != frag_dir) {
            // Untouched fragments read exactly as before.
            if (baseline.count(fname)) CHECK(read_all(frag) == baseline.at(fname));
            continue;
          }
          try {
            (void)read_all(frag);
          } catch (const format_error& e) {
            ++seen.errors[k];
            CAPTURE(std::string(e.what()));
            CHECK(names_file(e.what()));
            if (k != kind::fragment_metadata) {
              const std::string w = e.what();
              CHECK(w.find("fragment " + fname) != std::string::npos);
              CHECK(w.find(", field ") != std::string::npos);
              CHECK(w.find(", tile ") != std::string::npos);
            }
          } catch (const array::io_error& e) {
            ++seen.errors[k];
            CHECK(names_file(e.what()));
          }
        }
      } catch (const format_error& e) {
        // Files every read needs: the schema, array metadata.
        ++seen.errors[k];
        CHECK((k == kind::schema || k == kind::metadata || k == kind::commit));
        CHECK(names_file(e.what()));
      } catch (const array::io_error& e) {
        ++seen.errors[k];
        CHECK(names_file(e.what()));
      }
    }
    tilefmt::storage::local{}.write(file, original);
  }
  fs::remove_all(root);
}
} // namespace

TEST_CASE("every file kind damaged in turn: errors name the file, other fragments unaffected") {
  tally seen;
  corrupt_every_file(data / "tiledb/nullable_dense/array", "nullable_dense", seen);
  corrupt_every_file(data / "tiledb/sparse_2d_duplicates/array", "sparse_2d_duplicates", seen);
  corrupt_every_file(data / "tiledb/dense_1d_int32/array", "dense_1d_int32", seen);
  corrupt_every_file(data / "tiledb/metadata_all_types/array", "metadata_all_types", seen);
  corrupt_every_file(data / "time_travel/schema_evolution_sparse/array", "schema_evolution_sparse", seen);
  corrupt_every_file(data / "time_travel/sparse_deletes_consolidated/array", "sparse_deletes_consolidated", seen);
  MESSAGE("damaged variants tried: " << seen.tries);
  // Each kind of file gave errors (a flipped byte of uncompressed data may
  // only change a value, but truncation never goes unnoticed).
  for (kind k : {kind::schema, kind::fragment_metadata, kind::data, kind::var, kind::validity, kind::timestamps,
                 kind::metadata}) {
    CAPTURE(static_cast<int>(k));
    CHECK(seen.errors[k] > 0);
  }
}

TEST_CASE("a missing commit file hides its fragment; a missing data file is an error naming it") {
  auto root = copy_array(data / "tiledb/dense_1d_int32/array", "commit");
  auto arr = array::open(root);
  REQUIRE(arr.fragments().size() == 2);
  const auto second = arr.fragments()[1].name().stem();
  fs::remove(root / "__commits" / (second + ".wrt"));
  auto after = array::open(root);
  REQUIRE(after.fragments().size() == 1);
  CHECK(after.fragments()[0].name().stem() == arr.fragments()[0].name().stem());

  const auto first = arr.fragments()[0].name().stem();
  fs::remove(root / "__fragments" / first / "a0.tdb");
  auto again = array::open(root);
  REQUIRE(again.fragments().size() == 1);
  try {
    (void)again.fragments()[0].read<std::int32_t>("a");
    FAIL("no error for a missing data file");
  } catch (const format_error& e) {
    const std::string w = e.what();
    CHECK(w.find("a0.tdb") != std::string::npos);
    CHECK(w.find("fragment " + first) != std::string::npos);
    CHECK(w.find("field a, tile 0") != std::string::npos);
  }
  fs::remove_all(root);
}

} // namespace test_corruption
