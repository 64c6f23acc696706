// Opening an array on an object store is round trips: one listing of the
// array folder, its TileDB folders listed together, and every fragment's
// metadata fetched together (open_options::io_concurrency), each file
// once. A backend that waits on each request, as an object store does,
// counts them.
#include "tilefmt/array/read/array.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "../../support/forwarding_backend.hpp"
#include "../../support/rc_cells.hpp"
#include "../../support/testing.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/storage/memory.hpp"

namespace test_open_requests {

using namespace tilefmt;

namespace {

/// Memory storage that answers like an object store: it prefers few large
/// requests, and each request waits a little (the time in flight is
/// counted: how many were waiting at once).
class slow_store final : public testing::forwarding_backend<storage::memory> {
public:
  mutable std::atomic<int> in_flight{0}, most_in_flight{0};  // reads of fragment metadata
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
    // The fragments' metadata: how many such reads wait at once.
    const bool meta = p.filename() == "__fragment_metadata.tdb";
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
  array::create("/a",
                format::make_array_schema({.type = format::ArrayType::SPARSE,
                                           .dimensions = {format::make_dimension<std::int32_t>("r", 1, 64, 8),
                                                          format::make_dimension<std::int32_t>("c", 1, 64, 8)},
                                           .attributes = {format::make_attribute({.name = "v"})}}),
                {.storage = st});
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

} // namespace test_open_requests
