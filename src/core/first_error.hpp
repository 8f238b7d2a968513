// FirstError: the rule tok's thread pool (core/thread_pool.hpp) follows
// when a worker throws (std::bad_alloc above all, which any allocation may
// raise under a memory limit). An exception escaping a std::thread's function calls std::terminate,
// so each worker runs its body through run(); the first exception is kept, the
// others workers see stopped() and finish early, and the thread that joins
// the pool calls rethrow(), so the error takes the same path as on one thread
// (cli/main.cpp turns std::bad_alloc into "tok: error: out of memory").
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace tok {

class FirstError {
 public:
  // Runs f(); an exception it throws is recorded instead of escaping.
  template <class F>
  void run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
      record(std::current_exception());
    }
  }
  // True once any worker has thrown (or called stop()): the others stop
  // taking work.
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }
  // Stops the others without an exception to rethrow (ThreadPool::for_each's
  // error Status, which the loop returns itself).
  void stop() noexcept { stopped_.store(true, std::memory_order_relaxed); }
  // After every worker is joined: throws the first recorded exception.
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void record(std::exception_ptr e) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = std::move(e);
    stopped_.store(true, std::memory_order_relaxed);
  }

  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> stopped_{false};
};

}  // namespace tok
