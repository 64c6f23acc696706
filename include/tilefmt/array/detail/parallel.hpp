// tilefmt — running independent pieces of work (tiles) on several threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace tilefmt::array::detail {

/// The threads to use for `requested` (0: one per core).
inline unsigned thread_count(unsigned requested) {
  return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

/// Runs fn(i) for every i in [0, n) on up to `threads` threads (i goes to
/// thread i mod threads, which keeps neighbouring tiles on different cores
/// and needs no shared counter); rethrows the first error once all threads
/// have stopped.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn) {
  threads = static_cast<unsigned>(std::min<std::size_t>(thread_count(threads), n));
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      try {
        for (std::size_t i = w; i < n; i += threads) fn(i);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

} // namespace tilefmt::array::detail
