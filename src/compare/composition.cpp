#include "compare/composition.hpp"

#include <unicode/uscript.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "core/utf8.hpp"

namespace tok::compare {
namespace {

// Calls f(bytes) for each ordinary token of the vocabulary.
template <class F>
void for_each_token(const bpe::Tokenizer& tk, F&& f) {
  for (std::size_t id = 0; id < tk.vocab_size(); ++id) {
    auto tid = static_cast<bpe::TokenId>(id);
    if (!tk.has_token(tid) || tk.is_special(tid)) continue;
    f(tk.token_bytes(tid));
  }
}

// Code points of valid UTF-8, or -1.
long count_code_points(std::string_view bytes) {
  long count = 0;
  for (std::size_t i = 0; i < bytes.size(); ++count) {
    std::size_t len = utf8::valid_char_length(bytes.substr(i));
    if (len == 0) return -1;
    i += len;
  }
  return count;
}

}  // namespace

std::string token_script(std::string_view bytes) {
  UScriptCode found = USCRIPT_COMMON;
  bool mixed = false;
  for (std::size_t i = 0; i < bytes.size();) {
    utf8::Decoded d = utf8::decode_at(bytes, i);
    if (!d.valid) return "";
    i += d.len;
    UErrorCode st = U_ZERO_ERROR;
    UScriptCode sc = uscript_getScript(static_cast<UChar32>(d.cp), &st);
    if (U_FAILURE(st) || sc == USCRIPT_COMMON || sc == USCRIPT_INHERITED || sc == USCRIPT_UNKNOWN) {
      continue;
    }
    if (found == USCRIPT_COMMON) {
      found = sc;
    } else if (sc != found) {
      mixed = true;
    }
  }
  if (mixed) return "Mixed";
  return uscript_getName(found);
}

Composition compose(const bpe::Tokenizer& tk) {
  Composition c;
  std::map<std::string, std::size_t> by_script;
  std::size_t total_bytes = 0, whole = 0, total_chars = 0;
  for_each_token(tk, [&](std::string_view bytes) {
    ++c.tokens;
    total_bytes += bytes.size();
    long cps = count_code_points(bytes);
    if (cps < 0) {
      ++c.partial;
      return;
    }
    ++whole;
    total_chars += static_cast<std::size_t>(cps);
    ++by_script[token_script(bytes)];
  });
  if (c.tokens) c.mean_bytes = static_cast<double>(total_bytes) / static_cast<double>(c.tokens);
  if (whole) c.mean_chars = static_cast<double>(total_chars) / static_cast<double>(whole);
  for (auto& [name, n] : by_script) c.scripts.push_back({name, n});
  std::stable_sort(c.scripts.begin(), c.scripts.end(),
                   [](const ScriptShare& a, const ScriptShare& b) { return a.tokens > b.tokens; });
  return c;
}

double jaccard(const bpe::Tokenizer& a, const bpe::Tokenizer& b) {
  std::unordered_set<std::string_view> sa;
  for_each_token(a, [&](std::string_view t) { sa.insert(t); });
  std::unordered_set<std::string_view> sb;
  std::size_t both = 0;
  for_each_token(b, [&](std::string_view t) {
    if (sb.insert(t).second && sa.count(t)) ++both;
  });
  std::size_t either = sa.size() + sb.size() - both;
  return either ? static_cast<double>(both) / static_cast<double>(either) : 1.0;
}

}  // namespace tok::compare
