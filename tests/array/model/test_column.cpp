// Whole-column reads: the column<T> buffer, read_into a caller's buffer, and
// the dense fill decision per tile (the fast "whole tile written" test and
// the per-cell walk must agree).
#include "tilefmt/array/read/array.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "../../support/testing.hpp"

namespace test_column {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {
const fs::path data = fs::path(TILEFMT_TEST_DATA);
} // namespace

TEST_CASE("column<T>: large buffers are huge-page aligned, small ones are ordinary, both hold their values") {
  array::column<std::int64_t> big(std::size_t{1} << 20);  // 8 MiB
  CHECK(reinterpret_cast<std::uintptr_t>(big.data()) % (std::uintptr_t{2} << 20) == 0);
  std::iota(big.begin(), big.end(), std::int64_t{-5});
  CHECK(big.front() == -5);
  CHECK(big.back() == (std::int64_t{1} << 20) - 6);
  array::column<std::int32_t> small(100, 7);  // construction with a value still sets it
  CHECK(std::all_of(small.begin(), small.end(), [](std::int32_t v) { return v == 7; }));
  big.resize(10);
  big.shrink_to_fit();  // moves from the huge-page path to the ordinary one
  CHECK(big[9] == 4);
  // A small buffer sized for an upper bound and mostly unused is
  // reallocated to its size; one mostly used is left as it is.
  array::column<std::int32_t> bound(50000);  // 200 KB: below mapped_threshold
  std::iota(bound.begin(), bound.end(), 0);
  bound.resize(1000);
  array::detail::release_unused(bound);
  CHECK(bound.capacity() == 1000);
  CHECK(bound[999] == 999);
  bound.reserve(1500);
  array::detail::release_unused(bound);
  CHECK(bound.capacity() == 1500);
}

#if defined(__linux__)
namespace {
std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}
} // namespace

TEST_CASE("column<T>: a large buffer's memory goes back to the system when it is freed, and past its size on release_unused") {
  if constexpr (array::detail::under_address_sanitizer) return;  // the sanitizer's allocator keeps freed memory
  constexpr std::size_t mib = std::size_t{1} << 20;
  // Freed and allocated again: the process keeps no more of freed buffers'
  // pages than the mapping cache's bound. (glibc's malloc would: a large
  // block freed raises its mmap threshold to that size, so smaller buffers
  // then come from its heap, whose top it keeps resident up to twice the
  // threshold.)
  const std::uint64_t before = resident_bytes();
  for (std::size_t size : {30 * mib, 8 * mib, 8 * mib, 6 * mib, 8 * mib, 12 * mib, 16 * mib}) {
    array::column<std::byte> c(size);
    std::memset(c.data(), 1, c.size());
    CHECK(c[c.size() - 1] == std::byte{1});
  }
  CHECK(resident_bytes() < before + array::detail::mapping_cache::max_total + 4 * mib);
  // A buffer sized for an upper bound, written in full, then shrunk: the
  // pages past its size leave the process, what it keeps stays.
  array::column<std::byte> c(48 * mib);
  std::memset(c.data(), 1, c.size());
  const std::uint64_t full = resident_bytes();
  c.resize(4 * mib + 100);
  array::detail::release_unused(c);
  CHECK(resident_bytes() + 40 * mib < full);
  CHECK(c.capacity() == 48 * mib);
  CHECK(std::all_of(c.begin(), c.end(), [](std::byte b) { return b == std::byte{1}; }));
  c.resize(48 * mib);  // the released pages read as zeros and can be written again
  CHECK(c[40 * mib] == std::byte{0});
  c[40 * mib] = std::byte{3};
  CHECK(c[40 * mib] == std::byte{3});
}

TEST_CASE("column<T>: a freed large buffer's mapping serves the next one of about its size, within the cache's bound") {
  if constexpr (!array::detail::column_allocator<std::byte>::recycles) return;
  constexpr std::size_t mib = std::size_t{1} << 20;
  auto& cache = array::detail::mapping_cache::instance();
  // Empty the cache: every mapping it keeps is taken (and given back to the
  // system when the column goes).
  for (std::size_t n = array::detail::column_allocator<std::byte>::mapped_threshold; n <= array::detail::mapping_cache::max_total; n *= 2)
    while (void* p = cache.take(n)) ::munmap(p, n);
  const std::byte* first = nullptr;
  {
    array::column<std::byte> c(5 * mib);
    std::memset(c.data(), 5, c.size());
    first = c.data();
  }
  const std::uint64_t before = resident_bytes();
  {
    // Of about the same size: the same pages, resident already (their old
    // bytes are there: a column's elements start unset).
    array::column<std::byte> again(5 * mib + 1000);
    CHECK(again.data() == first);
    CHECK(resident_bytes() >= before);
    CHECK(resident_bytes() < before + mib);
    std::memset(again.data(), 6, again.size());
    CHECK(again.back() == std::byte{6});
  }
  {
    // Less than half the kept mapping: a fresh one (the kept one stays).
    array::column<std::byte> small(std::size_t{1} << 20);
    CHECK(small.data() != first);
    // More than the cache holds in all: not kept when freed.
    array::column<std::byte> big(array::detail::mapping_cache::max_total + 2 * mib);
    big.back() = std::byte{1};
  }
  CHECK(cache.take(array::detail::mapping_cache::max_total + 2 * mib) == nullptr);
  // take() hands out a kept mapping of at least the size asked for and at
  // most twice it, trimmed to the size asked for.
  void* kept = cache.take(4 * mib);  // the 6 MiB mapping, its last 2 MiB given back
  REQUIRE(kept != nullptr);
  CHECK(kept == first);
  static_cast<std::byte*>(kept)[4 * mib - 1] = std::byte{7};
  cache.give(kept, 4 * mib);
  CHECK(cache.take(6 * mib) == nullptr);
  void* other = cache.take(mib);  // the small column's (1 MiB), not the 4 MiB one: more than twice
  CHECK(other != nullptr);
  CHECK(other != kept);
  if (other) ::munmap(other, mib);
  CHECK(cache.take(4 * mib) == kept);
  ::munmap(kept, 4 * mib);
  // Many freed at once: the oldest go back to the system, the cache's
  // bound holds.
  {
    std::vector<array::column<std::byte>> many;
    for (int i = 0; i < 12; ++i) {
      many.emplace_back(2 * mib);
      std::memset(many.back().data(), 1, many.back().size());
    }
    const std::uint64_t full = resident_bytes();
    many.clear();
    CHECK(resident_bytes() + 24 * mib < full + array::detail::mapping_cache::max_total + mib);
  }
}
#endif

TEST_CASE("read_into fills a caller's buffer with what read returns, and checks its size") {
  auto arr = array::open(data / "tiledb/dense_1d_int32/array");
  for (const auto& f : arr.fragments()) {
    auto expected = f.read<std::int32_t>("a");
    std::vector<std::int32_t> mine(static_cast<std::size_t>(f.cell_num()), 12345);
    f.read_into("a", std::span<std::int32_t>(mine));
    CHECK(std::equal(mine.begin(), mine.end(), expected.begin(), expected.end()));
    std::vector<std::int32_t> short_buffer(mine.size() - 1);
    CHECK_THROWS_AS(f.read_into("a", std::span<std::int32_t>(short_buffer)), std::invalid_argument);
    std::vector<std::int64_t> wrong_type(mine.size());
    CHECK_THROWS_AS(f.read_into("a", std::span<std::int64_t>(wrong_type)), std::invalid_argument);
  }
}

TEST_CASE("dense tiles: fully_written agrees with the per-cell walk, which covers the non-empty domain once") {
  for (const char* name : {"dense_1d_int32", "dense_2d_tilecol_cellcol", "nullable_dense", "filter_bitshuffle"}) {
    CAPTURE(name);
    auto arr = array::open(data / "tiledb" / name / "array");
    for (const auto& f : arr.fragments()) {
      if (!f.dense()) continue;
      std::uint64_t written = 0;
      for (std::size_t i = 0; i < f.tile_num(); ++i) {
        auto cells = f.written_cells(i);
        const auto n = static_cast<std::uint64_t>(std::count(cells.begin(), cells.end(), true));
        CHECK(f.fully_written(i) == (n == cells.size()));
        written += n;
      }
      // Every cell of the non-empty domain lies in exactly one tile.
      std::uint64_t expected = 1;
      const auto& dims = f.schema().domain.dimensions.value;
      for (std::size_t d = 0; d < dims.size(); ++d)
        format::visit_integer_type(dims[d].type.value, [&]<class T>() {
          auto [lo, hi] = f.non_empty_domain().ranges.at(d).template as<T>();
          expected *= static_cast<std::uint64_t>(hi - lo) + 1;
        });
      CHECK(written == expected);
    }
  }
}

TEST_CASE("dense_1d_int32: the partly written edge tiles, exactly") {
  auto arr = array::open(data / "tiledb/dense_1d_int32/array");
  const auto& f = arr.fragments()[1];  // wrote [15, 37] of tiles [11, 20], [21, 30], [31, 40]
  REQUIRE(f.tile_num() == 3);
  auto t0 = f.written_cells(0);
  CHECK(std::count(t0.begin(), t0.end(), false) == 4);
  CHECK_FALSE(t0[3]);
  CHECK(t0[4]);
  CHECK(f.fully_written(1));
  auto t2 = f.written_cells(2);
  CHECK(t2[6]);
  CHECK_FALSE(t2[7]);
  CHECK(std::count(t2.begin(), t2.end(), false) == 3);
}

} // namespace test_column
