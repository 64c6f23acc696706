// tilefmt — the threads behind parallel_for, started once and kept.
//
// A read of a small box decodes a few tiles per fragment batch; starting a
// thread for each batch (a clone, a fresh stack, a fresh zstd context that
// its first tile allocates) cost more than the tiles. The pool's threads
// wait for work between calls, and their thread_local decoder state stays
// warm from one query to the next.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

#include "tilefmt/array/support/function_ref.hpp"

namespace tilefmt::array::detail {

/// Tasks fn(0) .. fn(n - 1), claimed in increasing order by any number of
/// threads, and the error of the lowest that failed. A claimed task runs
/// unless a lower one has already failed, so the lowest task that fails
/// always runs: the error kept does not depend on how the threads ran (a
/// column whose data file is gone names tile 0 every time), and tasks above
/// a failure are skipped. `fn` is a function_ref, so that this and the
/// pool's job are compiled once, not once per caller's lambda.
class ordered_tasks {
public:
  ordered_tasks(std::size_t n, function_ref<void(std::size_t)> fn) : n_(n), fn_(fn) {}
  ordered_tasks(const ordered_tasks&) = delete;
  ordered_tasks& operator=(const ordered_tasks&) = delete;

  /// The next unclaimed task (n or more: none left). Task 0 is claimed by
  /// whoever calls work(0), the first claim() returns 1.
  std::size_t claim() { return next_.fetch_add(1, std::memory_order_relaxed); }

  /// Runs claimed task i, then the next claimed ones, until none are left
  /// or a lower one has failed.
  void work(std::size_t i) {
    for (; i < n_ && i < failed_at_.load(std::memory_order_relaxed); i = claim()) {
      try {
        fn_(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_m_);
        if (i < failed_at_.load(std::memory_order_relaxed)) {
          failed_at_.store(i, std::memory_order_relaxed);
          error_ = std::current_exception();
        }
        return;
      }
    }
  }

  /// The lowest failed task's error; read once every thread has left work().
  const std::exception_ptr& error() const { return error_; }

private:
  std::size_t n_;
  function_ref<void(std::size_t)> fn_;
  std::atomic<std::size_t> next_{1};
  std::atomic<std::size_t> failed_at_{static_cast<std::size_t>(-1)};  // lowered only under error_m_
  std::mutex error_m_;
  std::exception_ptr error_;
};

/// Threads shared by every parallel_for of the process. A job's tasks
/// [0, n) are claimed one at a time, in increasing order, by its caller and
/// by whichever pool threads are free; the caller claims until none are
/// left, so a job finishes even when every pool thread is busy (a
/// parallel_for inside a task, or from many threads at once, cannot
/// deadlock). Threads start when a job asks for more than are idle, up to
/// `most_threads`, and never stop; they hold nothing but their stacks and
/// thread_local scratch while idle.
class thread_pool {
public:
  static constexpr unsigned most_threads = 256;

  /// The process's pool. A child made by fork() has none of its parent's
  /// threads, so it gets a pool of its own (the parent's is left as it was:
  /// its mutex may have been held at the fork).
  static thread_pool& shared() {
    static std::atomic<thread_pool*> pool{nullptr};
#if defined(__unix__) || defined(__APPLE__)
    [[maybe_unused]] static const int registered =
        ::pthread_atfork(nullptr, nullptr, [] { pool.store(nullptr, std::memory_order_relaxed); });
#endif
    thread_pool* p = pool.load(std::memory_order_acquire);
    if (p) return *p;
    // Never deleted: detached threads wait on its members until the
    // process ends.
    auto* fresh = new thread_pool;
    if (pool.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) return *fresh;
    delete fresh;  // another thread made one first; this one started nothing
    return *p;
  }

  /// Runs fn(i) for every i in [0, n) on this thread and up to `helpers`
  /// pool threads; tasks are claimed in increasing order, the first by this
  /// thread. After a task throws no more are claimed; the lowest failed
  /// task's error is rethrown once every thread has left the job.
  void run(std::size_t n, unsigned helpers, function_ref<void(std::size_t)> fn) {
    job_of j(n, fn);
    if (helpers > 0 && n > 1) {
      j.wanted = helpers;
      post(j);
    }
    j.tasks.work(0);
    if (j.wanted_at_post) retire(j);
    if (j.tasks.error()) std::rethrow_exception(j.tasks.error());
  }

  /// Threads started so far (for tests: calls that find enough idle
  /// threads start none).
  unsigned threads_started() const {
    std::lock_guard<std::mutex> lock(m_);
    return started_;
  }

private:
  struct job {
    void (*run)(job&) = nullptr;
    unsigned wanted = 0;          // pool threads it may still take (under m_)
    unsigned wanted_at_post = 0;  // nonzero once posted
    unsigned active = 0;          // pool threads inside run (under m_)
  };

  struct job_of : job {
    job_of(std::size_t n, function_ref<void(std::size_t)> fn) : tasks(n, fn) {
      run = [](job& self) {
        auto& me = static_cast<job_of&>(self);
        me.tasks.work(me.tasks.claim());
      };
    }

    ordered_tasks tasks;
  };

  thread_pool() = default;

  void post(job& j) {
    unsigned start = 0;
    const unsigned wanted = j.wanted;
    {
      std::lock_guard<std::mutex> lock(m_);
      queue_.push_back(&j);
      j.wanted_at_post = wanted;
      if (wanted > idle_) start = std::min(wanted - idle_, most_threads - started_);
      started_ += start;
      idle_ += start;
    }
    for (unsigned k = 0; k < start; ++k) {
      try {
        std::thread([this] { serve(); }).detach();
      } catch (const std::system_error&) {
        // No thread to be had: the caller and the threads there are do the work.
        std::lock_guard<std::mutex> lock(m_);
        started_ -= start - k;
        idle_ -= start - k;
        break;
      }
    }
    if (wanted == 1) work_cv_.notify_one();
    else work_cv_.notify_all();
  }

  // Takes the job off the queue if no pool thread took all its places,
  // then waits for the pool threads inside it to leave.
  void retire(job& j) {
    std::unique_lock<std::mutex> lock(m_);
    if (j.wanted > 0) queue_.erase(std::find(queue_.begin(), queue_.end(), &j));
    done_cv_.wait(lock, [&] { return j.active == 0; });
  }

  [[noreturn]] void serve() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      work_cv_.wait(lock, [&] { return !queue_.empty(); });
      job* j = queue_.front();
      if (--j->wanted == 0) queue_.pop_front();
      ++j->active;
      --idle_;
      lock.unlock();
      j->run(*j);
      lock.lock();
      ++idle_;
      // The caller may return (and its job end) as soon as it sees this,
      // so j is not touched after the lock is let go.
      if (--j->active == 0) done_cv_.notify_all();
    }
  }

  mutable std::mutex m_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<job*> queue_;  // jobs with places left, oldest first
  unsigned started_ = 0, idle_ = 0;
};

} // namespace tilefmt::array::detail
