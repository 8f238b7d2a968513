#include "io/glob.hpp"

#include <string>
#include <vector>

namespace tok::io {

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

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

// Matches one non-'*' pattern element at p[pi] against c; advances pi.
bool match_one(std::string_view p, std::size_t& pi, char c) {
  char e = p[pi];
  if (e == '?') {
    ++pi;
    return true;
  }
  if (e == '[') {
    bool valid = true;
    std::size_t i = pi;
    bool hit = match_class(p, i, c, valid);
    pi = valid ? i : pi + 1;
    return hit;
  }
  if (e == '\\' && pi + 1 < p.size()) e = p[++pi];
  ++pi;
  return c == e;
}

// One path component (no '/') against one pattern component. The classic
// two-pointer match: on a mismatch, only the latest '*' takes one more
// character; earlier stars never need to, since every other element matches
// exactly one character. O(|p| * |s|) at worst, never exponential.
bool match_component(std::string_view p, std::string_view s) {
  std::size_t pi = 0, si = 0, star_p = kNone, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;
      star_p = pi;
      star_s = si;
      continue;
    }
    std::size_t next = pi;
    if (pi < p.size() && match_one(p, next, s[si])) {
      pi = next;
      ++si;
      continue;
    }
    if (star_p == kNone) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

enum class Kind { kGlob, kAny, kDirs };  // a component, exactly one, zero or more
struct Part {
  Kind kind;
  std::string_view glob;
};

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  for (;;) {
    std::size_t slash = s.find('/');
    out.push_back(s.substr(0, slash));
    if (slash == std::string_view::npos) return out;
    s.remove_prefix(slash + 1);
  }
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  // "\/" is a '/' like any other.
  std::string unescaped;
  if (pattern.find("\\/") != std::string_view::npos) {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] == '\\' && i + 1 < pattern.size() && pattern[i + 1] == '/') continue;
      unescaped += pattern[i];
    }
    pattern = unescaped;
  }
  // Components: "**" alone matches zero or more directories, except last,
  // where it matches everything below (one component or more).
  std::vector<std::string_view> pc = split(pattern);
  std::vector<Part> parts;
  for (std::size_t i = 0; i < pc.size(); ++i) {
    if (pc[i] != "**") {
      parts.push_back({Kind::kGlob, pc[i]});
    } else if (i + 1 < pc.size()) {
      parts.push_back({Kind::kDirs, {}});
    } else {
      parts.push_back({Kind::kAny, {}});
      parts.push_back({Kind::kDirs, {}});
    }
  }
  std::vector<std::string_view> sc = split(path);
  // The same two-pointer backtracking over components, "**" as the star.
  std::size_t pi = 0, si = 0, star_p = kNone, star_s = 0;
  while (si < sc.size()) {
    if (pi < parts.size() && parts[pi].kind == Kind::kDirs) {
      star_p = ++pi;
      star_s = si;
      continue;
    }
    if (pi < parts.size() &&
        (parts[pi].kind == Kind::kAny || match_component(parts[pi].glob, sc[si]))) {
      ++pi;
      ++si;
      continue;
    }
    if (star_p == kNone) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < parts.size() && parts[pi].kind == Kind::kDirs) ++pi;
  return pi == parts.size();
}

}  // namespace tok::io
