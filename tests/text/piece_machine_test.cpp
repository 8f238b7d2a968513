// The pre-tokenizer's state machines (text/piece_machine.hpp, for cl100k and
// its relatives and for o200k) against the per-piece scanners and PCRE2, on
// text made to reach every state and every escape: mostly ASCII, with the
// contractions' letters in both cases, words in every mix of cases, single
// and repeated whitespace of each kind, digit runs of every length,
// apostrophes and slashes next to everything, and now and then a non-ASCII
// letter, digit, space, mark or punctuation mark.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "text/escape.hpp"
#include "text/pretokenizer.hpp"
#include "text/scanners.hpp"

using tok::text::ScanEngine;

namespace {

// One fragment in `one_in` is non-ASCII.
std::string machine_text(unsigned seed, std::size_t bytes, unsigned one_in = 40) {
  static const char* const kFragments[] = {
      "a",
      "b",
      "s",
      "S",
      "d",
      "D",
      "m",
      "t",
      "T",
      "l",
      "L",
      "ll",
      "lL",
      "v",
      "V",
      "r",
      "R",
      "e",
      "E",
      "ve",
      "re",
      "RE",
      "x",
      "Zz",
      "HTML",
      "Parser",
      "aB",
      "ABc",
      "I'M",
      "it's",
      "0",
      "1",
      "12",
      "123",
      "4567",
      " ",
      "  ",
      "   ",
      "\t",
      "\t\t",
      "\v",
      "\f",
      "\n",
      "\r\n",
      "\n\n",
      "\r",
      " \n",
      "\n ",
      "'",
      "''",
      "'s",
      "'S",
      "'ll",
      "'lL",
      "'l",
      "'ve",
      "'Ve",
      "'v",
      "'re",
      "'r",
      "'m",
      "'d",
      "'t",
      ".",
      ",",
      "...",
      "(",
      ")",
      "{",
      "}",
      ";",
      "/",
      "//",
      ".\n/",
      "-",
      "_",
      "=",
      "\"",
      "#",
      "!?",
      "\x01",
      "\x1f",
      "\x7f",
      "\xc3\xa9",      // é: a letter
      "\xc5\xbf",      // ſ: folds to s in a contraction
      "\xd9\xa4",      // Arabic-Indic four: a digit
      "\xc2\xa0",      // no-break space: White_Space
      "\xe2\x80\x9c",  // left double quotation mark
      "\xe4\xb8\xad",  // a CJK ideograph
      "\xcc\x81",      // combining acute accent: a mark
      "\xe7\x94\xa8",  // 用: a letter-lead byte (CJK), read without decoding
      "\xeb\x8c\x80",  // 대: a letter-lead byte (Hangul)
      "\xec\x9d\xb4",  // 이
      "\xe4\xb8\x80",  // 一: a CJK letter whose lead byte is not a letter lead
      "\xea\xb0\x80",  // 가: likewise for Hangul
  };
  constexpr std::size_t kCount = sizeof(kFragments) / sizeof(kFragments[0]);
  constexpr std::size_t kAsciiCount = kCount - 12;
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < bytes) {
    // By default one fragment in 40 is non-ASCII: the escapes are exercised,
    // but most runs stay on the machine.
    std::size_t k =
        rng() % one_in == 0 ? kAsciiCount + rng() % (kCount - kAsciiCount) : rng() % kAsciiCount;
    s += kFragments[k];
  }
  return s;
}

// Which scanner: the cl100k family (max_digits, ws_run_to_end) or o200k.
struct Pattern {
  bool o200k;
  int max_digits;
  bool ws_run_to_end;
};

const Pattern kPatterns[] = {
    {false, 3, true}, {false, 3, false}, {false, 1, false}, {true, 3, false}};

std::vector<std::size_t> ends_of(std::string_view text, const Pattern& p, ScanEngine engine,
                                 std::size_t batch) {
  std::vector<std::size_t> out;
  std::vector<std::size_t> ends(batch);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t k = p.o200k ? tok::text::scan_o200k(text, pos, ends.data(), batch, engine)
                            : tok::text::scan_cl100k(text, pos, ends.data(), batch, p.max_digits,
                                                     p.ws_run_to_end, engine);
    REQUIRE(k >= 1);
    REQUIRE(k <= batch);
    for (std::size_t i = 0; i < k; ++i) {
      REQUIRE(ends[i] > pos);
      out.push_back(pos = ends[i]);
    }
  }
  return out;
}

// A line around byte `at`, control bytes escaped.
std::string context(std::string_view text, std::size_t at) {
  std::size_t from = at > 12 ? at - 12 : 0;
  return tok::text::escape_terminal(text.substr(from, 24));
}

void check_same(std::string_view text, const std::vector<std::size_t>& a,
                const std::vector<std::size_t>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i < a.size() || i < b.size()) {
    std::size_t at = i < a.size() ? a[i] : b[i];
    FAIL("piece end " << i << " differs near byte " << at << ": '" << context(text, at) << "'");
  }
}

}  // namespace

TEST_CASE("the machines split as the per-piece scanners do") {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    // Seeds 5 and 6: one fragment in three non-ASCII, so letter-lead
    // characters meet contractions, words and each other.
    std::string text = machine_text(seed, 200'000, seed > 4 ? 3 : 40);
    for (const Pattern& p : kPatterns) {
      CAPTURE(seed);
      CAPTURE(p.o200k);
      CAPTURE(p.max_digits);
      CAPTURE(p.ws_run_to_end);
      auto general = ends_of(text, p, ScanEngine::kGeneral, 64);
      // Batches of 1, 9 and 64: the machine's unrolled steps and its
      // byte-at-a-time tail both meet the end of the batch.
      for (std::size_t batch : {std::size_t{1}, std::size_t{9}, std::size_t{64}}) {
        CAPTURE(batch);
        check_same(text, ends_of(text, p, ScanEngine::kAuto, batch), general);
        check_same(text, ends_of(text, p, ScanEngine::kScalar, batch), general);
      }
    }
  }
}

TEST_CASE("the machines at the end of the text") {
  // Every state meets the end: a text ending in each fragment of each kind.
  for (const char* tail :
       {"a",  "A",   "aB", "'",  "'l", "'v", "'s",  "x'",   "x'l", "x'v", "x's", "1",
        "12", "123", " ",  "\t", "\n", ".",  ".\n", ".\n/", " .",  "  ",  " \n", "x\n\n"}) {
    for (const char* head : {"", "x", "X", " ", "1", ".", "'"}) {
      std::string text = std::string(head) + tail;
      CAPTURE(text);
      for (const Pattern& p : kPatterns) {
        auto general = ends_of(text, p, ScanEngine::kGeneral, 64);
        check_same(text, ends_of(text, p, ScanEngine::kAuto, 64), general);
        check_same(text, ends_of(text, p, ScanEngine::kScalar, 64), general);
      }
    }
  }
}

TEST_CASE("the machines equal PCRE2 on their own kind of text") {
  std::string text = machine_text(99, 300'000) + machine_text(98, 100'000, 3);
  for (const char* name : {"cl100k", "llama3", "qwen2", "o200k"}) {
    auto pt = tok::text::PreTokenizer::named(name);
    REQUIRE(pt.ok());
    std::vector<std::string_view> hand, regex;
    pt->split(text, [&](std::string_view p) { hand.push_back(p); });
    pt->split_with_regex(text, [&](std::string_view p) { regex.push_back(p); });
    CAPTURE(name);
    std::size_t i = 0;
    while (i < hand.size() && i < regex.size() && hand[i] == regex[i]) ++i;
    if (i < hand.size() || i < regex.size()) {
      std::size_t at = i < hand.size() ? static_cast<std::size_t>(hand[i].data() - text.data())
                                       : static_cast<std::size_t>(regex[i].data() - text.data());
      std::string a = i < hand.size() ? std::string(hand[i]) : "-";
      std::string b = i < regex.size() ? std::string(regex[i]) : "-";
      FAIL("piece " << i << " differs near byte " << at << ": '" << context(text, at) << "': '"
                    << context(a, 0) << "' against PCRE2's '" << context(b, 0) << "'");
    }
  }
}
