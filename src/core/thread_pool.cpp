#include "core/thread_pool.hpp"

#include <algorithm>
#include <exception>

namespace tok {
namespace {

// Tens of microseconds of polling (a pause is tens of cycles).
constexpr int kSpins = 2000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

// Polls `ready` up to kSpins times; true if it became true.
template <class Ready>
bool spin_until(Ready ready) {
  for (int i = 0; i < kSpins; ++i) {
    if (ready()) return true;
    cpu_relax();
  }
  return ready();
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  threads = std::max(1u, threads);
  try {
    // Reserved first, so a worker once started is never lost to a
    // reallocation that throws (an unjoined std::thread would terminate).
    workers_.reserve(threads - 1);
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker(i); });
  } catch (const std::exception&) {
    // Out of threads (std::system_error) or memory: the loops are split over
    // the workers that started.
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
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
  run([&](unsigned w) {
    std::int64_t begin = static_cast<std::int64_t>(w) * chunk;
    if (begin < n) fn(begin, std::min(n, begin + chunk));
  });
}

void ThreadPool::dispatch(Job job, void* context) {
  if (workers_.empty()) {
    job(context, 0);
    return;
  }
  FirstError errors;
  errors_ = &errors;
  job_ = job;
  context_ = context;
  pending_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
  {
    // Under the lock, so a worker between its predicate check and its wait
    // cannot miss the new generation.
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  errors.run([&] { job(context, 0); });
  auto all_done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spin_until(all_done)) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, all_done);
  }
  job_ = nullptr;
  context_ = nullptr;
  errors_ = nullptr;
  errors.rethrow();
}

void ThreadPool::worker(unsigned index) {
  std::uint64_t seen = 0;
  for (;;) {
    auto ready = [&] {
      return stop_.load(std::memory_order_relaxed) ||
             generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(ready)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, ready);
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    errors_->run([&] { job_(context_, index); });
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);  // pairs with the caller's predicate check
      done_.notify_one();
    }
  }
}

}  // namespace tok
