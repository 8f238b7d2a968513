#include "cli/usage_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <optional>
#include <vector>

#include "core/suggest.hpp"

namespace tok::cli {
namespace {

const CLI::App* deepest(const CLI::App& app) {
  const CLI::App* cur = &app;
  for (;;) {
    auto subs = cur->get_subcommands();
    if (subs.empty()) return cur;
    cur = subs.front();
  }
}

// Every spelling of every option of `cmd`: "--temperature", "-n", ...
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

bool known_option(const CLI::App& cmd, const std::string& flag) {
  for (const auto& n : option_names(cmd)) {
    if (n == flag) return true;
  }
  return false;
}

// The first argument CLI11 left over that looks like a flag the command
// lacks ("--temp=0.5" is the flag "--temp"), if any.
std::optional<std::string> unknown_flag(const CLI::App& cmd, const std::vector<std::string>& left) {
  for (const auto& arg : left) {
    if (arg.size() < 2 || arg[0] != '-' || arg == "--") continue;
    std::string flag = arg.substr(0, arg.find('='));
    // "-n5" and "-abc": CLI11 splits short flags; only the first letter names one.
    if (flag[1] != '-' && flag.size() > 2) flag = flag.substr(0, 2);
    if (flag.size() > 1 && std::isdigit(static_cast<unsigned char>(flag[1])))
      continue;  // -1, a value
    if (!known_option(cmd, flag)) return flag;
  }
  return std::nullopt;
}

}  // namespace

std::string command_path(const CLI::App& app) {
  std::vector<std::string> names{"tok"};
  const CLI::App* cur = &app;
  for (auto subs = cur->get_subcommands(); !subs.empty(); subs = cur->get_subcommands()) {
    cur = subs.front();
    names.push_back(cur->get_name());
  }
  return fmt::format("{}", fmt::join(names, " "));
}

std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App& cmd = *deepest(app);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && &cmd != &app) {
    std::vector<std::string> left = app.remaining(true);
    if (auto flag = unknown_flag(cmd, left)) {
      std::string hint;
      auto near = suggest(*flag, option_names(cmd));
      if (!near.empty()) hint = fmt::format(" (did you mean {}?)", fmt::join(near, ", "));
      return fmt::format("unknown option {} for {}{}", *flag, command_path(app), hint);
    }
    if (!left.empty()) {
      return fmt::format("unexpected argument{} for {}: {}", left.size() == 1 ? "" : "s",
                         command_path(app), fmt::join(left, " "));
    }
  }
  std::string m = e.what();
  for (char& c : m) {
    if (c == '\n') c = ' ';
  }
  while (!m.empty() && m.back() == ' ') m.pop_back();
  return m;
}

}  // namespace tok::cli
