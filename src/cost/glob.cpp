#include "cost/glob.hpp"

namespace tok::cost {

namespace {

// Matches a class starting at p[i] == '['; sets i past ']' and returns
// whether c is in it. An unterminated class matches a literal '['.
bool match_class(std::string_view p, std::size_t& i, char c, bool& valid) {
  std::size_t j = i + 1;
  bool negate = j < p.size() && (p[j] == '!' || p[j] == '^');
  if (negate) ++j;
  bool found = false;
  bool first = true;
  while (j < p.size() && (p[j] != ']' || first)) {
    first = false;
    char lo = p[j];
    if (lo == '\\' && j + 1 < p.size()) lo = p[++j];
    char hi = lo;
    if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      hi = p[j + 2];
      if (hi == '\\' && j + 3 < p.size()) hi = p[j + 3], ++j;
      j += 2;
    }
    if (c >= lo && c <= hi) found = true;
    ++j;
  }
  valid = j < p.size();
  if (!valid) return c == '[';
  i = j + 1;
  return found != negate;
}

bool match_at(std::string_view p, std::size_t pi, std::string_view s, std::size_t si) {
  while (pi < p.size()) {
    char c = p[pi];
    if (c == '*') {
      bool dbl = pi + 1 < p.size() && p[pi + 1] == '*';
      bool at_start = pi == 0 || p[pi - 1] == '/';
      if (dbl && at_start && (pi + 2 == p.size() || p[pi + 2] == '/')) {
        // "**/" matches zero or more whole directories; a final "**" everything.
        if (pi + 2 == p.size()) return true;
        std::size_t rest = pi + 3;
        for (std::size_t k = si;; ++k) {
          if ((k == si || s[k - 1] == '/') && match_at(p, rest, s, k)) return true;
          if (k >= s.size()) return false;
        }
      }
      while (pi < p.size() && p[pi] == '*') ++pi;
      for (std::size_t k = si;; ++k) {
        if (match_at(p, pi, s, k)) return true;
        if (k >= s.size() || s[k] == '/') return false;
      }
    }
    if (si >= s.size()) return false;
    if (c == '?') {
      if (s[si] == '/') return false;
      ++pi, ++si;
    } else if (c == '[') {
      bool valid = true;
      std::size_t i = pi;
      if (s[si] == '/' || !match_class(p, i, s[si], valid)) return false;
      pi = valid ? i : pi + 1;
      ++si;
    } else {
      if (c == '\\' && pi + 1 < p.size()) c = p[++pi];
      if (s[si] != c) return false;
      ++pi, ++si;
    }
  }
  return si == s.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  return match_at(pattern, 0, path, 0);
}

}  // namespace tok::cost
