// How many CPUs this process may use: the default for every --threads.
// std::thread::hardware_concurrency() counts the machine's CPUs, so `tok`
// pinned to one CPU (taskset, a cpuset) or in a container with a CPU quota
// (docker --cpus 2) started more threads than it can run; they took turns,
// each evicting the others' caches.
#pragma once

#include <optional>
#include <string_view>

namespace tok {

// The smallest of: the CPUs in the affinity mask (sched_getaffinity), the
// cgroup CPU quota rounded up (v2 cpu.max of the process's cgroup, or v1
// cpu.cfs_quota_us / cpu.cfs_period_us), and hardware_concurrency() when
// neither can be read. At least 1. Off Linux, where neither exists, it is
// hardware_concurrency().
unsigned available_cpus();

// A cgroup v2 cpu.max ("QUOTA PERIOD", QUOTA "max" when unlimited) as CPUs,
// rounded up; nullopt when unlimited or malformed.
std::optional<unsigned> cpus_of_cpu_max(std::string_view text);

// The same for cgroup v1's two numbers (quota -1 when unlimited).
std::optional<unsigned> cpus_of_cfs_quota(long long quota_us, long long period_us);

}  // namespace tok
