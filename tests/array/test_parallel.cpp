// parallel_for: every index once, on the threads asked for, errors rethrown.
#include "tilefmt/array/detail/parallel.hpp"

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../support/testing.hpp"

namespace test_parallel {

using tilefmt::array::detail::parallel_for;

TEST_CASE("parallel_for: every index exactly once") {
  for (unsigned threads : {0u, 1u, 2u, 3u, 16u})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> hits(n);
      parallel_for(n, threads, [&](std::size_t i) { ++hits[i]; });
      for (std::size_t i = 0; i < n; ++i) CHECK(hits[i] == 1);
    }
}

TEST_CASE("parallel_for: one thread runs on the caller's thread; errors come back") {
  std::set<std::thread::id> ids;
  parallel_for(10, 1, [&](std::size_t) { ids.insert(std::this_thread::get_id()); });
  CHECK(ids == std::set<std::thread::id>{std::this_thread::get_id()});
  std::atomic<int> ran{0};
  CHECK_THROWS_AS(parallel_for(100, 4,
                               [&](std::size_t i) {
                                 ++ran;
                                 if (i == 37) throw std::runtime_error("tile 37");
                               }),
                  std::runtime_error);
  CHECK(ran >= 1);
}

} // namespace test_parallel
