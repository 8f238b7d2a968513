// Named split patterns, construction, scanner dispatch and safe chunk
// boundaries.
#include "text/pretokenizer.hpp"

#include <array>
#include <cstring>

#include "text/regex.hpp"
#include "text/scanners.hpp"

namespace tok::text {
namespace {

bool ascii_letter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

struct NamedPattern {
  std::string_view name;
  Scanner scanner;
  int max_digits;
  bool ws_run_to_end;
  std::string_view pattern;                 // what pattern() returns
  std::array<std::string_view, 2> sources;  // other spellings with the same splits
  std::array<std::string_view, 5> aliases;
};

// tiktoken's current patterns (tiktoken_ext/openai_public.py). Its gpt2 and
// cl100k patterns were rewritten with possessive quantifiers in tiktoken
// PRs #234 and #258; the older spellings (still in the npm package and in
// Hugging Face files) are listed as other sources. For gpt2 every spelling
// splits alike. For cl100k the new \s++$ alternative keeps a whitespace run
// that ends the text whole ("a\n  " -> "a", "\n  "; the old form gives "a",
// "\n", "  "), so the old spelling is the distinct "llama3" variant (Llama 3's
// tokenizer.json carries exactly that string). cl100k's vocabulary has no
// token that joins a newline to following spaces, so token ids agree anyway.
constexpr NamedPattern kNamed[] = {
    {"gpt2",
     Scanner::kGpt2,
     0,
     false,
     R"('(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s)",
     {R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"},
     {"r50k", "r50k_base", "p50k", "p50k_base", "p50k_edit"}},
    {"cl100k",
     Scanner::kCl100k,
     3,
     true,
     R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s)",
     {},
     {"cl100k_base"}},
    {"o200k",
     Scanner::kO200k,
     3,
     false,
     R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     {},
     {"o200k_base", "o200k_harmony"}},
    {"llama3",
     Scanner::kCl100k,
     3,
     false,
     R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     {R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)"},
     {"cl100k_legacy"}},
    {"qwen2",
     Scanner::kCl100k,
     1,
     false,
     R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     {},
     {}},
};

std::string known_names() {
  std::string out;
  for (const auto& n : kNamed) {
    if (!out.empty()) out += ", ";
    out += n.name;
    for (auto a : n.aliases) {
      if (!a.empty()) out.append(", ").append(a);
    }
  }
  return out;
}

}  // namespace

Result<PreTokenizer> PreTokenizer::named(std::string_view name) {
  for (const auto& n : kNamed) {
    bool match = n.name == name;
    for (auto a : n.aliases) match = match || (!a.empty() && a == name);
    if (!match) continue;
    TOK_ASSIGN(PreTokenizer p, from_regex(n.pattern));
    return p;
  }
  return make_error("unknown pre-tokenizer '{}'; known names: {}", name, known_names());
}

Result<PreTokenizer> PreTokenizer::from_regex(std::string_view pattern) {
  PreTokenizer p;
  p.pattern_ = std::string(pattern);
  p.name_ = "regex";
  for (const auto& n : kNamed) {
    bool match = n.pattern == pattern;
    for (auto s : n.sources) match = match || (!s.empty() && s == pattern);
    if (!match) continue;
    p.name_ = std::string(n.name);
    p.scanner_ = n.scanner;
    p.max_digits_ = n.max_digits;
    p.ws_run_to_end_ = n.ws_run_to_end;
    break;
  }
  // A named scanner needs PCRE2 only for split_with_regex, which compiles
  // its known-good pattern then; compiling here costs every start-up.
  if (p.scanner_ == Scanner::kRegex) {
    TOK_ASSIGN(p.regex_, Regex::compile(pattern));
  }
  return p;
}

std::size_t PreTokenizer::next_ends(std::string_view text, std::size_t pos, std::size_t* ends,
                                    std::size_t max) const {
  switch (scanner_) {
    case Scanner::kGpt2: return scan_gpt2(text, pos, ends, max);
    case Scanner::kCl100k: return scan_cl100k(text, pos, ends, max, max_digits_, ws_run_to_end_);
    case Scanner::kO200k: return scan_o200k(text, pos, ends, max);
    case Scanner::kRegex: break;
  }
  TOK_ASSERT(!"next_ends called for a regex pre-tokenizer");
  return 0;
}

// A safe boundary p is one of two kinds.
//
// After a newline: text[p-2] is ASCII but not whitespace (0x21..0x7E),
// text[p-1] == '\n', and text[p] is an ASCII letter.
//
// UTF-8 runs: the three bytes are ASCII, so they lie in one valid run both in
// the whole text and in either part, and every run boundary elsewhere is
// unchanged (a character that starts before p-2 ends by p-2).
//
// Pieces, for every named pattern: (1) No alternative matching from before
// p-2 can pass the non-space y = text[p-2] and then the '\n': letter, number
// and contraction runs stop at '\n'; whitespace runs stop at y; only the
// punctuation alternative takes y and then trailing newlines ([\r\n]* in
// cl100k, [\r\n/]* in o200k) and stops before the letter at p. So the piece
// holding y ends at p-1 or p, and never needed to look past p. (2) A piece
// starting at p-1 is the lone "\n": every alternative that can start with
// '\n' is a whitespace one, its run is just "\n" (y before, a letter after),
// and all of \s*[\r\n]+, \s*[\r\n], \s+ and, at the end of text[..p],
// \s+(?!\S) and \s++$ give exactly "\n". gpt2 has no newline alternative, but
// its "\n" before a letter fails \s+(?!\S) and is taken whole by \s+, the
// same piece. (3) No pattern has lookbehind, so matching from p in text[p..]
// is matching from p in the whole text.
//
// y must not be whitespace: for gpt2, "a \nb" splits " ", "\n", but "a \n"
// alone ends in one piece " \n".
//
// Before a newline: text[p-1] is an ASCII letter or digit and text[p] ==
// '\n'. Both bytes are ASCII (UTF-8 runs as above). The piece holding y =
// text[p-1] is a letter, number or contraction run (no whitespace or
// punctuation alternative takes a letter or digit); none of them takes a
// '\n', so it ends at p in the whole text, and at the end of text[..p] it
// ends the same way: each of its greedy runs and optional suffixes fails on
// '\n' as it fails at the end, and which alternative matched was settled by
// the bytes before p. Pieces before it ended by p-1 and looked at most at y.
// Matching from p is then as in (3). Indented code, whose lines mostly start
// with blanks, has few boundaries of the first kind: with that kind alone,
// the last chunk of a threaded encode can be several times the size of the
// others and leave the other threads idle.
std::size_t PreTokenizer::safe_boundary(std::string_view text, std::size_t from,
                                        std::size_t limit) const {
  if (scanner_ == Scanner::kRegex) return text.size();
  std::size_t last = limit >= text.size() - std::min(from, text.size())
                         ? text.size()
                         : from + limit;  // candidates p <= last, p < size
  std::size_t i = from < 1 ? 1 : from;    // index of a '\n': p - 1 or p
  while (i + 1 < text.size() && i + 1 <= last) {
    const void* hit = std::memchr(text.data() + i, '\n', std::min(last, text.size() - 1) - i);
    if (hit == nullptr) break;
    i = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
    unsigned char y = static_cast<unsigned char>(text[i - 1]);
    unsigned char x = static_cast<unsigned char>(text[i + 1]);
    if ((ascii_letter(y) || (y >= '0' && y <= '9')) && i > from) return i;  // before the '\n'
    if (y > 0x20 && y < 0x7F && ascii_letter(x)) return i + 1;
    ++i;
  }
  return text.size();
}

}  // namespace tok::text
