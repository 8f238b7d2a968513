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

// Items after the failing one wait until `done()` holds, so the checks below
// do not depend on the failing thread being scheduled before the others
// have run through every item. The deadline is one for the whole loop: a
// pool that never stops fails the test in 20 s, not 20 s per item.
using Clock = std::chrono::steady_clock;
template <class Done>
void wait_for(Done done, Clock::time_point deadline) {
  while (!done() && Clock::now() < deadline) std::this_thread::yield();
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
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  tok::Status st = pool.for_each(100000, [&](std::size_t i, unsigned) -> tok::Status {
    taken.fetch_add(1);
    if (i == 10) return tok::make_error("item {} failed", i);
    // Items after the failing one end only once the pool has recorded the
    // error (stopping()), so no thread can run through the rest before the
    // failing one is scheduled.
    if (i > 10) wait_for([&] { return pool.stopping(); }, deadline);
    return {};
  });
  REQUIRE(!st.ok());
  CHECK(st.error().message == "item 10 failed");
  CHECK(pool.stopping() == false);  // the next loop starts afresh
  // Items 0-10, and at most one more per other thread: each took one before
  // the error and none after.
  CHECK(taken.load() <= 11 + (pool.size() - 1));
}

TEST_CASE("ThreadPool: out of memory on a worker is rethrown on the caller, and the pool goes on") {
  tok::ThreadPool pool(4);
  std::atomic<std::size_t> taken{0};
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  auto fail = [&](std::size_t i, unsigned) {
    taken.fetch_add(1);
    if (i == 3) throw std::bad_alloc();
    if (i > 3) wait_for([&] { return pool.stopping(); }, deadline);
  };
  CHECK_THROWS_AS((void)pool.for_each(100000, fail), std::bad_alloc);
  CHECK(taken.load() < 100000);
  CHECK_THROWS_AS(pool.parallel_for(64, 1,
                                    [](std::int64_t b, std::int64_t) {
                                      if (b != 0) throw std::runtime_error("worker");
                                    }),
                  std::runtime_error);
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
