// ThreadPool: a fixed set of workers that split one loop at a time
// (parallel_for over [0, n) in contiguous chunks, the caller taking the first
// chunk). Between loops a worker spins briefly (tens of microseconds) on the
// job counter, then sleeps on a condition variable: decode calls parallel_for
// every few tens of microseconds, where a futex wake-up per call would cost as
// much as the work, while a pool left idle must not burn a core that other
// programs on this 2-core machine class need (spin barriers made llama.cpp's
// 2-thread decode slower than 1 thread here).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/first_error.hpp"

namespace tok::model {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Calls fn(begin, end) on disjoint chunks covering [0, n); chunks are
  // multiples of `grain` except the last. Returns when all are done; if fn
  // threw on any thread (out of memory), rethrows the first exception then.
  void parallel_for(std::int64_t n, std::int64_t grain,
                    const std::function<void(std::int64_t, std::int64_t)>& fn);

 private:
  void worker(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  // Written by parallel_for before generation_ is bumped (release); read by
  // workers after they see the new generation (acquire).
  const std::function<void(std::int64_t, std::int64_t)>* job_ = nullptr;
  std::int64_t n_ = 0, chunk_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<unsigned> pending_{0};
  std::atomic<bool> stop_{false};
  FirstError* errors_ = nullptr;  // the running loop's, set with job_
};

}  // namespace tok::model
