#include "core/system_cpus.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace tok {
namespace {

std::optional<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The process's cgroup v2 path ("0::/PATH" in /proc/self/cgroup).
std::string cgroup2_path() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return {};
}

std::optional<unsigned> cgroup_cpus() {
  // v2: the process's own cgroup, else the root of this namespace's view.
  std::string own = cgroup2_path();
  for (const std::string& dir : {"/sys/fs/cgroup" + own, std::string("/sys/fs/cgroup")}) {
    if (auto text = read_small_file(dir + "/cpu.max")) return cpus_of_cpu_max(*text);
  }
  auto quota = read_small_file("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  auto period = read_small_file("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  try {
    return cpus_of_cfs_quota(std::stoll(*quota), std::stoll(*period));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<unsigned> cpus_of_cfs_quota(long long quota_us, long long period_us) {
  if (quota_us <= 0 || period_us <= 0) return std::nullopt;
  long long cpus = (quota_us + period_us - 1) / period_us;
  return static_cast<unsigned>(std::clamp<long long>(cpus, 1, 1 << 20));
}

std::optional<unsigned> cpus_of_cpu_max(std::string_view text) {
  std::size_t sp = text.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  std::string_view q = text.substr(0, sp), p = text.substr(sp + 1);
  while (!p.empty() && (p.back() == '\n' || p.back() == ' ')) p.remove_suffix(1);
  long long quota = 0, period = 0;
  auto [qe, qerr] = std::from_chars(q.data(), q.data() + q.size(), quota);
  auto [pe, perr] = std::from_chars(p.data(), p.data() + p.size(), period);
  if (qerr != std::errc{} || qe != q.data() + q.size()) return std::nullopt;  // "max" too
  if (perr != std::errc{} || pe != p.data() + p.size()) return std::nullopt;
  return cpus_of_cfs_quota(quota, period);
}

unsigned available_cpus() {
  unsigned n = std::thread::hardware_concurrency();
#if defined(__linux__)
  // Elsewhere (macOS, the BSDs) there is no per-process CPU mask to read:
  // the machine's count stands.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int in_mask = CPU_COUNT(&set);
    if (in_mask > 0) n = static_cast<unsigned>(in_mask);
  }
#endif
  if (auto quota = cgroup_cpus()) n = n ? std::min(n, *quota) : *quota;
  return std::max(1u, n);
}

}  // namespace tok
