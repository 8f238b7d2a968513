// .gitignore rules of one directory (gitignore(5)): blank lines and '#'
// comments are skipped, '!' re-includes, a trailing '/' matches directories
// only, a pattern with a '/' before its end is anchored to the directory of
// the .gitignore, others match a name at any depth. The last matching rule
// wins; rules of deeper directories are consulted first (IgnoreStack).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tok::io {

enum class IgnoreVerdict { kNone, kIgnore, kInclude };

class IgnoreRules {
 public:
  // base: directory of the .gitignore relative to the walk root ("" = root).
  static IgnoreRules parse(std::string_view text, std::string base);
  // rel_path: relative to the walk root, '/'-separated.
  IgnoreVerdict match(std::string_view rel_path, bool is_dir) const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    std::string glob;  // relative to base_, "**/" prefixed when unanchored
    bool negate = false;
    bool dir_only = false;
  };
  std::string base_;
  std::vector<Rule> rules_;
};

// The rules in force in a directory: its own and its ancestors'.
class IgnoreStack {
 public:
  void push(IgnoreRules r) { levels_.push_back(std::move(r)); }
  void pop() { levels_.pop_back(); }
  bool ignored(std::string_view rel_path, bool is_dir) const;

 private:
  std::vector<IgnoreRules> levels_;
};

}  // namespace tok::io
