// core/cpu_features: what tok detects, against what the kernel says the CPU
// has (/proc/cpuinfo's flag names), so the one check every module uses is
// checked itself.
#include "core/cpu_features.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

// Not compiled for emulated runs (TOK_TEST_EMULATED), where the one test
// that reads the file compares nothing.
#if !defined(TOK_TEST_EMULATED) && defined(__linux__)
// The flags of the first processor in /proc/cpuinfo ("flags" on x86-64,
// "Features" on AArch64); empty where the file cannot be read.
std::set<std::string> proc_cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0 && line.rfind("Features", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;) flags.insert(w);
    break;
  }
  return flags;
}
#endif

}  // namespace

TEST_CASE("cpu_features is detected once and is the same object on every call") {
  CHECK(&tok::cpu_features() == &tok::cpu_features());
  const tok::CpuFeatures& f = tok::cpu_features();
  // Extensions that build on others.
  if (f.avx512bw || f.avx512vl || f.avx512dq || f.avx512vnni || f.avx512vbmi) CHECK(f.avx512f);
  if (f.dotprod) CHECK(f.neon);
#if defined(__aarch64__)
  CHECK(f.neon);
#endif
}

TEST_CASE("cpu_features agrees with the kernel's /proc/cpuinfo flags") {
#if defined(TOK_TEST_EMULATED) || !defined(__linux__)
  MESSAGE("not compared: /proc/cpuinfo describes the host, not the emulated CPU");
#else
  std::set<std::string> flags = proc_cpu_flags();
  REQUIRE_MESSAGE(!flags.empty(), "/proc/cpuinfo has no flags line");
  auto has = [&](const char* name) { return flags.count(name) > 0; };
  const tok::CpuFeatures& f = tok::cpu_features();
#if defined(__x86_64__)
  CHECK(f.ssse3 == has("ssse3"));
  CHECK(f.avx2 == has("avx2"));
  CHECK(f.fma == has("fma"));
  CHECK(f.f16c == has("f16c"));
  CHECK(f.avx512f == has("avx512f"));
  CHECK(f.avx512bw == has("avx512bw"));
  CHECK(f.avx512vl == has("avx512vl"));
  CHECK(f.avx512dq == has("avx512dq"));
  CHECK(f.avx512vnni == has("avx512_vnni"));
  CHECK(f.avx512vbmi == has("avx512vbmi"));
#elif defined(__aarch64__)
  CHECK(f.neon == has("asimd"));
  CHECK(f.dotprod == has("asimddp"));
#else
  MESSAGE("no features are detected on this architecture");
#endif
#endif
}
