#include "core/cpu_features.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define TOK_CPU_X86 1
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#define TOK_CPU_ARM_LINUX 1
#endif

namespace tok {
namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(TOK_CPU_X86)
  __builtin_cpu_init();
  f.ssse3 = __builtin_cpu_supports("ssse3");
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  // F16C through CPUID leaf 1 (ECX bit 29): clang 14's
  // __builtin_cpu_supports does not know "f16c". Its registers are AVX's,
  // so it is usable where avx2 is.
  unsigned a = 0, b = 0, c = 0, d = 0;
  f.f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512bw = __builtin_cpu_supports("avx512bw");
  f.avx512vl = __builtin_cpu_supports("avx512vl");
  f.avx512dq = __builtin_cpu_supports("avx512dq");
  f.avx512vnni = __builtin_cpu_supports("avx512vnni");
  f.avx512vbmi = __builtin_cpu_supports("avx512vbmi");
#elif defined(__aarch64__)
  f.neon = true;
#if defined(TOK_CPU_ARM_LINUX)
  constexpr unsigned long kHwcapAsimdDp = 1ul << 20;  // HWCAP_ASIMDDP, <asm/hwcap.h>
  f.dotprod = (getauxval(AT_HWCAP) & kHwcapAsimdDp) != 0;
#endif
#endif
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace tok
