// Tiles larger than open_options::tile_read_window are read a piece at a
// time, their chunks decoded as they come (tile_source::stream_chunks):
// every query answers exactly as with tiles read whole, at every window
// size down to one byte, and a damaged tile fails the same way (or reads
// the same values) both ways, the error naming the file.
#include "tilefmt/array/array.hpp"
#include "tilefmt/array/writer.hpp"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "../support/all_tiles.hpp"
#include "../support/result_rows.hpp"
#include "../support/testing.hpp"
#include "tilefmt/array/query.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_read_window {

using namespace tilefmt;

namespace {

constexpr std::uint64_t whole = std::numeric_limits<std::uint64_t>::max();  // never a piece at a time

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
    for (std::int64_t x = f * 100'000; x < (f + 1) * 100'000; x += 1 + static_cast<std::int64_t>(next() >> 63)) {
      t.push_back(x);
      a.push_back(static_cast<double>(next() >> 11) * 0x1p-53 - 0.5);
      v.push_back(static_cast<std::int32_t>(next() >> 33));
      s.push_back(std::string(static_cast<std::size_t>(x % 4), 'x'));
      valid.push_back(x % 5 != 0);
    }
    array::sparse_fragment w("/w", st);
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
    return rows(st, window, 2, 0, 299'999, false);
  } catch (const format_error& e) {
    return {std::string("format_error naming the file: ") + (std::string(e.what()).find("a0.tdb") != std::string::npos ? "yes" : "no")};
  }
}

} // namespace

TEST_CASE("tiles read a piece at a time answer as tiles read whole") {
  const auto st = series();
  const std::vector<std::pair<std::int64_t, std::int64_t>> ranges{
      {0, 299'999}, {12'345, 12'346}, {1'000, 1'999}, {50'000, 250'000}, {99'990, 100'010}, {17, 3'000}};
  for (const auto& range : ranges)
    for (const bool condition : {false, true}) {
      const std::int64_t lo = range.first, hi = range.second;
      const auto expected = rows(st, whole, 1, lo, hi, condition);
      if (!condition) CHECK(!expected.empty());
      for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{13}, std::uint64_t{70'000}})
        for (const unsigned threads : {1u, 3u}) {
          CAPTURE(lo);
          CAPTURE(hi);
          CAPTURE(condition);
          CAPTURE(window);
          CAPTURE(threads);
          CHECK(rows(st, window, threads, lo, hi, condition) == expected);
        }
    }
  // Several ranges: the general reader's attribute reads.
  const auto expected = rows(st, whole, 1, 1'000, 45'000, false, 150'000, 150'100);
  CHECK(expected.size() > 20'000);
  for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{70'000}})
    CHECK(rows(st, window, 2, 1'000, 45'000, false, 150'000, 150'100) == expected);
}

TEST_CASE("a damaged tile read a piece at a time fails as it does read whole, naming the file") {
  auto file_of = [](const storage::memory& st) { return "/w/__fragments/" + st.list("/w/__fragments").at(1).name + "/a0.tdb"; };
  const auto base = series();
  const auto original = base->read(file_of(*base));
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
      auto st = series();
      st->write(file_of(*st), bytes);
      const auto streamed = outcome(st, 64), read_whole = outcome(st, whole);
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
