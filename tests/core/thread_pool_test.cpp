#include "core/thread_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <new>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

// Items after the failing one wait (bounded) until `done()` holds, so the
// checks below do not depend on the failing thread being scheduled before
// the others have run through every item.
template <class Done>
void wait_for(Done done) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

}  // namespace

TEST_CASE("ThreadPool: parallel_for covers [0, n) once, in grain-sized chunks") {
  tok::ThreadPool pool(4);
  for (std::int64_t n : {1, 7, 64, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    pool.parallel_for(n, 8, [&](std::int64_t b, std::int64_t e) {
      CHECK(b % 8 == 0);
      for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    for (auto& h : hits) CHECK(h.load() == 1);
  }
}

TEST_CASE("ThreadPool: for_each takes every item once and gives each thread its own worker index") {
  tok::ThreadPool pool(3);
  REQUIRE(pool.size() >= 1);
  std::vector<std::atomic<int>> hits(500);
  std::vector<long> per_worker(pool.size(), 0);  // written only by its own thread
  tok::Status st = pool.for_each(hits.size(), [&](std::size_t i, unsigned w) {
    hits[i].fetch_add(1);
    per_worker[w] += static_cast<long>(i);
  });
  CHECK(st.ok());
  for (auto& h : hits) CHECK(h.load() == 1);
  CHECK(std::accumulate(per_worker.begin(), per_worker.end(), 0L) == 499L * 500 / 2);
}

TEST_CASE("ThreadPool: the first error Status stops the others and is returned") {
  tok::ThreadPool pool(4);
  std::atomic<std::size_t> taken{0};
  std::atomic<bool> returned{false};
  tok::Status st = pool.for_each(100000, [&](std::size_t i, unsigned) -> tok::Status {
    taken.fetch_add(1);
    if (i == 10) {
      returned.store(true);
      return tok::make_error("item {} failed", i);
    }
    if (i > 10) {
      // The pool records the error just after the return: give it that
      // moment on every later item, so a descheduled failing thread cannot
      // let the others drain the loop.
      wait_for([&] { return returned.load(); });
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return {};
  });
  REQUIRE(!st.ok());
  CHECK(st.error().message == "item 10 failed");
  CHECK(taken.load() < 100000);  // the rest were never taken
}

TEST_CASE("ThreadPool: out of memory on a worker is rethrown on the caller, and the pool goes on") {
  tok::ThreadPool pool(4);
  std::atomic<std::size_t> taken{0};
  auto fail = [&](std::size_t i, unsigned) {
    taken.fetch_add(1);
    if (i == 3) throw std::bad_alloc();
    if (i > 3) wait_for([&] { return pool.stopping(); });
  };
  CHECK_THROWS_AS((void)pool.for_each(100000, fail), std::bad_alloc);
  CHECK(taken.load() < 100000);
  CHECK_THROWS_AS(pool.parallel_for(64, 1, [](std::int64_t b, std::int64_t) {
    if (b != 0) throw std::runtime_error("worker");
  }), std::runtime_error);
  // The same pool runs the next loop normally.
  std::atomic<int> sum{0};
  pool.parallel_for(10, 1, [&](std::int64_t b, std::int64_t e) { sum += static_cast<int>(e - b); });
  CHECK(sum.load() == 10);
}

TEST_CASE("ThreadPool: run calls every thread once; one thread and zero items work") {
  tok::ThreadPool pool(3);
  std::vector<std::atomic<int>> seen(pool.size());
  pool.run([&](unsigned w) { seen[w].fetch_add(1); });
  for (auto& s : seen) CHECK(s.load() == 1);
  tok::ThreadPool one(0);
  CHECK(one.size() == 1);
  int calls = 0;
  CHECK(one.for_each(0, [&](std::size_t, unsigned) { ++calls; }).ok());
  CHECK(calls == 0);
  std::atomic<int> items{0};
  CHECK(tok::parallel_for_each(8, 5, [&](std::size_t, unsigned) { items.fetch_add(1); }).ok());
  CHECK(items.load() == 5);
}
