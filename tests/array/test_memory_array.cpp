// The array layer on another backend: every test array copied into memory
// reads exactly as it does from disk, and an array written into memory reads
// back and can be copied out to disk.
#include "tilefmt/array/array.hpp"
#include "tilefmt/array/writer.hpp"

#include <filesystem>

#include "../support/testing.hpp"
#include "tilefmt/storage/copy.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_memory_array {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);

std::vector<std::vector<std::byte>> columns(const array::array_reader& arr) {
  std::vector<std::vector<std::byte>> out;
  for (const auto& frag : arr.fragments())
    for (const auto& f : frag.fields())
      for (std::size_t t = 0; t < frag.tile_num(); ++t) {
        auto tile = frag.read_tile(f, t);
        out.push_back(tile.values);
      }
  return out;
}
} // namespace

TEST_CASE("every test array reads the same from memory as from disk") {
  std::size_t arrays = 0;
  for (const char* set : {"tiledb", "time_travel"})
    for (const auto& e : fs::directory_iterator(data / set)) {
      if (!fs::is_directory(e.path() / "array")) continue;
      CAPTURE(e.path());
      auto st = std::make_shared<storage::memory>();
      storage::copy_tree(storage::local{}, e.path() / "array", *st, "mem/array");
      const auto key = testing::test_array_key(e.path());
      auto from_disk = array::open(e.path() / "array", {.encryption_key = key});
      auto from_memory = array::open("mem/array", {.encryption_key = key, .storage = st});
      CHECK(from_memory.fragments().size() == from_disk.fragments().size());
      CHECK(from_memory.metadata().entries() == from_disk.metadata().entries());
      CHECK(columns(from_memory) == columns(from_disk));
      ++arrays;
    }
  CHECK(arrays >= 10);
}

TEST_CASE("an array written into memory reads back, and copies out to disk") {
  auto st = std::make_shared<storage::memory>();
  using P = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  auto schema =
      format::make_array_schema({.type = format::ArrayType::DENSE,
                                 .dimensions = {format::make_dimension<std::int32_t>("x", 1, 100, 10)},
                                 .attributes = {format::make_attribute(
                                     {.name = "a", .type = format::Datatype::INT32, .filters = P::descriptor()})}});
  array::create("arrays/a", schema, {.storage = st});
  std::vector<std::int32_t> v(40);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * i);
  array::dense_fragment f("arrays/a", {{11, 50}}, array::cell_layout::row_major, st);
  f.set<P>("a", v);
  f.commit();
  CHECK_FALSE(fs::exists("arrays/a")); // nothing reached the disk
  auto arr = array::open("arrays/a", {.storage = st});
  auto a = arr.fragments().at(0).read<std::int32_t>("a");
  CHECK(std::vector<std::int32_t>(a.begin(), a.end()) == v);

  const fs::path out = testing::copy_to_temp(data / "tiledb" / "dense_1d_int32" / "array", "memory-out");
  fs::remove_all(out);
  storage::local disk;
  storage::copy_tree(*st, "arrays/a", disk, out);
  auto back = array::open(out).fragments().at(0).read<std::int32_t>("a");
  CHECK(std::vector<std::int32_t>(back.begin(), back.end()) == v);
  fs::remove_all(out);
}

} // namespace test_memory_array
