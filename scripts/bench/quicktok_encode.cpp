// The quicktok peer's encode call, timed as scripts/bench/tok_encode_call.cpp
// times tok's: by wall clock and by this thread's CPU time (the fairer clock
// on a shared, loaded machine, where wall time mostly measures waiting for a
// core). Built by scripts/bench/quicktok against the peer's library; a
// benchmark harness, never part of tok.
//
//   quicktok_encode CORPUS ENCODING DATA_DIR REPS IDS_OUT [--first]
// prints one JSON line {"tokens":N,"best_ms":..,"best_cpu_ms":..} and writes
// the ids to IDS_OUT as little-endian uint32. Without --first: the best of
// REPS calls after one untimed call (the Tokenizer's pair-validity memo kept
// from call to call); with --first: the process's first call alone (REPS 1).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "quicktok.hpp"

static double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  bool first = argc == 7 && std::string(argv[6]) == "--first";
  if (argc != 6 && !first) {
    std::fprintf(stderr, "usage: quicktok_encode CORPUS ENCODING DATA_DIR REPS IDS_OUT [--first]\n");
    return 2;
  }
  FILE* f = std::fopen(argv[1], "rb");
  if (!f) { std::fprintf(stderr, "quicktok_encode: cannot open %s\n", argv[1]); return 1; }
  std::vector<uint8_t> text;
  uint8_t buf[1 << 16];
  for (size_t k; (k = std::fread(buf, 1, sizeof buf, f)) > 0;) text.insert(text.end(), buf, buf + k);
  std::fclose(f);
  auto tok = quicktok::Tokenizer::load_dir(argv[3], argv[2]);
  std::vector<uint32_t> out;
  // Reserved and written once, so that no call pays for the vector's page
  // faults (the untimed call would have paid them; the first call must not).
  // One id a byte at most: a third was too few on the non-Latin slice (730,000
  // ids from 2.1 MB), and each tool's call then also paid to move its ids.
  out.resize(text.size());
  out.clear();
  if (!first) tok.encode(text.data(), text.size(), out);  // the untimed call
  double best = 1e300, best_cpu = 1e300;
  int reps = first ? 1 : std::atoi(argv[4]);
  for (int r = 0; r < reps; ++r) {
    out.clear();
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_ms();
    tok.encode(text.data(), text.size(), out);
    best_cpu = std::min(best_cpu, cpu_ms() - c0);
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  FILE* o = std::fopen(argv[5], "wb");
  if (!o || std::fwrite(out.data(), 4, out.size(), o) != out.size() || std::fclose(o) != 0) {
    std::fprintf(stderr, "quicktok_encode: cannot write %s\n", argv[5]);
    return 1;
  }
  std::printf("{\"tokens\":%zu,\"best_ms\":%.2f,\"best_cpu_ms\":%.2f}\n", out.size(), best, best_cpu);
  return 0;
}
