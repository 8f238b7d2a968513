#include "text/normalize.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "text/alignment.hpp"

namespace tok::text {
namespace {

std::string normalize_whole(std::string_view text, int opts) {
  utf8proc_uint8_t* out = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                    static_cast<utf8proc_ssize_t>(text.size()), &out,
                                    static_cast<utf8proc_option_t>(opts));
  if (n < 0) return std::string(text);
  std::string r(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return r;
}

// Length of the valid UTF-8 code point at text[i] and its value, or 0.
std::size_t next_code_point(std::string_view text, std::size_t i, utf8proc_int32_t& c) {
  utf8proc_ssize_t len =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data()) + i,
                       static_cast<utf8proc_ssize_t>(text.size() - i), &c);
  return len > 0 ? static_cast<std::size_t>(len) : 0;
}

// Where a normalization cluster may start: a starter (combining class 0)
// that does not compose with what precedes it as a Hangul vowel or trailing
// consonant would. Starters that compose with a preceding starter exist
// (a few Indic vowel signs); unicode_normalize checks the cluster-wise
// result against the whole text's and falls back when they differ.
bool cluster_start(utf8proc_int32_t c) {
  if (c >= 0x1160 && c <= 0x11FF) return false;  // Hangul jungseong / jongseong
  return utf8proc_get_property(c)->combining_class == 0;
}

// Alignment of `norm` with `text` as one rewritten middle between their
// common prefix and suffix: coarse, for the rare text whose normalization
// does not split into clusters.
void coarse_alignment(std::string_view text, std::string_view norm, std::string& out,
                      std::vector<std::size_t>* to_input) {
  std::size_t p = 0;
  while (p < text.size() && p < norm.size() && text[p] == norm[p]) ++p;
  std::size_t s = 0;
  while (s < text.size() - p && s < norm.size() - p &&
         text[text.size() - 1 - s] == norm[norm.size() - 1 - s]) {
    ++s;
  }
  AlignedWriter w(out, to_input);
  w.copy(text.substr(0, p), 0);
  w.rewrite(p, text.size() - s, norm.substr(p, norm.size() - p - s));
  w.copy(text.substr(text.size() - s), text.size() - s);
  w.finish(text.size());
}

}  // namespace

std::string unicode_normalize(std::string_view text, std::string_view form,
                              std::vector<std::size_t>* to_input) {
  int opts = UTF8PROC_STABLE;
  if (form == "NFC") opts |= UTF8PROC_COMPOSE;
  if (form == "NFD") opts |= UTF8PROC_DECOMPOSE;
  if (form == "NFKC") opts |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  if (form == "NFKD") opts |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  std::string whole = normalize_whole(text, opts);
  if (!to_input) return whole;
  if (whole == text) {
    identity_alignment(text.size(), *to_input);
    return whole;
  }
  // Normalized cluster by cluster, each cluster one unit of the alignment.
  std::string out;
  AlignedWriter w(out, to_input);
  std::size_t begin = 0;
  auto flush = [&](std::size_t end) {
    if (end <= begin) return;
    std::string_view cluster = text.substr(begin, end - begin);
    std::string n = normalize_whole(cluster, opts);
    if (n == cluster) {
      w.copy(cluster, begin);
    } else {
      w.rewrite(begin, end, n);
    }
    begin = end;
  };
  for (std::size_t i = 0; i < text.size();) {
    utf8proc_int32_t c;
    std::size_t len = next_code_point(text, i, c);
    if (len == 0) {
      len = 1;  // unreachable: invalid text normalizes to itself
    } else if (cluster_start(c)) {
      flush(i);
    }
    i += len;
  }
  flush(text.size());
  w.finish(text.size());
  if (out != whole) coarse_alignment(text, whole, out, to_input);
  return whole;
}

std::string unicode_lowercase(std::string_view text, std::vector<std::size_t>* to_input) {
  std::string out;
  out.reserve(text.size());
  AlignedWriter w(out, to_input);
  for (std::size_t i = 0; i < text.size();) {
    utf8proc_int32_t c;
    std::size_t len = next_code_point(text, i, c);
    if (len == 0) {
      w.copy(text.substr(i, 1), i);
      ++i;
      continue;
    }
    utf8proc_uint8_t buf[4];
    utf8proc_ssize_t n = utf8proc_encode_char(utf8proc_tolower(c), buf);
    std::string_view lower(reinterpret_cast<char*>(buf), static_cast<std::size_t>(n));
    if (lower == text.substr(i, len)) {
      w.copy(lower, i);
    } else {
      w.rewrite(i, i + len, lower);
    }
    i += len;
  }
  w.finish(text.size());
  return out;
}

std::string replace_all(std::string_view text, std::string_view from, std::string_view to,
                        std::vector<std::size_t>* to_input) {
  std::string out;
  out.reserve(text.size());
  AlignedWriter w(out, to_input);
  std::size_t pos = 0;
  if (!from.empty()) {
    for (;;) {
      std::size_t at = text.find(from, pos);
      if (at == std::string_view::npos) break;
      w.copy(text.substr(pos, at - pos), pos);
      w.rewrite(at, at + from.size(), to);
      pos = at + from.size();
    }
  }
  w.copy(text.substr(pos), pos);
  w.finish(text.size());
  return out;
}

std::string prepend(std::string_view text, std::string_view prefix,
                    std::vector<std::size_t>* to_input) {
  std::string out;
  out.reserve(prefix.size() + text.size());
  AlignedWriter w(out, to_input);
  w.rewrite(0, 0, prefix);
  w.copy(text, 0);
  w.finish(text.size());
  return out;
}

std::string strip(std::string_view text, bool left, bool right,
                  std::vector<std::size_t>* to_input) {
  auto ws = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  std::size_t b = 0, e = text.size();
  while (left && b < e && ws(text[b])) ++b;
  while (right && e > b && ws(text[e - 1])) --e;
  std::string out;
  AlignedWriter w(out, to_input);
  w.copy(text.substr(b, e - b), b);
  w.finish(text.size());
  return out;
}

}  // namespace tok::text
