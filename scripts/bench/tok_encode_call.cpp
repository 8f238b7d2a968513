// tok_encode_call CORPUS ENCODING REPS IDS_OUT [--first] [--threads N]: tok's
// encode call timed exactly as scripts/bench/quicktok_encode.cpp times
// quicktok's, so that scripts/bench/encode compares like with like. The corpus is read into
// memory and the tokenizer loaded before any timing; the id vector is
// reserved (one id a byte) and reused. Without --first: one untimed call,
// then the best of REPS calls, every call with the same EncodeScratch (its
// caches kept, as quicktok keeps its pair-validity memo). With --first: the
// first call of the process alone (REPS must be 1), both tools' caches empty.
// With --threads N (scripts/bench/encode-threads): the call is instead
// `tok encode --threads N`'s, encode_in_order over the cuts
// Tokenizer::parallel_boundaries gives, its chunks appended in order to the
// id vector; every such call starts with empty caches (they live for one
// call), and its CPU time is the whole process's.
// Prints one JSON line {"tokens":N,"best_ms":..,"best_cpu_ms":..} and writes
// the ids (uint32, native byte order) to IDS_OUT. Built on demand
// (cmake --build build --target tok_encode_call), never installed.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bpe/encoder.hpp"
#include "bpe/ordered_encode.hpp"
#include "bpe/tokenizer.hpp"
#include "formats/registry.hpp"

namespace {

double cpu_ms(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

int fail(const std::string& why) {
  std::fprintf(stderr, "tok: error: tok_encode_call: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool first = false;
  unsigned threads = 0;  // 0: the single-thread call
  for (int i = 5; i < argc; ++i) {
    if (std::strcmp(argv[i], "--first") == 0) {
      first = true;
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc &&
               std::atoi(argv[i + 1]) > 0) {
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    } else {
      argc = 0;
    }
  }
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: tok_encode_call CORPUS ENCODING REPS IDS_OUT [--first] [--threads N]\n");
    return 2;
  }
  int reps = std::atoi(argv[3]);
  if (reps < 1 || (first && reps != 1)) {
    std::fprintf(stderr, "tok: error: tok_encode_call: REPS must be at least 1 (exactly 1 with --first)\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) return fail(std::string(argv[1]) + ": cannot open");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto tk = tok::formats::load_tokenizer(argv[2]);
  if (!tk.ok()) return fail(tk.error().message);
  std::vector<tok::bpe::TokenId> out;
  // Reserved and written once, so that no call pays for the vector's page
  // faults (the untimed call would have paid them; the first call must not).
  // One id a byte at most: a third was too few on the non-Latin slice (730,000
  // ids from 2.1 MB), and each tool's call then also paid to move its ids.
  out.resize(text.size());
  out.clear();
  tok::bpe::EncodeScratch scratch;
  const auto mode = tok::bpe::SpecialMode::kText;
  std::vector<std::size_t> cuts;
  if (threads) cuts = tk->parallel_boundaries(text, threads, mode);
  auto encode = [&]() -> bool {
    out.clear();
    tok::Status st;
    if (threads) {
      st = tok::bpe::encode_in_order(*tk, text, cuts, mode, threads,
                                     [&](std::size_t, std::span<const tok::bpe::TokenId> ids) {
                                       out.insert(out.end(), ids.begin(), ids.end());
                                       return tok::Status{};
                                     });
    } else {
      st = tk->encode(text, mode, out, scratch);
    }
    if (!st.ok()) {
      fail(std::string(argv[1]) + ": " + st.error().message);
      return false;
    }
    return true;
  };
  if (!first && !encode()) return 1;  // the untimed call
  double best = 1e300, best_cpu = 1e300;
  const clockid_t clock = threads ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_ms(clock);
    if (!encode()) return 1;
    double cpu = cpu_ms(clock) - c0;
    double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    best_cpu = cpu < best_cpu ? cpu : best_cpu;
    best = wall < best ? wall : best;
  }
  std::FILE* o = std::fopen(argv[4], "wb");
  if (!o || std::fwrite(out.data(), 4, out.size(), o) != out.size() || std::fclose(o) != 0) {
    return fail(std::string(argv[4]) + ": cannot write");
  }
  std::printf("{\"tokens\":%zu,\"best_ms\":%.2f,\"best_cpu_ms\":%.2f}\n", out.size(), best, best_cpu);
  return 0;
}
