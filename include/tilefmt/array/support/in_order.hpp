// tilefmt — results made on several threads and taken in order: each
// item is made (make(i, scratch, result)) by whichever worker is free, and
// taken (take(i, result)) on the calling thread in item order as soon as it
// and those before it are made. At most `window` items are made ahead of
// the next one taken, so the results held at once are bounded; each result
// slot and each worker's scratch buffer is reused from item to item.
// The fragment writers encode tiles this way and append them to their
// files in order.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tilefmt::array::detail {

/// Makes items [0, n) on `workers` threads (on the calling thread alone
/// when there is at most one) and takes them in order. The first error of
/// a make or take is rethrown once every worker has stopped.
template <class Result, class Make, class Take>
void for_each_in_order(std::size_t n, std::size_t workers, std::size_t window, Make&& make, Take&& take) {
  if (n == 0) return;
  if (workers <= 1) {
    Result result;
    std::vector<std::byte> scratch;
    for (std::size_t t = 0; t < n; ++t) {
      make(t, scratch, result);
      take(t, result);
    }
    return;
  }
  window = std::max<std::size_t>(1, std::min(window, n));
  std::vector<Result> results(window);
  std::mutex m;
  std::condition_variable cv;
  // Guarded by m: the slots holding a finished item, the next item to
  // start, the items taken, and the first error.
  std::vector<char> ready(window, 0);
  std::size_t next = 0, taken = 0;
  std::exception_ptr error;
  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(m);
    if (!error) error = e;
    cv.notify_all();
  };
  auto work = [&] {
    std::vector<std::byte> scratch;
    while (true) {
      std::size_t t = 0;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return error || next >= n || next < taken + window; });
        if (error || next >= n) return;
        t = next++;
      }
      try {
        make(t, scratch, results[t % window]);
      } catch (...) {
        return fail(std::current_exception());
      }
      std::lock_guard<std::mutex> lock(m);
      ready[t % window] = 1;
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers);
  try {
    for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);
    for (std::size_t t = 0; t < n; ++t) {
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return error || ready[t % window]; });
        if (error) break;
      }
      take(t, results[t % window]);
      std::lock_guard<std::mutex> lock(m);
      ready[t % window] = 0;
      ++taken;
      cv.notify_all();
    }
  } catch (...) {
    fail(std::current_exception());
  }
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

} // namespace tilefmt::array::detail
