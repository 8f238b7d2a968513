// PCRE2 compilation and the general regex split: matches become pieces, and
// so does every maximal stretch the regex skips, so pieces tile the text.
#include "text/regex.hpp"

#include <optional>

#include "core/utf8.hpp"
#include "text/unicode_classes.hpp"

namespace tok::text {
namespace {

// Per-call matching state. The JIT runs on a 32 KB machine stack by default;
// only a match that runs out of it gets a large heap stack, since creating
// one for every call (every valid UTF-8 run) costs an mmap.
class MatchScratch {
 public:
  explicit MatchScratch(const pcre2_code* code)
      : data_(pcre2_match_data_create_from_pattern(code, nullptr)) {}
  ~MatchScratch() {
    pcre2_match_context_free(context_);
    pcre2_jit_stack_free(stack_);
    pcre2_match_data_free(data_);
  }
  MatchScratch(const MatchScratch&) = delete;
  MatchScratch& operator=(const MatchScratch&) = delete;

  int match(const pcre2_code* code, std::string_view text, std::size_t pos) {
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    int rc = pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, data_, context_);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT && stack_ == nullptr) {
      stack_ = pcre2_jit_stack_create(64 * 1024, 64 * 1024 * 1024, nullptr);
      context_ = pcre2_match_context_create(nullptr);
      pcre2_jit_stack_assign(context_, nullptr, stack_);
      rc = pcre2_match(code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, data_, context_);
    }
    return rc;
  }
  const PCRE2_SIZE* ovector() const { return pcre2_get_ovector_pointer(data_); }

 private:
  pcre2_match_data* data_;
  pcre2_jit_stack* stack_ = nullptr;
  pcre2_match_context* context_ = nullptr;
};

// A class escape spelled as explicit members from tok's tables: inside a
// class the (possibly negated) set's members, outside one a class of them.
// An empty member list (only surrogates, as \p{Cs}) keeps PCRE2's spelling.
void append_set(const RangeSet& set, bool negated, bool in_class, std::string_view original,
                std::string& out) {
  std::string members = pcre2_members(in_class && negated ? complement(set) : set);
  if (members.empty()) {
    out.append(original);
  } else if (in_class) {
    out.append(members);
  } else {
    out.append(negated ? "[^" : "[").append(members).append("]");
  }
}

// \p{name}, \pL, \P{name}, \p{^name} at pattern[i] (the backslash): appends
// its members from tok's tables, or the escape unchanged for a name the
// tables do not have (PCRE2 then resolves or rejects it), and returns the
// index of its last character.
std::size_t rewrite_property(std::string_view pattern, std::size_t i, bool in_class,
                             std::string& out) {
  bool negated = pattern[i + 1] == 'P';
  std::size_t end = i + 2;  // one past the escape
  std::string_view name;
  if (end < pattern.size() && pattern[end] == '{') {
    std::size_t close = pattern.find('}', end);
    if (close == std::string_view::npos) {  // malformed: PCRE2 reports it
      out.append(pattern.substr(i, 2));
      return i + 1;
    }
    name = pattern.substr(end + 1, close - end - 1);
    end = close + 1;
  } else if (end < pattern.size()) {
    name = pattern.substr(end, 1);
    end += 1;
  }
  if (!name.empty() && name.front() == '^') {
    negated = !negated;
    name.remove_prefix(1);
  }
  std::string_view original = pattern.substr(i, end - i);
  std::optional<RangeSet> set = name.empty() ? std::nullopt : property_set(name);
  if (set) {
    append_set(*set, negated, in_class, original, out);
  } else {
    out.append(original);
  }
  return end - 1;
}

// \s \S \d \D \w \W as the references read them (see regex.hpp); nullopt for
// any other escape letter.
std::optional<RangeSet> shorthand_set(char e) {
  switch (e) {
    case 's':
    case 'S': return white_space_set();
    case 'd':
    case 'D': return digit_set();
    case 'w':
    case 'W': return word_set();
    default: return std::nullopt;
  }
}

// The offset in the user's pattern of an offset in the rewritten one: an
// offset inside a spelled-out escape is the escape's start.
std::size_t user_offset(const OffsetMarks& marks, std::size_t offset) {
  std::size_t out = 0, in = 0;
  bool inside = false;
  for (const auto& m : marks) {
    if (m.out > offset) break;
    out = m.out, in = m.in, inside = m.starts;
  }
  return inside ? in : in + (offset - out);
}

}  // namespace

std::string rewrite_for_pcre2(std::string_view pattern, OffsetMarks* marks) {
  std::string out;
  out.reserve(pattern.size() + 64);
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char ch = pattern[i];
    if (ch == '\\' && i + 1 < pattern.size()) {
      char e = pattern[i + 1];
      if (e == 'Q') {  // \Q...\E is literal text
        std::size_t end = pattern.find("\\E", i + 2);
        end = end == std::string_view::npos ? pattern.size() : end + 2;
        out.append(pattern.substr(i, end - i));
        i = end - 1;
        continue;
      }
      if (e == 'p' || e == 'P') {
        if (marks) marks->push_back({out.size(), i, true});
        i = rewrite_property(pattern, i, in_class, out);
        if (marks) marks->push_back({out.size(), i + 1, false});
        continue;
      }
      if (auto set = shorthand_set(e)) {
        bool negated = e >= 'A' && e <= 'Z';
        if (marks) marks->push_back({out.size(), i, true});
        append_set(*set, negated, in_class, pattern.substr(i, 2), out);
        if (marks) marks->push_back({out.size(), i + 2, false});
      } else {
        out += '\\';
        out += e;
      }
      ++i;
      continue;
    }
    out += ch;
    if (!in_class && ch == '[') {
      in_class = true;
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
    } else if (in_class && ch == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
      std::size_t end = pattern.find(":]", i + 2);  // POSIX class [:name:]
      if (end != std::string_view::npos) {
        out.append(pattern.substr(i + 1, end + 2 - (i + 1)));
        i = end + 1;
      }
    } else if (in_class && ch == ']') {
      in_class = false;
    }
  }
  return out;
}

Result<std::shared_ptr<const PreTokenizer::Regex>> PreTokenizer::Regex::compile(
    std::string_view pattern) {
  OffsetMarks marks;
  std::string source = rewrite_for_pcre2(pattern, &marks);
  int error = 0;
  PCRE2_SIZE offset = 0;
  auto regex = std::make_shared<Regex>();
  regex->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &error, &offset, nullptr);
  if (regex->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    return make_error("invalid split regex: {} at offset {} of pattern '{}'",
                      reinterpret_cast<const char*>(message), user_offset(marks, offset), pattern);
  }
  // Without JIT support (some platforms) pcre2_match interprets; same results.
  pcre2_jit_compile(regex->code, PCRE2_JIT_COMPLETE);
  return std::shared_ptr<const Regex>(std::move(regex));
}

void PreTokenizer::split_regex_fn(std::string_view text,
                                  const std::function<void(std::string_view)>& f) const {
  TOK_ASSERT(regex_ != nullptr);
  MatchScratch scratch(regex_->code);
  std::size_t gap = 0;  // start of the text not yet covered by a piece
  std::size_t pos = 0;  // where the next search starts
  while (pos <= text.size()) {
    int rc = scratch.match(regex_->code, text, pos);
    if (rc < 0) {
      // No more matches. A matching error (a resource limit hit by a
      // pathological user pattern) also ends matching: the rest becomes one
      // piece, so pieces still tile the text.
      break;
    }
    const PCRE2_SIZE* ov = scratch.ovector();
    std::size_t start = ov[0], end = ov[1];
    if (end == start) {
      // An empty match covers nothing; step over one character so the search
      // moves on, leaving that character to the gap.
      if (start >= text.size()) break;
      pos = start + utf8::char_length(static_cast<unsigned char>(text[start]));
      continue;
    }
    if (start > gap) f(text.substr(gap, start - gap));
    f(text.substr(start, end - start));
    gap = pos = end;
  }
  if (gap < text.size()) f(text.substr(gap));
}

void PreTokenizer::split_with_regex(std::string_view text,
                                    const std::function<void(std::string_view)>& f) const {
  PreTokenizer as_regex = *this;
  as_regex.scanner_ = Scanner::kRegex;
  if (!as_regex.regex_) {
    auto compiled = Regex::compile(pattern_);
    TOK_ASSERT(compiled.ok());  // the pattern of a named scanner
    as_regex.regex_ = std::move(compiled).value();
  }
  as_regex.split(text, f);
}

}  // namespace tok::text
