#include "core/system_memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace tok {
namespace {

// "Key:   123 kB" line of a /proc file, in bytes.
std::optional<std::uint64_t> proc_kb(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::uint64_t kb = 0;
    if (fields >> kb) return kb * 1024;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> file_number(const char* path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  if (in >> v) return v;  // "max" fails to parse: no limit
  return std::nullopt;
}

void take_min(std::optional<std::uint64_t>& best, std::optional<std::uint64_t> v) {
  if (v && (!best || *v < *best)) best = v;
}

// Room under a resource limit, given what the process already uses.
std::optional<std::uint64_t> room_under(int resource, std::optional<std::uint64_t> used) {
  rlimit lim{};
  if (getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
  std::uint64_t u = used.value_or(0);
  return lim.rlim_cur > u ? lim.rlim_cur - u : 0;
}

}  // namespace

std::optional<std::uint64_t> available_memory() {
  std::optional<std::uint64_t> best = proc_kb("/proc/meminfo", "MemAvailable");
  take_min(best, room_under(RLIMIT_AS, proc_kb("/proc/self/status", "VmSize")));
  take_min(best, room_under(RLIMIT_DATA, proc_kb("/proc/self/status", "VmData")));
  auto max = file_number("/sys/fs/cgroup/memory.max");
  auto cur = file_number("/sys/fs/cgroup/memory.current");
  if (max) take_min(best, *max > cur.value_or(0) ? *max - cur.value_or(0) : 0);
  return best;
}

}  // namespace tok
