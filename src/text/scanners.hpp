// Hand-written equivalents of the named split regexes. Each function writes
// the ends of up to `max` consecutive pieces, the first starting at pos in a
// valid-UTF-8 run (pos < text.size()), to ends[] and returns their number
// (>= 1; fewer than max only at the end of text); the run's end is the end
// of text for lookaheads and `$`. scanners.cpp explains, per
// alternative, how each one reproduces the backtracking regex's choice.
#pragma once

#include <cstddef>
#include <string_view>

namespace tok::text {

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::size_t scan_gpt2(std::string_view text, std::size_t pos, std::size_t* ends, std::size_t max);

// How scan_cl100k and scan_o200k find their pieces: kAuto, the state
// machine of piece_machine.hpp (its vector form where the CPU has SSSE3);
// kScalar, the machine's table form; kGeneral, the per-piece scanner alone.
// All three give the same pieces (the choice exists for the tests).
enum class ScanEngine { kAuto, kScalar, kGeneral };

// cl100k and its relatives. max_digits is 3 for \p{N}{1,3} and 1 for qwen2's
// \p{N}. ws_run_to_end selects tiktoken's current cl100k form, whose \s++$
// keeps a whitespace run that reaches the end of text in one piece; without
// it (llama3, qwen2, older tiktoken) \s*[\r\n]+ first cuts after the run's
// last newline.
std::size_t scan_cl100k(std::string_view text, std::size_t pos, std::size_t* ends, std::size_t max,
                        int max_digits, bool ws_run_to_end, ScanEngine engine = ScanEngine::kAuto);

// o200k_base.
std::size_t scan_o200k(std::string_view text, std::size_t pos, std::size_t* ends, std::size_t max,
                       ScanEngine engine = ScanEngine::kAuto);

}  // namespace tok::text
