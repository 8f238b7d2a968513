// Validators for every numeric flag. CLI11 converts "-1" for an unsigned
// option to a huge number, and a NaN passes CLI::Range (every comparison with
// NaN is false); these check the text itself first, so a negative, fractional,
// overflowing or non-finite value is a usage error (exit 2) that names the
// flag and its range.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>

namespace tok::cli {

// The largest token count a flag takes (a budget, an output length, a chunk
// size): sums of a few of them stay far from overflowing 64 bits, and prices
// computed from them in double stay exact.
inline constexpr std::uint64_t kMaxTokenCount = 1'000'000'000'000'000;
// --threads: more than the machine has only idles (each pool caps it).
inline constexpr std::uint64_t kMaxThreads = 1'000'000;

// A whole number written in decimal digits, from lo to hi.
CLI::Validator integer_in(std::uint64_t lo, std::uint64_t hi);
// A finite number from lo to hi.
CLI::Validator real_in(double lo, double hi);

// The largest value an option of type T takes (its range's end for "any").
template <class T>
constexpr std::uint64_t max_of() {
  return static_cast<std::uint64_t>(std::numeric_limits<T>::max());
}

}  // namespace tok::cli
