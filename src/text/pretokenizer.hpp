// PreTokenizer: splits text into the pieces that BPE then encodes separately,
// exactly as the regex split patterns of tiktoken / Hugging Face do.
//
// Named patterns (gpt2 = r50k/p50k, cl100k, o200k, ...) run on hand-written
// scanners driven by Unicode property tables; any other pattern runs on PCRE2.
// Both paths give identical pieces (tested on large randomized input).
//
// Invalid UTF-8: files are bytes. The input is cut into maximal valid UTF-8
// runs and maximal invalid byte runs. Each invalid run is one piece of its own;
// each valid run is split as if it were a whole text on its own (so lookaheads
// such as \s+(?!\S) see the edge of a run as the end of text). Pieces always
// tile the input exactly, so decode(encode(x)) == x for every byte string.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::text {

enum class Scanner { kGpt2, kCl100k, kO200k, kRegex };

class PreTokenizer {
 public:
  // "gpt2" (also "r50k", "p50k"), "cl100k", "o200k" and aliases ending in
  // "_base"; also "llama3" and "qwen2" (the Hugging Face Split regexes).
  // Unknown names are an error listing the known ones.
  static Result<PreTokenizer> named(std::string_view name);
  // Any PCRE2 pattern (UTF, Unicode properties). A pattern equal to a named
  // one's source uses that hand scanner.
  static Result<PreTokenizer> from_regex(std::string_view pattern);

  const std::string& name() const { return name_; }
  const std::string& pattern() const { return pattern_; }
  Scanner scanner() const { return scanner_; }

  // Calls f(std::string_view piece) for every piece, in order.
  template <class F>
  void split(std::string_view text, F&& f) const;

  // The same pieces through the general regex engine (for differential tests).
  void split_with_regex(std::string_view text,
                        const std::function<void(std::string_view)>& f) const;

  // A position p >= from where every pattern split of text is guaranteed to
  // have a piece boundary, so text[..p] and text[p..] can be split (and
  // counted) independently with the same result; text.size() if none found
  // before `limit` bytes past `from`. For the named scanners p is just after
  // a "\n" that follows an ASCII non-space character and precedes an ASCII
  // letter, or just before a "\n" that follows an ASCII letter or digit
  // (proofs in pretokenizer.cpp); a general regex has none.
  std::size_t safe_boundary(std::string_view text, std::size_t from, std::size_t limit) const;

 private:
  struct Regex;  // compiled PCRE2 pattern
  void split_regex_fn(std::string_view text, const std::function<void(std::string_view)>& f) const;
  // Ends of up to max pieces from pos in a valid-UTF-8 text (hand scanners);
  // returns their number.
  static constexpr std::size_t kScanBatch = 64;
  std::size_t next_ends(std::string_view text, std::size_t pos, std::size_t* ends,
                        std::size_t max) const;

  std::string name_;
  std::string pattern_;
  Scanner scanner_ = Scanner::kRegex;
  // Variants of the cl100k scanner: \p{N}{1,3} (3) or qwen2's \p{N} (1), and
  // whether tiktoken's \s++$ alternative keeps a final whitespace run whole.
  int max_digits_ = 3;
  bool ws_run_to_end_ = false;
  std::shared_ptr<const Regex> regex_;
};

// Length of the maximal valid UTF-8 prefix of s (stops before the first
// invalid byte).
std::size_t valid_utf8_prefix(std::string_view s);

template <class F>
void PreTokenizer::split(std::string_view text, F&& f) const {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t valid = valid_utf8_prefix(text.substr(pos));
    if (valid == 0) {
      // A maximal run of invalid bytes is one piece.
      std::size_t end = pos + 1;
      while (end < text.size() && valid_utf8_prefix(text.substr(end, 4)) == 0) ++end;
      f(text.substr(pos, end - pos));
      pos = end;
      continue;
    }
    std::string_view run = text.substr(pos, valid);
    if (scanner_ == Scanner::kRegex) {
      split_regex_fn(run, f);
    } else {
      std::size_t p = 0, ends[kScanBatch];
      while (p < run.size()) {
        std::size_t k = next_ends(run, p, ends, kScanBatch);
        for (std::size_t i = 0; i < k; ++i) {
          f(run.substr(p, ends[i] - p));
          p = ends[i];
        }
      }
    }
    pos += valid;
  }
}

}  // namespace tok::text
