// Shared helpers for the libFuzzer targets in tests/fuzz/. Each target is one
// fuzz_NAME.cpp defining LLVMFuzzerTestOneInput; the same source also links
// into replay_NAME (replay_main.cpp), which the normal test suite runs over
// tests/fuzz/corpus/NAME and tests/fuzz/regressions/NAME with gcc or ASan.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bpe/tokenizer.hpp"
#include "formats/registry.hpp"

namespace tok::fuzz {

// A property violation: print what differed and abort, so libFuzzer saves the
// input as a crash and the replay test fails.
[[noreturn]] inline void fail(const char* target, const std::string& what) {
  std::fprintf(stderr, "fuzz %s: property violated: %s\n", target, what.c_str());
  std::abort();
}

// A built-in tokenizer loaded once per process (the vocabulary dir comes from
// TOK_VOCAB_DIR or the source tree, as for the binary).
inline const bpe::Tokenizer& builtin(const char* name) {
  auto r = formats::load_tokenizer(name);
  if (!r.ok()) {
    std::fprintf(stderr, "fuzz: cannot load %s: %s\n", name, r.error().message.c_str());
    std::abort();
  }
  // Leaked on purpose: lives for the whole fuzzing process.
  return *new bpe::Tokenizer(std::move(r).value());
}

inline std::string_view as_view(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace tok::fuzz
