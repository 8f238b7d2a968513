// available_memory: readable here, and bounded by an address-space limit.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

#include "core/system_memory.hpp"

TEST_CASE("system memory: available, and an address-space limit lowers it") {
  auto before = tok::available_memory();
  REQUIRE(before.has_value());
  CHECK(*before > 0);

  std::uint64_t vm_kb = 0;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmSize:", 0) == 0) vm_kb = std::stoull(line.substr(7));
  }
  REQUIRE(vm_kb > 0);
#if defined(TOK_TEST_EMULATED)
  // qemu-user keeps RLIMIT_AS to itself (a guest limit would bind the
  // emulator), so there is no limit to observe.
  return;
#endif
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_AS, &saved) == 0);
  rlimit lower = saved;
  lower.rlim_cur = (vm_kb << 10) + (64ull << 20);  // 64 MiB more than in use now
  if (saved.rlim_cur != RLIM_INFINITY && saved.rlim_cur < lower.rlim_cur)
    lower.rlim_cur = saved.rlim_cur;
  REQUIRE(setrlimit(RLIMIT_AS, &lower) == 0);
  auto limited = tok::available_memory();
  setrlimit(RLIMIT_AS, &saved);
  REQUIRE(limited.has_value());
  CHECK(*limited <= (64ull << 20));
}
