#include "model/thread_pool.hpp"

#include <algorithm>

namespace tok::model {

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < std::max(1u, threads); ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::parallel_for(std::int64_t n, std::int64_t grain,
                              const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) return;
  std::int64_t parts = static_cast<std::int64_t>(size());
  std::int64_t chunk = (n + parts - 1) / parts;
  chunk = std::max(grain, (chunk + grain - 1) / grain * grain);
  if (workers_.empty() || chunk >= n) {
    fn(0, n);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &fn;
    n_ = n;
    chunk_ = chunk;
    pending_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  start_.notify_all();
  fn(0, std::min(n, chunk));
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
}

void ThreadPool::worker(unsigned index) {
  std::uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    start_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    const auto* job = job_;
    std::int64_t begin = static_cast<std::int64_t>(index) * chunk_, n = n_, chunk = chunk_;
    lock.unlock();
    if (begin < n) (*job)(begin, std::min(n, begin + chunk));
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace tok::model
