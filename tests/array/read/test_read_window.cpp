// Tiles larger than open_options::tile_read_window are read a piece at a
// time, their chunks decoded as they come (tile_source::stream_chunks):
// every query answers exactly as with tiles read whole, at every window
// size down to one byte, and a damaged tile fails the same way (or reads
// the same values) both ways, the error naming the file.
#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <sys/mman.h>

#include "../../support/all_tiles.hpp"
#include "../../support/result_rows.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/support/resident.hpp"
#include "tilefmt/storage/memory.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/zstd.hpp"

namespace test_read_window {

using namespace tilefmt;

namespace {

constexpr std::uint64_t whole = std::numeric_limits<std::uint64_t>::max();  // never a piece at a time
constexpr std::int64_t span = 60'000;  // each fragment's stretch of "t": two tiles of cells

/// A one-dimensional sparse array of 3 fragments whose tiles hold 20,000
/// cells, several chunks each: a float64 attribute under [byteshuffle,
/// zstd], an int32 one unfiltered (80,000 stored bytes a tile) and a
/// nullable var-size one (read whole: only fixed-size tiles stream).
std::shared_ptr<storage::memory> series() {
  auto st = std::make_shared<storage::memory>();
  using Z = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  array::create("/w",
                format::make_array_schema(
                    {.type = format::ArrayType::SPARSE,
                     .dimensions = {format::make_dimension<std::int64_t>("t", 0, 1'000'000, 1000)},
                     .attributes = {format::make_attribute(
                                        {.name = "a", .type = format::Datatype::FLOAT64, .filters = Z::descriptor()}),
                                    format::make_attribute({.name = "v"}),
                                    format::make_attribute({.name = "s",
                                                            .type = format::Datatype::STRING_ASCII,
                                                            .cell_val_num = format::var_num,
                                                            .nullable = true})},
                     .capacity = 20'000}),
                {.storage = st});
  std::uint64_t seed = 7;
  auto next = [&] { return seed = seed * 6364136223846793005u + 1442695040888963407u; };
  for (std::int64_t f = 0; f < 3; ++f) {
    std::vector<std::int64_t> t;
    std::vector<double> a;
    std::vector<std::int32_t> v;
    std::vector<std::string> s;
    std::vector<std::uint8_t> valid;
    for (std::int64_t x = f * span; x < (f + 1) * span; x += 1 + static_cast<std::int64_t>(next() >> 63)) {
      t.push_back(x);
      a.push_back(static_cast<double>(next() >> 11) * 0x1p-53 - 0.5);
      v.push_back(static_cast<std::int32_t>(next() >> 33));
      s.push_back(std::string(static_cast<std::size_t>(x % 4), 'x'));
      valid.push_back(x % 5 != 0);
    }
    array::sparse_writer w("/w", st);
    w.set_coords("t", t).set("a", a).set("v", v).set_var("s", s, valid);
    w.commit({.timestamp = static_cast<std::uint64_t>(f + 1)});
  }
  return st;
}

/// The cells of [lo, hi] (and of [lo2, hi2], if given: several ranges
/// take the general sparse reader, one the one-dimensional one).
std::vector<std::string> rows(const std::shared_ptr<storage::memory>& st, std::uint64_t window, unsigned threads,
                              std::int64_t lo, std::int64_t hi, bool condition, std::int64_t lo2 = -1, std::int64_t hi2 = -1) {
  auto arr = array::open("/w", {.threads = threads, .tile_read_window = window, .storage = st});
  auto q = arr.query().subarray({{lo, hi}});
  if (lo2 >= 0) q.add_range(0, lo2, hi2);
  if (condition) q.where(array::field("a") > 0.0);
  return testing::rows(q.read());
}

std::vector<std::string> outcome(const std::shared_ptr<storage::memory>& st, std::uint64_t window) {
  try {
    return rows(st, window, 2, 0, 3 * span - 1, false);
  } catch (const format_error& e) {
    return {std::string("format_error naming the file: ") + (std::string(e.what()).find("a0.tdb") != std::string::npos ? "yes" : "no")};
  }
}

} // namespace

TEST_CASE("tiles read a piece at a time answer as tiles read whole") {
  const auto st = series();
  const std::vector<std::pair<std::int64_t, std::int64_t>> ranges{
      {0, 3 * span - 1}, {12'345, 12'346}, {1'000, 1'999}, {span / 2, 5 * span / 2}, {span - 10, span + 10}, {17, 3'000}};
  for (const auto& range : ranges)
    for (const bool condition : {false, true}) {
      const std::int64_t lo = range.first, hi = range.second;
      const auto expected = rows(st, whole, 1, lo, hi, condition);
      if (!condition) CHECK(!expected.empty());
      for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{13}, std::uint64_t{70'000}})
        for (const unsigned threads : {1u, 3u}) {
          if (testing::under_thread_sanitizer && threads == 1) continue;  // testing.hpp
          CAPTURE(lo);
          CAPTURE(hi);
          CAPTURE(condition);
          CAPTURE(window);
          CAPTURE(threads);
          CHECK(rows(st, window, threads, lo, hi, condition) == expected);
        }
    }
  // Several ranges: the general reader's attribute reads.
  const auto expected = rows(st, whole, 1, 1'000, 45'000, false, 2 * span, 2 * span + 100);
  CHECK(expected.size() > 20'000);
  for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{70'000}})
    CHECK(rows(st, window, 2, 1'000, 45'000, false, 2 * span, 2 * span + 100) == expected);
}

TEST_CASE("tiles larger than a core's L2 decode around the caches into a buffer in memory, with the same values") {
  // 2^18 float64 cells a tile (2 MiB, over tile_source::streamed_tile_bytes):
  // a column read into a buffer already in memory decodes whole tiles
  // straight into it, and the byteshuffle stage writes them with
  // non-temporal stores; piece-at-a-time reads (window) take the same path
  // per chunk. A buffer in memory at an offset not aligned to 64 bytes, a
  // fresh result (ordinary stores), and a box starting mid-tile (through a
  // tile buffer) must all agree.
  using Z = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
  constexpr std::int64_t extent = std::int64_t{1} << 18, cells = 3 * extent;
  auto st = std::make_shared<storage::memory>();
  array::create("/big",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int64_t>("d", 0, cells - 1, extent)},
                     .attributes = {format::make_attribute(
                         {.name = "a", .type = format::Datatype::FLOAT64, .filters = Z::descriptor()})}}),
                {.storage = st});
  std::vector<double> a(static_cast<std::size_t>(cells));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 1000) * 0.25 - static_cast<double>(i >> 12);
  array::dense_writer f("/big", {{0, cells - 1}}, array::cell_layout::row_major, st);
  f.set("a", a).commit({.timestamp = 1});
  for (const std::uint64_t window : {whole, std::uint64_t{100'000}})
    for (const unsigned threads : {1u, 2u}) {
      CAPTURE(window);
      CAPTURE(threads);
      auto arr = array::open("/big", {.threads = threads, .tile_read_window = window, .storage = st});
      std::vector<double> into(a.size() + 3, -1.0);  // in memory: written when made
      for (const std::size_t at : {0u, 3u}) {
        REQUIRE(array::detail::resident(std::as_bytes(std::span(into))));
        arr.fragments().at(0).read_into<double>("a", std::span(into).subspan(at, a.size()));
        CHECK(std::equal(a.begin(), a.end(), into.begin() + static_cast<std::ptrdiff_t>(at)));
      }
      const auto column = arr.fragments().at(0).read<double>("a");
      CHECK(std::equal(column.begin(), column.end(), a.begin(), a.end()));
      const auto result = arr.query().subarray({{std::int64_t{0}, cells - 1}}).attributes({"a"}).read();
      const auto& got = result.bytes("a");
      REQUIRE(got.size() == a.size() * 8);
      CHECK(std::memcmp(got.data(), a.data(), got.size()) == 0);
      const auto part = arr.query().subarray({{std::int64_t{1000}, extent + 5}}).attributes({"a"}).read();
      REQUIRE(part.bytes("a").size() == static_cast<std::size_t>(extent + 5 - 1000 + 1) * 8);
      CHECK(std::memcmp(part.bytes("a").data(), a.data() + 1000, part.bytes("a").size()) == 0);
    }
}

TEST_CASE("resident: a fresh mapping is not in memory until written") {
  const std::size_t n = std::size_t{4} << 20;
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  // Small pages only: a transparent huge page faulted for the first half
  // could take in the start of the second.
  (void)::madvise(p, n, MADV_NOHUGEPAGE);
  const std::span<std::byte> s(static_cast<std::byte*>(p), n);
  CHECK_FALSE(array::detail::resident(s));
  std::memset(p, 1, n / 2);
  CHECK(array::detail::resident(s.first(n / 2)));
  CHECK_FALSE(array::detail::resident(s));  // the second half never touched
  CHECK_FALSE(array::detail::resident(s.subspan(n / 2 - 1, 2)));  // one byte on each side
  std::memset(p, 1, n);
  CHECK(array::detail::resident(s.subspan(1, n - 2)));
  CHECK_FALSE(array::detail::resident({}));
  ::munmap(p, n);
}

TEST_CASE("a damaged tile read a piece at a time fails as it does read whole, naming the file") {
  auto file_of = [](const storage::memory& st) { return "/w/__fragments/" + st.list("/w/__fragments").at(1).name + "/a0.tdb"; };
  // One array, its file damaged and put back in turn (each outcome opens
  // the array anew).
  const auto st = series();
  const auto file = file_of(*st);
  const auto original = st->read(file);
  REQUIRE(original.size() > 4096);
  // The first tile's chunk count, a chunk header's lengths, bytes inside
  // the compressed data, and the file cut short.
  int failed = 0;
  for (const std::size_t at : {std::size_t{0}, std::size_t{3}, std::size_t{8}, std::size_t{12}, std::size_t{16},
                               std::size_t{40}, original.size() / 2, original.size() - 3})
    for (const bool truncate : {false, true}) {
      CAPTURE(at);
      CAPTURE(truncate);
      auto bytes = original;
      if (truncate) bytes.resize(at);
      else bytes[at] ^= std::byte{0x5a};
      st->write(file, bytes);
      const auto streamed = outcome(st, 64), read_whole = outcome(st, whole);
      st->write(file, original);
      CHECK(streamed == read_whole);
      if (streamed.size() == 1 && streamed.front().starts_with("format_error")) {
        CHECK(streamed.front().ends_with("yes"));
        ++failed;
      }
    }
  CHECK(failed >= 8);
}

TEST_CASE("every test array reads the same a piece at a time") {
  // Every tile of every field (fixed, var and validity files, all the
  // filters and format versions of the test arrays, encrypted ones too),
  // and a whole-array query, with a window of one byte: each tile is read
  // header by header, chunk by chunk.
  const auto data = std::filesystem::path(TILEFMT_TEST_DATA);
  auto outcome = [](const array::array_reader& arr) {
    try {
      return testing::rows(arr.query().read());
    } catch (const std::exception& x) {  // a filter this build lacks: the same error both ways
      return std::vector<std::string>{std::string("error: ") + x.what()};
    }
  };
  std::size_t arrays = 0;
  for (const char* set : {"tiledb", "time_travel"})
    for (const auto& e : std::filesystem::directory_iterator(data / set)) {
      if (!std::filesystem::is_directory(e.path() / "array")) continue;
      CAPTURE(e.path());
      const auto key = testing::test_array_key(e.path());
      const auto read_whole = array::open(e.path() / "array", {.encryption_key = key, .tile_read_window = whole});
      const auto piecewise = array::open(e.path() / "array", {.encryption_key = key, .tile_read_window = 1});
      CHECK(testing::all_tiles(piecewise) == testing::all_tiles(read_whole));
      CHECK(outcome(piecewise) == outcome(read_whole));
      ++arrays;
    }
  CHECK(arrays >= 10);
}

} // namespace test_read_window
