#include "text/normalize.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "core/utf8.hpp"
#include "text/alignment.hpp"
#include "text/normalization_chars.hpp"

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
  utf8::Decoded d = utf8::decode_at(text, i);
  c = d.valid ? static_cast<utf8proc_int32_t>(d.cp) : -1;
  return d.valid ? d.len : 0;
}

// Where a normalization cluster may start: a starter (combining class 0)
// that does not compose with what precedes it as a Hangul vowel or trailing
// consonant would. Starters that compose with a preceding starter exist
// (a few Indic vowel signs); normalize_known checks the cluster-wise result
// against the whole run's and falls back when they differ.
bool cluster_start(utf8proc_int32_t c) {
  if (c >= 0x1160 && c <= 0x11FF) return false;  // Hangul jungseong / jongseong
  return utf8proc_get_property(c)->combining_class == 0;
}

// Writes `norm`, the normalization of `run` (input bytes from `base`), as one
// rewritten middle between their common prefix and suffix: coarse, for the
// rare run whose normalization does not split into clusters.
void coarse_alignment(std::string_view run, std::size_t base, std::string_view norm,
                      AlignedWriter& w) {
  std::size_t p = 0;
  while (p < run.size() && p < norm.size() && run[p] == norm[p]) ++p;
  std::size_t s = 0;
  while (s < run.size() - p && s < norm.size() - p &&
         run[run.size() - 1 - s] == norm[norm.size() - 1 - s]) {
    ++s;
  }
  w.copy(run.substr(0, p), base);
  w.rewrite(base + p, base + run.size() - s, norm.substr(p, norm.size() - p - s));
  w.copy(run.substr(run.size() - s), base + run.size() - s);
}

// Normalizes `run`, valid UTF-8 of code points that HF's tables know, which
// starts at input byte `base`. With an alignment, each cluster (a starter and
// the marks after it) is one unit of it.
void normalize_known(std::string_view run, std::size_t base, int opts, bool aligned,
                     AlignedWriter& w) {
  std::string whole = normalize_whole(run, opts);
  if (whole == run) {
    w.copy(run, base);
    return;
  }
  if (!aligned) {
    w.rewrite(base, base + run.size(), whole);
    return;
  }
  struct Cluster {
    std::size_t begin, end;
    std::string norm;
  };
  std::vector<Cluster> clusters;
  std::string joined;
  std::size_t begin = 0;
  auto flush = [&](std::size_t end) {
    if (end <= begin) return;
    clusters.push_back({begin, end, normalize_whole(run.substr(begin, end - begin), opts)});
    joined += clusters.back().norm;
    begin = end;
  };
  for (std::size_t i = 0; i < run.size();) {
    // The run is valid UTF-8 (tok's rule); a byte that was not would still
    // only end a cluster, never stall the loop.
    utf8proc_int32_t c = 0;
    std::size_t len = std::max<std::size_t>(next_code_point(run, i, c), 1);
    if (cluster_start(c)) flush(i);
    i += len;
  }
  flush(run.size());
  if (joined != whole) {
    coarse_alignment(run, base, whole, w);
    return;
  }
  for (const Cluster& k : clusters) {
    std::string_view in = run.substr(k.begin, k.end - k.begin);
    if (k.norm == in) {
      w.copy(in, base + k.begin);
    } else {
      w.rewrite(base + k.begin, base + k.end, k.norm);
    }
  }
}

}  // namespace

bool in_normalization_tables(char32_t c) {
  if (c < 0x378) return true;  // Latin, IPA, combining marks, Greek: all assigned by 1.1
  const NormalizationRange* b = kNormalizationChars;
  const NormalizationRange* e = kNormalizationChars + kNormalizationCharRanges;
  const NormalizationRange* r = std::upper_bound(
      b, e, c, [](char32_t x, const NormalizationRange& k) { return x < k.first; });
  return r != b && c <= (r - 1)->last;
}

// The text is cut into runs of code points that HF's tables know, each
// normalized on its own, and the bytes between them (code points assigned
// after Unicode 9.0, invalid UTF-8), which are kept. Such a code point is a
// starter that composes with nothing in HF's data, so no reordering or
// composition crosses it there either: the runs give exactly HF's result.
std::string unicode_normalize(std::string_view text, std::string_view form,
                              std::vector<std::size_t>* to_input) {
  int opts = UTF8PROC_STABLE;
  if (form == "NFC") opts |= UTF8PROC_COMPOSE;
  if (form == "NFD") opts |= UTF8PROC_DECOMPOSE;
  if (form == "NFKC") opts |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  if (form == "NFKD") opts |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  std::string out;
  out.reserve(text.size());
  AlignedWriter w(out, to_input);
  std::size_t run = 0;  // start of the current run of known code points
  for (std::size_t i = 0; i < text.size();) {
    // tok's UTF-8 rule (core/utf8.hpp), so that what is invalid here is what
    // the pre-tokenizer and the merge loop take as invalid.
    const auto* p = reinterpret_cast<const unsigned char*>(text.data()) + i;
    if (*p < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = utf8::valid_char_length(text.substr(i));
    if (len > 0 && in_normalization_tables(utf8::decode(p, len))) {
      i += len;
      continue;
    }
    if (i > run) normalize_known(text.substr(run, i - run), run, opts, to_input != nullptr, w);
    len = std::max<std::size_t>(len, 1);
    w.copy(text.substr(i, len), i);
    i += len;
    run = i;
  }
  if (text.size() > run) normalize_known(text.substr(run), run, opts, to_input != nullptr, w);
  w.finish(text.size());
  return out;
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
    char buf[4];
    std::string_view lower(buf, utf8::encode(static_cast<char32_t>(utf8proc_tolower(c)), buf));
    // HF lowercases with Rust's char::to_lowercase, the full mapping: U+0130
    // is the one code point whose unconditional full lowercase
    // (SpecialCasing.txt) is not the simple one utf8proc gives ("i").
    if (c == 0x130) lower = "i\u0307";
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
