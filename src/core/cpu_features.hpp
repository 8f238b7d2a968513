// What the CPU tok runs on can do: the instruction-set extensions that pick
// its kernels (model/kernels.hpp's sets, text's SSSE3 validator and piece
// scanners). Asked once, of the CPU (CPUID through the compiler's
// __builtin_cpu_supports, which also checks that the OS saves the vector
// registers; getauxval's hardware capabilities on AArch64 Linux), and
// cached, so every module asks the same question the same way. The binary
// is built for the base ISA; only files compiled with the ISA flags use
// these extensions, and only after a check here.
//
// These are the CPU's answers, not choices: the environment variables that
// narrow the model's kernel choice (TOK_NO_SIMD, TOK_NO_AVX512,
// TOK_NO_VBMI; docs/platforms.md) are read where the choice is made.
#pragma once

namespace tok {

struct CpuFeatures {
  // x86-64
  bool ssse3 = false;
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512dq = false;
  bool avx512vnni = false;
  bool avx512vbmi = false;
  // AArch64
  bool neon = false;     // Advanced SIMD: in the AArch64 base ISA
  bool dotprod = false;  // ARMv8.2 SDOT/UDOT (HWCAP_ASIMDDP)
};

// The running CPU's features, detected on the first call (thread-safe).
const CpuFeatures& cpu_features();

}  // namespace tok
