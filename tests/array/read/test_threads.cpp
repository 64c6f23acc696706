// One opened array, many threads: every const member may be called at once
// (whole columns, single tiles, validity, var-size fields), and each thread
// sees what a single thread reads. Run under ThreadSanitizer by
// scripts/test.sh.
#include "tilefmt/array/read/array.hpp"

#include <filesystem>
#include <map>
#include <thread>

#include "../../support/testing.hpp"

namespace test_threads {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

/// Every field of every fragment as bytes, read tile by tile.
std::map<std::string, std::vector<std::byte>> read_everything(const array::array_reader& arr) {
  std::map<std::string, std::vector<std::byte>> out;
  for (const auto& frag : arr.fragments()) {
    auto fields = frag.fields();
    for (auto& s : frag.special_fields()) fields.push_back(s);
    for (const auto& f : fields) {
      auto& bytes = out[frag.name().str() + "/" + f.name];
      for (std::size_t t = 0; t < frag.tile_num(); ++t) {
        auto tile = frag.read_tile(f, t);
        bytes.insert(bytes.end(), tile.values.begin(), tile.values.end());
        for (auto o : tile.offsets)
          for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<std::byte>(o >> (8 * k)));
        for (auto v : tile.validity) bytes.push_back(static_cast<std::byte>(v));
      }
      if (!f.var()) {
        auto column = frag.read_bytes(f.name);
        bytes.insert(bytes.end(), column.begin(), column.end());
      }
      if (f.nullable) {
        auto v = frag.read_validity(f.name);
        for (auto x : v) bytes.push_back(static_cast<std::byte>(x));
      }
    }
  }
  return out;
}

} // namespace

TEST_CASE("many threads read one opened array and agree with one thread") {
  for (const char* name : {"tiledb/nullable_dense/array", "tiledb/sparse_2d_duplicates/array",
                           "tiledb/filter_dictionary_utf8/array", "tiledb/dense_2d_tilecol_cellcol/array",
                           "time_travel/sparse_deletes_consolidated/array", "legacy/non_split_coords_v1_4_0",
                           "tiledb/encrypted_sparse/array"}) {
    CAPTURE(name);
    const auto key = testing::test_array_key(name);
    const auto expected = read_everything(array::open(data / name, {.encryption_key = key, .threads = 1}));
    // Opened once, used by all; each column read also spreads its tiles over threads.
    const auto arr = array::open(data / name, {.encryption_key = key, .threads = 2});
    std::vector<int> agree(4, 0);
    std::vector<std::thread> pool;
    for (std::size_t w = 0; w < agree.size(); ++w)
      pool.emplace_back([&, w] {
        try {
          agree[w] = read_everything(arr) == expected ? 1 : 2;
        } catch (...) {
          agree[w] = 3;
        }
      });
    for (auto& t : pool) t.join();
    CHECK(agree == std::vector<int>{1, 1, 1, 1});
  }
}

} // namespace test_threads
