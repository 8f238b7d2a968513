#include <doctest/doctest.h>

#include <atomic>
#include <new>
#include <thread>
#include <vector>

#include "core/first_error.hpp"

TEST_CASE(
    "FirstError: a worker's bad_alloc stops the others and is rethrown on the joining thread") {
  tok::FirstError errors;
  std::atomic<int> done{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t) {
    pool.emplace_back([&, t] {
      errors.run([&] {
        if (t == 2) throw std::bad_alloc();
        for (int i = 0; i < 1000000 && !errors.stopped(); ++i) done.fetch_add(1);
      });
    });
  }
  for (auto& th : pool) th.join();
  CHECK(errors.stopped());
  CHECK_THROWS_AS(errors.rethrow(), std::bad_alloc);
}

TEST_CASE("FirstError: nothing thrown, nothing rethrown") {
  tok::FirstError errors;
  errors.run([] {});
  CHECK(!errors.stopped());
  CHECK_NOTHROW(errors.rethrow());
}
