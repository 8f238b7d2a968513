// tok(1) in roff (man(7) macros), walked from the CLI11 App tree: a NAME,
// SYNOPSIS and DESCRIPTION, the global options, then one subsection per
// command and nested command with its arguments and options. Text is escaped
// so no description can start a roff request or need a font groff lacks.
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cli/generated_docs.hpp"
#include "core/utf8.hpp"
#include "tok/build_info.hpp"

namespace tok::cli {
namespace {

// Escapes text for roff: backslashes, minus signs (so `--json` is not typeset
// with hyphens and stays copyable), a leading period or quote, and non-ASCII
// as \[uXXXX] (groff without preconv reads Latin-1).
std::string roff(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c == '\n') {
      out += '\n';
      if (i + 1 < s.size() && (s[i + 1] == '.' || s[i + 1] == '\'')) out += "\\&";
    } else if (c >= 0x80) {
      // A byte that does not start a valid character becomes U+FFFD.
      utf8::Decoded d = utf8::decode_at(s, i);
      i += d.len - 1;
      char32_t cp = d.valid ? d.cp : utf8::kReplacement;
      out += fmt::format("\\[u{:04X}]", static_cast<std::uint32_t>(cp));
    } else {
      out += static_cast<char>(c);
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string bold(const std::string& s) { return "\\fB" + roff(s) + "\\fR"; }
std::string italic(const std::string& s) { return "\\fI" + roff(s) + "\\fR"; }

// "\fB-e\fR, \fB--encoding\fR \fITEXT\fR" for an option's .TP line.
std::string option_heading(const CLI::Option& o) {
  if (!o.nonpositional()) return italic(o.get_name(true, false));
  std::string out;
  for (const auto& s : o.get_snames()) out += (out.empty() ? "" : ", ") + bold("-" + s);
  for (const auto& l : o.get_lnames()) out += (out.empty() ? "" : ", ") + bold("--" + l);
  if (takes_value(o)) {
    std::string type = o.get_type_name();
    type = type.substr(0, type.find(':'));
    out += " " + italic(type.empty() ? "VALUE" : type);
  }
  return out;
}

// The body of an option's entry: its description, then what it accepts, its
// default and whether it is required, as --help shows them.
std::string option_body(const CLI::Option& o) {
  std::string out = roff(o.get_description());
  std::string checks = o.get_type_name();
  auto colon = checks.find(':');
  auto choices = option_choices(o);
  if (!choices.empty()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + bold(c);
    out += "\n.br\nOne of: " + list + ".";
  } else if (colon != std::string::npos) {
    std::string accepts = checks.substr(colon + 1);
    out += "\n.br\nAccepts: " + roff(accepts) + (accepts.back() == '.' ? "" : ".");
  }
  if (!o.get_default_str().empty()) out += "\n.br\nDefault: " + bold(o.get_default_str()) + ".";
  if (o.get_required()) out += "\n.br\nRequired.";
  return out;
}

// "tok vocab info" for a nested command.
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* p = app.get_parent(); p != nullptr; p = p->get_parent()) {
    path = p->get_name() + " " + path;
  }
  return path;
}

std::string synopsis(const CLI::App& app) {
  std::string out = bold(command_path(app));
  auto subs = visible_subcommands(app);
  if (!subs.empty()) out += " " + italic("COMMAND");
  out += " [" + italic("OPTIONS") + "]";
  for (const CLI::Option* o : visible_options(app)) {
    if (o->nonpositional()) continue;
    std::string name = italic(o->get_name(true, false));
    if (o->get_expected_max() > 1) name += " ...";
    out += " " + (o->get_required() ? name : "[" + name + "]");
  }
  return out;
}

// Arguments and options of one command; tok's own options (skip_help false)
// need no "Options:" label under their OPTIONS heading.
void add_options(std::string& out, const CLI::App& app, bool skip_help) {
  std::string args;
  std::string opts;
  for (const CLI::Option* o : visible_options(app)) {
    if (skip_help && o == app.get_help_ptr()) continue;
    std::string entry = ".TP\n" + option_heading(*o) + "\n" + option_body(*o) + "\n";
    (o->nonpositional() ? opts : args) += entry;
  }
  if (!args.empty()) out += ".PP\n\\fIArguments:\\fR\n" + args;
  if (!opts.empty()) out += (skip_help ? ".PP\n\\fIOptions:\\fR\n" : "") + opts;
}

void add_command(std::string& out, const CLI::App& app) {
  out += ".SS \"" + roff(command_path(app)) + "\"\n";
  out += roff(app.get_description()) + "\n.PP\n" + synopsis(app) + "\n";
  if (!app.get_footer().empty()) out += ".PP\n" + roff(app.get_footer()) + "\n";
  add_options(out, app, true);
  for (const CLI::App* sub : visible_subcommands(app)) add_command(out, *sub);
}

}  // namespace

std::string man_page(const CLI::App& app) {
  std::string name = app.get_name();
  std::string out = fmt::format(
      ".\\\" Generated by `tok --generate-man` from tok's option definitions; do not edit.\n"
      ".TH {} 1 \"\" \"{} {}\" \"User Commands\"\n"
      // No hyphenation: an option name split across lines cannot be searched for.
      ".nh\n",
      "TOK", name, build_info::kVersion);
  std::string summary = app.get_description();
  if (summary.rfind(name + ": ", 0) == 0) summary = summary.substr(name.size() + 2);
  out += ".SH NAME\n" + name + " \\- " + roff(summary) + "\n";
  out += ".SH SYNOPSIS\n" + synopsis(app) + " [" + italic("ARGS") + "]\n";
  out += ".SH DESCRIPTION\n" + bold(name) + " " + italic("COMMAND") +
         " runs one of the commands below. Each has its own options, which " +
         bold("tok COMMAND --help") + " also prints; every command accepts " + bold("-h") + ", " +
         bold("--help") + ".\n";
  out += ".SH OPTIONS\n";
  add_options(out, app, false);
  out += ".SH COMMANDS\n";
  for (const CLI::App* sub : visible_subcommands(app)) add_command(out, *sub);
  out +=
      ".SH EXIT STATUS\n"
      ".TP\n0\nSuccess.\n"
      ".TP\n1\nAn error: a file that cannot be read or written, bad input, a resource limit. "
      "One line on standard error names the file and what is wrong.\n"
      ".TP\n2\nA usage error: an unknown command or option, a bad option value.\n"
      ".TP\n3\n" +
      bold("tok count --max-tokens") + " " + italic("N") + ": an input (or the total, with " +
      bold("--total") + ") has more than " + italic("N") +
      " tokens.\n"
      ".TP\n130\nInterrupted (SIGINT); temporary files are removed and earlier outputs are "
      "left intact.\n";
  out +=
      ".SH ENVIRONMENT\n"
      ".TP\n" +
      bold("TOK_VOCAB_DIR") +
      "\n"
      "Where tok finds its shipped vocabularies, model catalog and default model, instead of " +
      italic("../share/tok/vocab") +
      " relative to an installed binary (or the source "
      "tree's " +
      italic("vocab/") +
      " for a build in a checkout).\n"
      ".TP\n" +
      bold("XDG_CACHE_HOME") + ", " + bold("XDG_CONFIG_HOME") +
      "\n"
      "Where fetched vocabularies (" +
      italic("tok/vocab") +
      ") and the user's model catalog "
      "are kept (default " +
      italic("~/.cache") + " and " + italic("~/.config") + ").\n";
  out +=
      ".SH SEE ALSO\n"
      "The documentation pages in the " +
      italic("docs/") + " folder of tok's source tree.\n";
  return out;
}

}  // namespace tok::cli
