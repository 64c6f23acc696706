// parallel_for: every index once, on the threads asked for, errors rethrown,
// the pool's threads kept from call to call, nested and concurrent calls
// finishing; parallel_stable_sort: std::stable_sort's result on any number
// of threads; place_in_order: outputs back to back in task order, and no wait
// for ever when a task fails.
#include "tilefmt/array/support/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>

#if defined(__linux__)
#include <sched.h>
#endif
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "../../support/testing.hpp"

namespace test_parallel {

using tilefmt::array::detail::parallel_for;
using tilefmt::array::detail::parallel_stable_sort;
using tilefmt::array::detail::stable_sort_runs;
using tilefmt::array::detail::place_in_order;
using tilefmt::array::detail::thread_pool;

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
  // With more, the caller runs task 0 and at most T - 1 other threads
  // (the pool's) run the rest; each thread claims its tasks in increasing order.
  std::mutex m;
  std::vector<std::thread::id> by_index(12);
  std::vector<std::pair<std::thread::id, std::size_t>> order;  // (thread, task) as each task started
  parallel_for(12, 3, [&](std::size_t i) {
    {
      std::lock_guard<std::mutex> lock(m);
      by_index[i] = std::this_thread::get_id();
      order.emplace_back(by_index[i], i);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  });
  CHECK(by_index[0] == std::this_thread::get_id());
  CHECK(std::set<std::thread::id>(by_index.begin(), by_index.end()).size() <= 3);
  for (std::size_t a = 0; a < order.size(); ++a)
    for (std::size_t b = a + 1; b < order.size(); ++b)
      if (order[a].first == order[b].first) CHECK(order[a].second < order[b].second);
  std::atomic<int> ran{0};
  CHECK_THROWS_AS(parallel_for(100, 4,
                               [&](std::size_t i) {
                                 ++ran;
                                 if (i == 37) throw std::runtime_error("tile 37");
                               }),
                  std::runtime_error);
  CHECK(ran >= 1);
}

TEST_CASE("parallel_for: the lowest failed task's error is rethrown, however the threads ran") {
  // Every task from 3 on fails, the lower ones after a delay: whichever
  // thread's error is caught first, task 3's is the one rethrown.
  for (int round = 0; round < 20; ++round) {
    try {
      parallel_for(64, 4, [&](std::size_t i) {
        if (i < 3) return;
        if (i < 6) std::this_thread::sleep_for(std::chrono::microseconds(200 * (6 - i)));
        throw std::runtime_error("task " + std::to_string(i));
      });
      FAIL("no error");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "task 3");
    }
  }
}

TEST_CASE("ordered_tasks: a claimed task runs unless a lower one failed, whoever ran first") {
  // Every task fails. A thread that claimed task 1 fails it before the
  // caller has begun task 0 (the pool thread woke first): task 0 still
  // runs, and its error is the one kept. Tasks above a failure are skipped.
  std::vector<std::size_t> ran;
  auto fail = [&](std::size_t i) {
    ran.push_back(i);
    throw std::runtime_error("task " + std::to_string(i));
  };
  tilefmt::array::detail::ordered_tasks tasks(5, fail);
  const std::size_t second = tasks.claim();
  REQUIRE(second == 1);
  const std::size_t third = tasks.claim();
  tasks.work(third);   // task 2 fails first
  tasks.work(second);  // task 1, claimed before, still runs
  tasks.work(0);       // and task 0
  tasks.work(tasks.claim());  // task 3 is above a failure: skipped
  CHECK(ran == std::vector<std::size_t>{2, 1, 0});
  REQUIRE(tasks.error());
  try {
    std::rethrow_exception(tasks.error());
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "task 0");
  }
}

TEST_CASE("parallel_for: the pool's threads are kept from call to call") {
  const auto burst = [](unsigned threads) {
    std::set<std::thread::id> ids;
    std::mutex m;
    parallel_for(64, threads, [&](std::size_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
    });
    return ids;
  };
  auto& pool = thread_pool::shared();
  burst(3);
  const unsigned started = pool.threads_started();
  CHECK(started >= 2);
  // Its two helpers are idle again: calls asking for as many start none.
  for (int k = 0; k < 5; ++k) burst(3);
  CHECK(pool.threads_started() == started);
  // Asking for more starts only the ones missing.
  burst(6);
  CHECK(pool.threads_started() >= 5);
  CHECK(pool.threads_started() <= std::max(started, 5u));
}

TEST_CASE("parallel_for inside parallel_for, and from many threads at once, finishes") {
  // Every pool thread busy in an outer task while inner ones wait for
  // places in order: the callers run what no pool thread takes.
  for (unsigned threads : {2u, 4u, 8u}) {
    std::atomic<std::size_t> sum{0};
    parallel_for(8, threads, [&](std::size_t i) {
      place_in_order places(50);
      std::vector<std::size_t> at(50);
      parallel_for(50, threads, [&](std::size_t j) {
        auto place = places.claim(j);
        at[j] = place(i + 1).value();
      });
      for (std::size_t j = 0; j < 50; ++j) CHECK(at[j] == j * (i + 1));
      sum += *places.total();
    });
    CHECK(sum == 50 * (8 * 9 / 2));
  }
  std::vector<std::thread> callers;
  std::atomic<int> done{0};
  for (int c = 0; c < 6; ++c)
    callers.emplace_back([&] {
      for (int r = 0; r < 20; ++r) {
        std::vector<std::atomic<int>> hits(100);
        parallel_for(100, 3, [&](std::size_t i) { ++hits[i]; });
        bool once = true;
        for (auto& h : hits) once = once && h == 1;
        if (once) ++done;
      }
    });
  for (auto& t : callers) t.join();
  CHECK(done == 6 * 20);
}

TEST_CASE("place_in_order: a task that throws after giving its size leaves no later task waiting") {
  // The pool skips tasks above a failed one; a task already running above a
  // skipped one must not wait for it. Task 3 gives its size, then throws
  // while task 4 is claimed and others run: every round must finish.
  for (int round = 0; round < 200; ++round) {
    place_in_order places(64);
    std::atomic<bool> three_given{false};
    CHECK_THROWS_AS(parallel_for(64, 6,
                                 [&](std::size_t j) {
                                   auto place = places.claim(j);
                                   if (j > 3 && !three_given.load()) std::this_thread::yield();
                                   const auto at = place(1);
                                   if (j == 3) {
                                     three_given = true;
                                     std::this_thread::sleep_for(std::chrono::microseconds(50));
                                     throw std::runtime_error("tile 3 is damaged");
                                   }
                                   (void)at;
                                 }),
                    std::runtime_error);
    // Either every task gave its size before the failure, or the rest was abandoned.
    if (const auto t = places.total()) CHECK(*t == 64);
  }
}

TEST_CASE("parallel_for in a child made by fork() runs on threads of its own") {
  if constexpr (tilefmt::testing::under_thread_sanitizer) return;  // it does not follow threads across fork()
  // The parent's pool threads are not in the child: the child's pool must
  // start threads of its own, not count the parent's as idle (the caller
  // would then run every task alone).
  parallel_for(16, 3, [](std::size_t) { std::this_thread::sleep_for(std::chrono::microseconds(100)); });
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::alarm(30);
    std::mutex m;
    std::set<std::thread::id> ids;
    place_in_order places(200);
    parallel_for(200, 3, [&](std::size_t i) {
      auto place = places.claim(i);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      (void)place(1);
      std::lock_guard<std::mutex> lock(m);
      ids.insert(std::this_thread::get_id());
    });
    const bool ok = places.total() == std::optional<std::size_t>(200) && ids.size() >= 2;
    std::_Exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
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

TEST_CASE("stable_sort_runs: a few runs in order merged to std::stable_sort's order; many runs sorted") {
  std::mt19937_64 rng(5);
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  for (std::size_t runs : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{7}, std::size_t{64},
                           std::size_t{65}, std::size_t{500}})
    for (std::size_t per_run : {std::size_t{1}, std::size_t{3}, std::size_t{5000}}) {
      // (key, original index): each run sorted by key, keys repeating within and across runs.
      std::vector<std::pair<std::uint32_t, std::size_t>> v;
      for (std::size_t r = 0; r < runs; ++r) {
        std::vector<std::uint32_t> keys(per_run);
        for (auto& k : keys) k = static_cast<std::uint32_t>(rng() % 1000);
        std::sort(keys.begin(), keys.end());
        for (auto k : keys) v.emplace_back(k, v.size());
      }
      auto expected = v;
      std::stable_sort(expected.begin(), expected.end(), by_key);
      for (unsigned threads : {1u, 2u, 3u}) {
        if (tilefmt::testing::under_thread_sanitizer && threads == 1) continue;  // testing.hpp
        auto got = v;
        stable_sort_runs(got.begin(), got.end(), by_key, threads);
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

#if defined(__linux__)
TEST_CASE("thread_count: one per core the calling thread may use (its affinity), or as asked") {
  cpu_set_t all;
  CPU_ZERO(&all);
  REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
  const unsigned allowed = static_cast<unsigned>(CPU_COUNT(&all));
  const unsigned quota = tilefmt::array::detail::cgroup_cores();
  CHECK(tilefmt::array::detail::thread_count(0) == (quota ? std::min(allowed, quota) : allowed));
  CHECK(tilefmt::array::detail::thread_count(3) == 3);
  // Pinned to one core (as taskset or a scheduler pins a worker): one thread.
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  const unsigned pinned = tilefmt::array::detail::thread_count(0);
  REQUIRE(sched_setaffinity(0, sizeof all, &all) == 0);
  CHECK(pinned == 1);
}
#endif
