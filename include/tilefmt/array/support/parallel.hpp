// tilefmt — running independent pieces of work (tiles) on several threads.
#pragma once

#include <algorithm>
#include <iterator>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "tilefmt/array/support/thread_pool.hpp"

namespace tilefmt::array::detail {

/// Whether this build can start threads: not WebAssembly without pthreads
/// (the browser module), where std::thread cannot run and work stays on the
/// calling thread.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
inline constexpr bool threads_available = false;
#else
inline constexpr bool threads_available = true;
#endif

/// The CPU quota of the process's cgroup (cgroup v2 `cpu.max`, as
/// containers and Dask workers are limited) in whole cores, or 0 for none.
/// Read once: a quota does not change under a running process.
inline unsigned cgroup_cores() {
#if defined(__linux__)
  static const unsigned cores = [] {
    std::ifstream self("/proc/self/cgroup");
    std::string line, group;
    while (std::getline(self, line))
      if (line.rfind("0::", 0) == 0) group = line.substr(3);
    std::ifstream max("/sys/fs/cgroup" + group + "/cpu.max");
    std::string quota;
    double period = 0;
    if (!(max >> quota >> period) || quota == "max" || period <= 0) return 0u;
    const double q = std::strtod(quota.c_str(), nullptr) / period;
    return q > 0 ? static_cast<unsigned>(std::ceil(q)) : 0u;
  }();
  return cores;
#else
  return 0;
#endif
}

/// The cores the calling thread may use: its affinity mask (a process
/// pinned to one core by taskset or a scheduler), within its cgroup's quota;
/// std::thread::hardware_concurrency() elsewhere. At least 1.
inline unsigned usable_cores() {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
#endif
  if (const unsigned quota = cgroup_cores()) n = std::min(n, quota);
  return n;
}

/// The threads to use for `requested` (0: one per core the process may use).
inline unsigned thread_count(unsigned requested) {
  if (!threads_available) return 1;
  return requested ? requested : usable_cores();
}

/// Runs fn(i) for every i in [0, n) on up to `threads` threads: this one
/// and threads of the process's pool (thread_pool.hpp). Each thread claims
/// the next task when it is free, in increasing order (place_in_order relies
/// on it), this thread task 0; a thread the system stalls holds up no one
/// else. After an error no task is started; once every thread has left,
/// the error of the lowest task that failed is rethrown (the same one
/// however the threads ran).
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn) {
  threads = static_cast<unsigned>(std::min<std::size_t>(thread_count(threads), n));
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  thread_pool::shared().run(n, threads - 1, fn);
}

/// Merges the sorted runs [bound[k], bound[k + 1]) into one, neighbours
/// pairwise (std::inplace_merge keeps equal elements in order, so the result
/// is a stable sort's), each round's merges at once on up to `threads`
/// threads: log2(runs) passes over the elements.
template <class It, class Less>
void merge_runs(const std::vector<It>& bound, Less less, unsigned threads) {
  const std::size_t parts = bound.size() - 1;
  for (std::size_t width = 1; width < parts; width *= 2) {
    parallel_for((parts + 2 * width - 1) / (2 * width), threads, [&](std::size_t j) {
      const std::size_t lo = 2 * j * width, mid = lo + width;
      if (mid < parts) std::inplace_merge(bound[lo], bound[mid], bound[std::min(mid + width, parts)], less);
    });
  }
}

/// std::stable_sort on up to `threads` threads, with the same result: pieces
/// sorted at once, then merged (merge_runs). Its buffers are
/// std::stable_sort's: half the elements at most. Pieces under 2^15
/// elements are not worth a thread.
template <class It, class Less>
void parallel_stable_sort(It first, It last, Less less, unsigned threads) {
  const auto n = static_cast<std::size_t>(last - first);
  const std::size_t parts = std::min<std::size_t>(thread_count(threads), n >> 15);
  if (parts <= 1) {
    std::stable_sort(first, last, less);
    return;
  }
  std::vector<It> bound(parts + 1);
  for (std::size_t k = 0; k <= parts; ++k) bound[k] = first + static_cast<std::ptrdiff_t>(n * k / parts);
  parallel_for(parts, threads, [&](std::size_t k) { std::stable_sort(bound[k], bound[k + 1], less); });
  merge_runs(bound, less, threads);
}

/// parallel_stable_sort's result, found faster when [first, last) is a few
/// runs in order already (at most `max_runs`): nothing to do for one, the
/// runs merged for several (n log runs comparisons, not n log n).
template <class It, class Less>
void stable_sort_runs(It first, It last, Less less, unsigned threads, std::size_t max_runs = 64) {
  std::vector<It> bound{first};
  for (It i = first; i != last && std::next(i) != last; ++i) {
    if (!less(*std::next(i), *i)) continue;
    if (bound.size() == max_runs) {
      parallel_stable_sort(first, last, less, threads);
      return;
    }
    bound.push_back(std::next(i));
  }
  if (bound.size() == 1) return;
  bound.push_back(last);
  merge_runs(bound, less, threads);
}

/// Where each of the `n` tasks of a parallel_for puts its output when the
/// outputs go back to back in task order but each task's size is known only
/// once it has run: task j's output starts where task j - 1's ends. A task
/// gives its size to its claim, which waits for the task before it and
/// answers where its own output starts. parallel_for's threads claim tasks
/// in increasing order and run each to its end, so every task before the
/// lowest one still waiting has run (no wait is circular). A claim dropped
/// unused (an error, or a task that gives up) makes every later claim
/// answer nullopt at once: after an error parallel_for starts no more
/// tasks, so later ones cannot wait for their predecessors' claims.
class place_in_order {
  static constexpr std::size_t unknown = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t abandoned = unknown - 1;

public:
  explicit place_in_order(std::size_t n) : begin_(n + 1) {
    for (auto& b : begin_) b.store(unknown, std::memory_order_relaxed);
    begin_[0].store(0, std::memory_order_relaxed);
  }

  /// Task j's place, to be given its size once.
  class claim_t {
  public:
    claim_t(const claim_t&) = delete;
    claim_t& operator=(const claim_t&) = delete;
    ~claim_t() {
      // A task that throws after giving its size still abandons what follows:
      // the pool may skip tasks above a failed one (ordered_tasks), and a task
      // already running above a skipped one would wait for it forever.
      if (!given_ || std::uncaught_exceptions() > exceptions_) owner_.abandon_after(j_);
    }

    /// Where the task's items start, once every task before it has given
    /// its size, for a task that writes its items before it knows how many
    /// (then gives their number); nullopt when a task before it gave up.
    std::optional<std::size_t> start() const {
      const std::size_t at = owner_.wait(j_);
      if (at == abandoned) return std::nullopt;
      return at;
    }

    /// Where the task's `size` items start, or nullopt when a task before
    /// it gave up (the whole result is being abandoned).
    std::optional<std::size_t> operator()(std::size_t size) {
      given_ = true;
      const std::size_t at = owner_.wait(j_);
      owner_.publish(j_ + 1, at == abandoned ? abandoned : at + size);
      if (at == abandoned) return std::nullopt;
      return at;
    }

  private:
    friend class place_in_order;
    claim_t(place_in_order& owner, std::size_t j) : owner_(owner), j_(j) {}
    place_in_order& owner_;
    std::size_t j_;
    bool given_ = false;
    int exceptions_ = std::uncaught_exceptions();
  };

  claim_t claim(std::size_t j) { return claim_t(*this, j); }

  /// Every task's size summed, once each task has given its size; nullopt
  /// if one gave up.
  std::optional<std::size_t> total() const {
    const std::size_t t = begin_.back().load(std::memory_order_acquire);
    if (t == unknown || t == abandoned) return std::nullopt;
    return t;
  }

private:
  std::size_t wait(std::size_t j) const {
    std::size_t v;
    while ((v = begin_[j].load(std::memory_order_acquire)) == unknown) begin_[j].wait(unknown, std::memory_order_acquire);
    return v;
  }
  // Sets begin_[j] unless it is abandoned already.
  void publish(std::size_t j, std::size_t v) {
    std::size_t was = unknown;
    if (begin_[j].compare_exchange_strong(was, v, std::memory_order_release, std::memory_order_relaxed)) begin_[j].notify_all();
  }
  void abandon_after(std::size_t j) {
    for (std::size_t k = j + 1; k < begin_.size(); ++k) publish(k, abandoned);
  }

  std::vector<std::atomic<std::size_t>> begin_;
};

} // namespace tilefmt::array::detail
