// available_cpus: the affinity mask and cgroup quotas bound the default
// thread count; the quota parsers on the texts the kernel writes.
#include <doctest/doctest.h>

#if defined(__linux__)
#include <sched.h>
#endif

#include <thread>

#include "core/system_cpus.hpp"

using namespace tok;

TEST_CASE("cgroup v2 cpu.max: quota / period, rounded up; max is no limit") {
  CHECK(cpus_of_cpu_max("200000 100000\n") == 2u);
  CHECK(cpus_of_cpu_max("150000 100000\n") == 2u);
  CHECK(cpus_of_cpu_max("50000 100000") == 1u);
  CHECK(cpus_of_cpu_max("max 100000\n") == std::nullopt);
  CHECK(cpus_of_cpu_max("") == std::nullopt);
  CHECK(cpus_of_cpu_max("12x 100000") == std::nullopt);
  CHECK(cpus_of_cpu_max("100000 0") == std::nullopt);
}

TEST_CASE("cgroup v1 cfs quota: -1 is no limit") {
  CHECK(cpus_of_cfs_quota(400000, 100000) == 4u);
  CHECK(cpus_of_cfs_quota(1, 100000) == 1u);
  CHECK(cpus_of_cfs_quota(-1, 100000) == std::nullopt);
  CHECK(cpus_of_cfs_quota(100000, 0) == std::nullopt);
}

#if defined(__linux__)  // the only system with a per-process CPU mask
TEST_CASE("available_cpus follows the affinity mask") {
  cpu_set_t saved;
  REQUIRE(sched_getaffinity(0, sizeof(saved), &saved) == 0);
  unsigned all = available_cpus();
  CHECK(all >= 1);
  CHECK(all <= static_cast<unsigned>(CPU_COUNT(&saved)));
  // Pinned to one of its CPUs (this thread only), it counts one.
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
  CHECK(available_cpus() == 1u);
  REQUIRE(sched_setaffinity(0, sizeof(saved), &saved) == 0);
  CHECK(available_cpus() == all);
}
#endif
