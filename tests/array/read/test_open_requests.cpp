// Opening an array on an object store is round trips: one listing of the
// array folder, its TileDB folders listed together, and every fragment's
// metadata fetched together (open_options::io_concurrency), each file
// once. A backend that waits on each request, as an object store does,
// counts them.
#include "tilefmt/array/read/array.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "../../support/forwarding_backend.hpp"
#include "../../support/rc_cells.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/maintain/consolidate.hpp"
#include "tilefmt/array/maintain/vacuum.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/filter/pipeline.hpp"
#include "tilefmt/filter/zstd.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_open_requests {

using namespace tilefmt;
namespace fs = std::filesystem;

namespace {

/// Memory storage that answers like an object store: it prefers few large
/// requests, and each request waits a little (the time in flight is
/// counted: how many were waiting at once).
class slow_store final : public testing::forwarding_backend<storage::memory> {
public:
  mutable std::atomic<int> in_flight{0}, most_in_flight{0};  // reads of files named `watched`
  std::string watched = "__fragment_metadata.tdb";
  mutable std::mutex m;
  mutable std::map<std::string, int> requests;  // by path

  int count(const std::string& suffix) const {
    std::lock_guard lock(m);
    int n = 0;
    for (const auto& [p, k] : requests)
      if (p.ends_with(suffix)) n += k;
    return n;
  }

private:
  bool do_prefers_merged_reads() const override { return true; }
  void on_read(const std::filesystem::path& p) const override {
    {
      std::lock_guard lock(m);
      ++requests[p.string()];
    }
    // How many reads of the watched files wait at once.
    const bool meta = p.filename() == watched;
    const int now = meta ? ++in_flight : 0;
    int most = most_in_flight.load();
    while (now > most && !most_in_flight.compare_exchange_weak(most, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (meta) --in_flight;
  }
};

std::shared_ptr<slow_store> eight_fragments() {
  auto st = std::make_shared<slow_store>();
  testing::create_rc_array(st, "/a", 64, 8);
  for (std::int32_t t = 1; t <= 8; ++t) testing::write_rc_cells(st, "/a", {{t, t, t}, {t + 8, 1, -t}}, t);
  std::lock_guard lock(st->m);
  st->requests.clear();
  st->most_in_flight = 0;
  return st;
}

} // namespace

TEST_CASE("open: each fragment's metadata read once, all in flight together; the folders listed together") {
  auto st = eight_fragments();
  const auto arr = array::open("/a", {.storage = st});
  CHECK(arr.fragments().size() == 8);
  CHECK(st->count("__fragment_metadata.tdb") == 8);  // once each (it was read twice)
  CHECK(st->most_in_flight >= 4);
  // Listings: the array folder once, and no request asks whether a path
  // is a folder or a file.
  CHECK(st->count("/a") == 1);
  for (const char* sub : {"/a/__schema", "/a/__commits", "/a/__fragments"}) CHECK(st->count(sub) == 1);
  CHECK(testing::rc_cells_of(arr.query().layout(array::query_layout::row_major).read()).size() == 16);
}

/// Memory storage on which a consolidation and its vacuum run while a
/// reader opens the array: when the reader first reads fragment metadata
/// (the listing is done), every fragment is consolidated into one and the
/// old ones removed, so the metadata it listed is gone.
class vacuumed_while_opening final : public testing::forwarding_backend<storage::memory> {
public:
  mutable std::atomic<bool> armed{false};
  mutable std::atomic<int> listings{0};  // of the array folder

private:
  bool do_prefers_merged_reads() const override { return true; }
  void on_read(const std::filesystem::path& p) const override {
    if (p == "/a") ++listings;
    if (p.filename() != "__fragment_metadata.tdb" || !armed.exchange(false)) return;
    // The inner store, not through this hook (which would fire again).
    auto& self = const_cast<vacuumed_while_opening&>(*this);
    const std::shared_ptr<storage::backend> under(std::shared_ptr<void>{}, &self.inner);
    array::consolidate_fragments("/a", {.storage = under});
    array::vacuum_fragments("/a", under);
  }
};

TEST_CASE("open: fragments vacuumed between the listing and their reading are listed again, not an error") {
  auto st = std::make_shared<vacuumed_while_opening>();
  testing::create_rc_array(st, "/a", 64, 8);
  for (const bool skip_damaged : {false, true}) {
    CAPTURE(skip_damaged);
    const std::int32_t base = skip_damaged ? 16 : 0;
    for (std::int32_t t = 1; t <= 4; ++t)
      testing::write_rc_cells(st, "/a", {{base + t, t, t}, {base + t + 8, 1, -t}}, static_cast<std::uint64_t>(base + t));
    const auto before =
        testing::rc_cells_of(array::open("/a", {.storage = st}).query().layout(array::query_layout::row_major).read());
    st->armed = true;
    st->listings = 0;
    const auto arr = array::open("/a", {.skip_damaged_fragments = skip_damaged, .storage = st});
    CHECK_FALSE(st->armed);      // the vacuum ran during the open
    CHECK(st->listings == 2);    // and the array was listed again
    CHECK(arr.damaged_fragments().empty());
    CHECK(arr.fragments().size() == 1);
    CHECK(testing::rc_cells_of(arr.query().layout(array::query_layout::row_major).read()) == before);
  }
}

TEST_CASE("open: a fragment whose metadata is missing for good: listed again, then an error or a damaged fragment") {
  auto st = std::make_shared<vacuumed_while_opening>();  // never armed: nothing vacuumed
  testing::create_rc_array(st, "/a", 64, 8);
  for (std::int32_t t = 1; t <= 3; ++t) testing::write_rc_cells(st, "/a", {{t, t, t}}, t);
  const auto second = array::open("/a", {.storage = st}).fragments().at(1).name();
  st->inner.remove(fs::path("/a/__fragments") / second.str() / "__fragment_metadata.tdb");
  st->listings = 0;
  CHECK_THROWS_WITH_AS(array::open("/a", {.storage = st}), doctest::Contains("__fragment_metadata.tdb"),
                       storage::io_error);
  CHECK(st->listings == 4);  // listed again in case a vacuum removed it, then given up
  st->listings = 0;
  const auto arr = array::open("/a", {.skip_damaged_fragments = true, .storage = st});
  CHECK(st->listings == 4);
  CHECK(arr.fragments().size() == 2);
  REQUIRE(arr.damaged_fragments().size() == 1);
  CHECK(arr.damaged_fragments().front().first.name == second);
}

TEST_CASE("open: io_concurrency 1 fetches the fragments' metadata one at a time, with the same answer") {
  auto st = eight_fragments();
  const auto all = testing::rc_cells_of(array::open("/a", {.storage = st}).query().layout(array::query_layout::row_major).read());
  st->most_in_flight = 0;
  {
    std::lock_guard lock(st->m);
    st->requests.clear();
  }
  const auto arr = array::open("/a", {.io_concurrency = 1, .storage = st});
  CHECK(st->count("__fragment_metadata.tdb") == 8);
  CHECK(st->most_in_flight == 1);
  CHECK(testing::rc_cells_of(arr.query().layout(array::query_layout::row_major).read()) == all);
}

TEST_CASE("sparse query: the tiles of all fragments and fields fetched together, the answer unchanged") {
  auto st = eight_fragments();
  st->watched = "a0.tdb";  // attribute v's tiles
  const auto all = testing::rc_cells_of(
      array::open("/a", {.threads = 1, .storage = st}).query().layout(array::query_layout::row_major).read());
  CHECK(all.size() == 16);
  for (const unsigned io : {0u, 1u}) {
    CAPTURE(io);
    const auto arr = array::open("/a", {.threads = 2, .io_concurrency = io, .storage = st});
    for (const auto layout : {array::query_layout::row_major, array::query_layout::unordered,
                              array::query_layout::global_order}) {
      CAPTURE(static_cast<int>(layout));
      st->most_in_flight = 0;
      auto got = testing::rc_cells_of(arr.query().layout(layout).read());
      if (layout != array::query_layout::row_major)
        std::sort(got.begin(), got.end(), [](const auto& x, const auto& y) { return std::pair{x.r, x.c} < std::pair{y.r, y.c}; });
      CHECK(got == all);
      if (io == 0)
        CHECK(st->most_in_flight >= 4);  // 8 fragments' tiles waiting together
      else
        CHECK(st->most_in_flight == 1);
    }
  }
}

/// A dense array of 64 x 64 int32 cells in tiles of 8 x 8, written in
/// eight fragments: seven overlapping bands of 12 rows, then a box over
/// the first two; attribute `a` filtered with zstd.
std::shared_ptr<slow_store> eight_dense_fragments() {
  auto st = std::make_shared<slow_store>();
  using Z = filter::pipeline<filter::zstd<1>>;
  array::create("/d",
                format::make_array_schema(
                    {.type = format::ArrayType::DENSE,
                     .dimensions = {format::make_dimension<std::int32_t>("r", 1, 64, 8),
                                    format::make_dimension<std::int32_t>("c", 1, 64, 8)},
                     .attributes = {format::make_attribute(
                         {.name = "a", .type = format::Datatype::INT32, .filters = Z::descriptor()})}}),
                {.storage = st});
  for (std::int32_t t = 1; t <= 7; ++t) {
    const std::int32_t lo = (t - 1) * 8 + 1, hi = t * 8 + 4;
    std::vector<std::int32_t> a;
    for (std::int32_t r = lo; r <= hi; ++r)
      for (std::int32_t c = 1; c <= 64; ++c) a.push_back(r * 1000 + c * 10 + t);
    array::dense_writer f("/d", {{lo, hi}, {1, 64}}, array::cell_layout::row_major, st);
    f.set("a", a).commit({.timestamp = static_cast<std::uint64_t>(t)});
  }
  // The newest: rows 1..16, columns 17..48.
  std::vector<std::int32_t> a;
  for (std::int32_t r = 1; r <= 16; ++r)
    for (std::int32_t c = 17; c <= 48; ++c) a.push_back(-(r * 1000 + c));
  array::dense_writer f("/d", {{1, 16}, {17, 48}}, array::cell_layout::row_major, st);
  f.set("a", a).commit({.timestamp = 8});
  st->watched = "a0.tdb";
  return st;
}

/// Cell (r, c)'s value as the fragments of eight_dense_fragments leave it.
std::int32_t dense_cell(std::int32_t r, std::int32_t c) {
  if (r <= 16 && c >= 17 && c <= 48) return -(r * 1000 + c);
  // The newest band holding row r: bands t cover rows (t-1)*8+1 .. t*8+4.
  const std::int32_t t = std::min<std::int32_t>(7, (r - 1) / 8 + 1);
  return r * 1000 + c * 10 + t;
}

TEST_CASE("dense query: the tiles of all fragments fetched ahead together, the answer unchanged") {
  auto st = eight_dense_fragments();
  std::vector<std::int32_t> want;
  for (std::int32_t r = 1; r <= 56; ++r)
    for (std::int32_t c = 1; c <= 64; ++c) want.push_back(dense_cell(r, c));
  for (const unsigned io : {0u, 1u}) {
    CAPTURE(io);
    const auto arr = array::open("/d", {.threads = 2, .io_concurrency = io, .storage = st});
    st->most_in_flight = 0;
    const auto got = arr.query().subarray({{1, 56}, {1, 64}}).read();
    const auto a = got.get<std::int32_t>("a");
    CHECK(std::vector<std::int32_t>(a.begin(), a.end()) == want);
    if (io == 0)
      CHECK(st->most_in_flight >= 4);  // 8 fragments' batches waiting together
    else
      CHECK(st->most_in_flight == 1);
    // An aggregate folds the cells of the tiles the subarray covers in part
    // (whole tiles answer from their metadata) the same way.
    st->most_in_flight = 0;
    std::int64_t sum = 0;
    for (std::int32_t r = 2; r <= 55; ++r)
      for (std::int32_t c = 1; c <= 64; ++c) sum += dense_cell(r, c);
    CHECK(arr.query().subarray({{2, 55}, {1, 64}}).aggregate(array::aggregate_op::sum, "a") ==
          array::aggregate_value{sum});
    CHECK(st->most_in_flight >= 1);
    if (io == 1) CHECK(st->most_in_flight == 1);
    // Cells failing a condition read as the fill value (INT32_MIN).
    const auto negative =
        arr.query().subarray({{1, 56}, {1, 64}}).where(array::field("a") < std::int32_t{0}).read().get<std::int32_t>("a");
    std::size_t kept = 0;
    for (const auto v : negative) kept += v < 0 && v != std::numeric_limits<std::int32_t>::min() ? 1 : 0;
    CHECK(kept == 16 * 32);
  }
}

} // namespace test_open_requests
