// Throughput of the hand scanners and of PCRE2 on a real text. Skipped by
// default and never asserts on time; run with
//   zcat /usr/share/debian-reference/*.txt.gz > /tmp/en.txt
//   TOK_TEXT_BENCH=/tmp/en.txt build/test_text -tc='*throughput*' --no-skip
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "text/pretokenizer.hpp"

using tok::text::PreTokenizer;

TEST_CASE("pre-tokenizer throughput" * doctest::skip()) {
  const char* path = std::getenv("TOK_TEXT_BENCH");
  if (path == nullptr) return;
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  for (const char* name : {"gpt2", "cl100k", "o200k"}) {
    auto pt = PreTokenizer::named(name);
    REQUIRE(pt.ok());
    for (bool regex : {false, true}) {
      // Thread CPU time, best of several rounds: the build machines are
      // shared, so wall time and single rounds are noise.
      auto cpu_seconds = [] {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
      };
      std::size_t count = 0;
      auto on_piece = [&](std::string_view) { ++count; };
      double best = 1e9;
      for (int r = 0; r < (regex ? 2 : 7); ++r) {
        count = 0;
        double t0 = cpu_seconds();
        if (regex) {
          pt->split_with_regex(text, on_piece);
        } else {
          pt->split(text, on_piece);
        }
        best = std::min(best, cpu_seconds() - t0);
      }
      std::string line = std::string(name) + (regex ? " pcre2: " : " scanner: ") +
                         std::to_string(int(text.size() / best / 1e6)) + " MB/s, " +
                         std::to_string(count) + " pieces";
      MESSAGE(line);
    }
  }
}
