// parallel_for: every index once, on the threads asked for, errors rethrown;
// parallel_stable_sort: std::stable_sort's result on any number of threads;
// place_in_order: outputs back to back in task order, and no wait for ever
// when a task fails.
#include "tilefmt/array/detail/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../support/testing.hpp"

namespace test_parallel {

using tilefmt::array::detail::parallel_for;
using tilefmt::array::detail::parallel_stable_sort;
using tilefmt::array::detail::place_in_order;

TEST_CASE("parallel_for: every index exactly once") {
  for (unsigned threads : {0u, 1u, 2u, 3u, 16u})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> hits(n);
      parallel_for(n, threads, [&](std::size_t i) { ++hits[i]; });
      for (std::size_t i = 0; i < n; ++i) CHECK(hits[i] == 1);
    }
}

TEST_CASE("parallel_for: the caller's thread takes a share; errors come back") {
  std::set<std::thread::id> ids;
  parallel_for(10, 1, [&](std::size_t) { ids.insert(std::this_thread::get_id()); });
  CHECK(ids == std::set<std::thread::id>{std::this_thread::get_id()});
  // With more, the caller takes the first share (indices 0, T, 2T, ...) and
  // T - 1 threads start for the rest.
  std::vector<std::thread::id> by_index(12);
  parallel_for(12, 3, [&](std::size_t i) { by_index[i] = std::this_thread::get_id(); });
  for (std::size_t i = 0; i < 12; ++i) {
    CHECK((by_index[i] == std::this_thread::get_id()) == (i % 3 == 0));
    CHECK(by_index[i] == by_index[i % 3]);
  }
  CHECK(std::set<std::thread::id>(by_index.begin(), by_index.end()).size() == 3);
  std::atomic<int> ran{0};
  CHECK_THROWS_AS(parallel_for(100, 4,
                               [&](std::size_t i) {
                                 ++ran;
                                 if (i == 37) throw std::runtime_error("tile 37");
                               }),
                  std::runtime_error);
  CHECK(ran >= 1);
}

TEST_CASE("parallel_stable_sort: std::stable_sort's order, equal keys kept in place, on any number of threads") {
  std::mt19937_64 rng(11);
  // Sizes below and above the 2^15 elements a piece needs, odd ones included.
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{65536},
                        std::size_t{200003}}) {
    // (key, original index): few distinct keys, so most elements tie.
    std::vector<std::pair<std::uint32_t, std::size_t>> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {static_cast<std::uint32_t>(rng() % 97), i};
    const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    auto expected = v;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    for (unsigned threads : {1u, 2u, 3u, 5u, 8u}) {
      auto got = v;
      parallel_stable_sort(got.begin(), got.end(), by_key, threads);
      CHECK(got == expected);
    }
  }
}

TEST_CASE("place_in_order: each task's output starts where the one before it ends, whatever order they finish in") {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{200}}) {
      std::vector<std::size_t> size(n), at(n, 0);
      for (std::size_t i = 0; i < n; ++i) size[i] = (i * 7919) % 13;  // some zero
      place_in_order places(n);
      parallel_for(n, threads, [&](std::size_t i) {
        auto place = places.claim(i);
        if (i % 3 == 0) std::this_thread::yield();  // finish out of order
        const auto where = place(size[i]);
        REQUIRE(where);
        at[i] = *where;
      });
      std::size_t expect = 0;
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(at[i] == expect);
        expect += size[i];
      }
      REQUIRE(places.total());
      CHECK(*places.total() == expect);
    }
}

TEST_CASE("place_in_order: a task can learn where it starts, write, then say how much it wrote") {
  // Tasks that write a number of items they learn while writing (every
  // third one asks first), into one buffer: back to back, in task order.
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    const std::size_t n = 300;
    std::vector<int> out(n * 5, -1);
    place_in_order places(n);
    parallel_for(n, threads, [&](std::size_t i) {
      auto place = places.claim(i);
      const std::size_t size = (i * 31) % 5;
      if (i % 3 == 0) {
        const auto start = place.start();
        REQUIRE(start);
        for (std::size_t k = 0; k < size; ++k) out[*start + k] = static_cast<int>(i);
        CHECK(place(size) == start);
      } else {
        const auto where = place(size);
        REQUIRE(where);
        for (std::size_t k = 0; k < size; ++k) out[*where + k] = static_cast<int>(i);
      }
    });
    REQUIRE(places.total());
    std::vector<int> expect;
    for (std::size_t i = 0; i < n; ++i) expect.insert(expect.end(), (i * 31) % 5, static_cast<int>(i));
    out.resize(*places.total());
    CHECK(out == expect);
    // After a task gives up, the tasks after it learn so from start() too.
    place_in_order quit(6);
    parallel_for(6, threads, [&](std::size_t i) {
      auto place = quit.claim(i);
      if (i == 2) return;
      CHECK(place.start().has_value() == (i < 2));
      (void)place(1);
    });
  }
}

TEST_CASE("place_in_order: a task that fails or gives up releases the tasks after it") {
  for (unsigned threads : {1u, 2u, 4u}) {
    place_in_order places(100);
    std::atomic<int> answered{0}, refused{0};
    CHECK_THROWS_AS(parallel_for(100, threads,
                                 [&](std::size_t i) {
                                   auto place = places.claim(i);
                                   if (i == 37) throw std::runtime_error("tile 37");
                                   if (place(1)) ++answered;
                                   else ++refused;
                                 }),
                    std::runtime_error);
    CHECK(answered == 37);  // tasks 0..36; every later one that ran is told, none waits
    CHECK(!places.total());
    place_in_order quit(10);
    parallel_for(10, threads, [&](std::size_t i) {
      auto place = quit.claim(i);
      if (i == 4) return;  // gives up without a size
      CHECK(place(2).has_value() == (i < 4));
    });
    CHECK(!quit.total());
  }
}

} // namespace test_parallel
