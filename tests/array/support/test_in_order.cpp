// Results made on several threads and taken in order (support/in_order.hpp),
// as the fragment writers encode tiles and append them to their files.
#include "tilefmt/array/support/in_order.hpp"

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../../support/testing.hpp"

namespace test_in_order {

using tilefmt::array::detail::for_each_in_order;

TEST_CASE("for_each_in_order: every item taken once, in order, with at most a window made ahead") {
  for (std::size_t workers : {0u, 1u, 2u, 4u})
    for (std::size_t window : {1u, 3u, 64u}) {
      const std::size_t n = 257;
      std::atomic<std::size_t> made{0};
      std::atomic<std::size_t> ahead_max{0};
      std::atomic<std::size_t> taken{0};
      std::vector<std::size_t> order;
      for_each_in_order<std::vector<std::size_t>>(
          n, workers, window,
          [&](std::size_t i, std::vector<std::byte>& scratch, std::vector<std::size_t>& result) {
            scratch.assign(i % 7, std::byte{1});  // reused from item to item
            result.assign(3, i);
            const std::size_t ahead = ++made - taken;
            for (std::size_t m = ahead_max; ahead > m && !ahead_max.compare_exchange_weak(m, ahead);) {
            }
            if (i % 5 == 0) std::this_thread::yield();
          },
          [&](std::size_t i, std::vector<std::size_t>& result) {
            CHECK(result == std::vector<std::size_t>(3, i));
            order.push_back(i);
            ++taken;
          });
      REQUIRE(order.size() == n);
      for (std::size_t i = 0; i < n; ++i) CHECK(order[i] == i);
      CHECK(made == n);
      // An item starts only while fewer than `window` made ones wait to be
      // taken; this count of taken ones runs ahead of the pool's own.
      if (workers > 1) CHECK(ahead_max <= window);
    }
}

TEST_CASE("for_each_in_order: the first error stops the work and is rethrown") {
  for (std::size_t workers : {1u, 2u}) {
    std::size_t taken = 0;
    CHECK_THROWS_WITH_AS(for_each_in_order<int>(
                             100, workers, 4,
                             [&](std::size_t i, std::vector<std::byte>&, int& r) {
                               if (i == 10) throw std::runtime_error("item 10");
                               r = static_cast<int>(i);
                             },
                             [&](std::size_t, int&) { ++taken; }),
                         "item 10", std::runtime_error);
    CHECK(taken <= 10);
  }
  CHECK_THROWS_WITH_AS(for_each_in_order<int>(
                           20, 2, 4, [](std::size_t, std::vector<std::byte>&, int&) {},
                           [](std::size_t i, int&) {
                             if (i == 3) throw std::logic_error("take 3");
                           }),
                       "take 3", std::logic_error);
}

} // namespace test_in_order
