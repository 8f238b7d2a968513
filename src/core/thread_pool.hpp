// ThreadPool: tok's one work queue. Every parallel loop (encode and count of
// large texts, ordered encode, word counting, compare, count over many
// files, JSONL batches, the Python module's batch calls, the model's
// matmuls) runs on it, under one failure rule:
//  - the first error stops the rest: once any thread has thrown (or, with
//    for_each, returned an error Status), no thread takes another item, and
//    the call reports that first error after every thread has finished (an
//    exception is rethrown on the calling thread, so std::bad_alloc takes the
//    same path as on one thread: cli/main.cpp prints "out of memory");
//  - a thread that cannot be started (std::system_error, or out of memory
//    while starting it) is not an error: the work is shared by the threads
//    that did start, at least the calling one.
//
// The workers are persistent. Between loops a worker spins briefly (tens of
// microseconds) on the job counter, then sleeps on a condition variable:
// decode calls parallel_for every few tens of microseconds, where a futex
// wake-up per call would cost as much as the work, while a pool left idle
// must not burn a core that other programs on a 2-core machine need (spin
// barriers made llama.cpp's 2-thread decode slower than 1 thread there).
// A job is passed as a (context, function) pair, never a std::function, so a
// loop allocates nothing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/first_error.hpp"
#include "core/result.hpp"

namespace tok {

class ThreadPool {
 public:
  // `threads` in all, the calling thread included (0 counts as 1).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The threads that started, the caller included: per-worker state is
  // indexed by the `worker` argument, in [0, size()).
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls fn(worker) once on every thread (worker 0 is the caller) and
  // returns when all are done, rethrowing the first exception.
  template <class Fn>
  void run(Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    dispatch([](void* f, unsigned w) { (*static_cast<F*>(f))(w); }, &fn);
  }

  // Static split, for loops of equal-cost items (the model's matmuls): calls
  // fn(begin, end) on disjoint chunks covering [0, n), one per thread, whose
  // sizes are multiples of `grain` except the last.
  void parallel_for(std::int64_t n, std::int64_t grain,
                    const std::function<void(std::int64_t, std::int64_t)>& fn);

  // Dynamic split, for items of uneven cost (files, chunks of text): items
  // [0, n) are handed out one at a time; fn(item, worker) returns void or
  // Status. After the first exception or error Status no item is taken; the
  // exception is rethrown, the Status returned.
  template <class Fn>
  Status for_each(std::size_t n, Fn&& fn) {
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex mutex;
    std::optional<Error> first;
    run([&](unsigned w) {
      for (std::size_t i; !failed.load(std::memory_order_relaxed) && !stopping() &&
                          (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
        if constexpr (std::is_void_v<decltype(fn(i, w))>) {
          fn(i, w);
        } else {
          Status s = fn(i, w);
          if (!s.ok()) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!first) first = s.error();
            failed.store(true, std::memory_order_relaxed);
            if (errors_) errors_->stop();  // stopping() for the items still running
          }
        }
      }
    });
    if (first) return *first;
    return {};
  }

  // True while a loop runs once one of its threads has thrown (or, in
  // for_each, returned an error Status): long items may check it to give up
  // early.
  bool stopping() const { return errors_ != nullptr && errors_->stopped(); }

 private:
  using Job = void (*)(void* context, unsigned worker);
  void dispatch(Job job, void* context);
  void worker(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  // Written by dispatch before generation_ is bumped (release); read by
  // workers after they see the new generation (acquire).
  Job job_ = nullptr;
  void* context_ = nullptr;
  FirstError* errors_ = nullptr;  // the running loop's, set with job_
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<unsigned> pending_{0};
  std::atomic<bool> stop_{false};
};

// A one-off pool of min(threads, n) threads running ThreadPool::for_each.
template <class Fn>
Status parallel_for_each(unsigned threads, std::size_t n, Fn&& fn) {
  if (n == 0) return {};
  ThreadPool pool(static_cast<unsigned>(std::min<std::size_t>(std::max(1u, threads), n)));
  return pool.for_each(n, std::forward<Fn>(fn));
}

}  // namespace tok
