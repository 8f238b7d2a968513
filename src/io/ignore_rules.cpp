#include "io/ignore_rules.hpp"

#include "io/glob.hpp"

namespace tok::io {

IgnoreRules IgnoreRules::parse(std::string_view text, std::string base) {
  IgnoreRules r;
  r.base_ = std::move(base);
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Trailing spaces are ignored unless escaped with '\'.
    while (!line.empty() && line.back() == ' ' &&
           !(line.size() >= 2 && line[line.size() - 2] == '\\')) {
      line.pop_back();
    }
    if (line.empty() || line[0] == '#') continue;
    Rule rule;
    if (line[0] == '!') {
      rule.negate = true;
      line.erase(0, 1);
    } else if (line[0] == '\\' && line.size() > 1 && (line[1] == '#' || line[1] == '!')) {
      line.erase(0, 1);
    }
    if (!line.empty() && line.back() == '/') {
      rule.dir_only = true;
      line.pop_back();
    }
    if (line.empty()) continue;
    bool anchored = line.find('/') != std::string::npos;
    if (line[0] == '/') line.erase(0, 1);
    rule.glob = anchored ? line : "**/" + line;
    r.rules_.push_back(std::move(rule));
    if (nl == text.size()) break;
  }
  return r;
}

IgnoreVerdict IgnoreRules::match(std::string_view rel_path, bool is_dir) const {
  std::string_view p = rel_path;
  if (!base_.empty()) {
    if (p.size() <= base_.size() || p.substr(0, base_.size()) != base_ || p[base_.size()] != '/') {
      return IgnoreVerdict::kNone;
    }
    p.remove_prefix(base_.size() + 1);
  }
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (glob_match(it->glob, p))
      return it->negate ? IgnoreVerdict::kInclude : IgnoreVerdict::kIgnore;
  }
  return IgnoreVerdict::kNone;
}

bool IgnoreStack::ignored(std::string_view rel_path, bool is_dir) const {
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    IgnoreVerdict v = it->match(rel_path, is_dir);
    if (v != IgnoreVerdict::kNone) return v == IgnoreVerdict::kIgnore;
  }
  return false;
}

}  // namespace tok::io
