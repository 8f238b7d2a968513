// bash, zsh and fish completion scripts, walked from the CLI11 App tree: the
// command path is tracked word by word, each command offers its own options,
// an option's value completes to its IsMember choices, vocabulary names (-e),
// catalog models (a catalog -m) or files, and positional arguments to files.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/generated_docs.hpp"

namespace tok::cli {
namespace {

// kNumber completes to nothing (not to file names).
enum class ValueKind { kNone, kFile, kNumber, kChoice, kVocabulary, kCatalogModel };

struct OptSpec {
  std::vector<std::string> shorts;  // "e"
  std::vector<std::string> longs;   // "encoding"
  std::string summary;
  ValueKind kind = ValueKind::kNone;
  std::vector<std::string> choices;
  bool repeatable = false;
};

struct CmdSpec {
  std::string path;    // "" for tok itself, "encode", "vocab info"
  std::string parent;  // path of the parent command
  std::string name;    // "info"
  std::string summary;
  std::vector<OptSpec> opts;
  std::vector<std::string> subs;  // paths of the subcommands
  bool positional = false;
};

// The first sentence of a description (up to ". " or "; " outside
// parentheses), short enough for a completion menu.
std::string summary_of(const std::string& d) {
  std::string s = d.substr(0, d.find('\n'));
  int depth = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && depth > 0) --depth;
    if (depth == 0 && (s[i] == '.' || s[i] == ';') && s[i + 1] == ' ') {
      s.resize(i);
      break;
    }
  }
  if (s.size() > 90) s = s.substr(0, 87) + "...";
  return s;
}

// What an option's value completes to. -e/--encoding always names a
// vocabulary; -m/--model is a catalog model where its description says so
// (count, show, compare, truncate, chunk) and a GGUF file elsewhere (generate,
// score, quantize).
ValueKind kind_of(const CLI::Option& o) {
  if (!takes_value(o)) return ValueKind::kNone;
  if (!option_choices(o).empty()) return ValueKind::kChoice;
  for (const auto& l : o.get_lnames()) {
    if (l == "encoding") return ValueKind::kVocabulary;
    const auto& d = o.get_description();
    if (l == "model" &&
        (d.find("catalog") != std::string::npos || d.find("models.json") != std::string::npos)) {
      return ValueKind::kCatalogModel;
    }
  }
  std::string type = o.get_type_name();
  type = type.substr(0, type.find(':'));
  for (const char* n : {"INT", "UINT", "FLOAT", "NUMBER", "NONNEGATIVE", "POSITIVE"}) {
    if (type == n) return ValueKind::kNumber;
  }
  return ValueKind::kFile;
}

void collect(const CLI::App& app, const std::string& parent, std::vector<CmdSpec>& out) {
  CmdSpec c;
  c.parent = parent;
  c.name = app.get_parent() == nullptr ? "" : app.get_name();
  c.path = parent.empty() ? c.name : parent + " " + c.name;
  c.summary = summary_of(app.get_description());
  for (const CLI::Option* o : visible_options(app)) {
    if (!o->nonpositional()) {
      c.positional = true;
      continue;
    }
    OptSpec s;
    s.shorts = o->get_snames();
    s.longs = o->get_lnames();
    s.summary = summary_of(o->get_description());
    s.kind = kind_of(*o);
    s.choices = option_choices(*o);
    s.repeatable = o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll &&
                   s.kind != ValueKind::kNone;
    c.opts.push_back(std::move(s));
  }
  std::size_t self = out.size();
  out.push_back(std::move(c));
  std::string path = out[self].path;
  for (const CLI::App* sub : visible_subcommands(app)) {
    out[self].subs.push_back(path.empty() ? sub->get_name() : path + " " + sub->get_name());
    collect(*sub, path, out);
  }
}

std::string join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string flags_of(const OptSpec& o) {
  std::vector<std::string> f;
  for (const auto& s : o.shorts) f.push_back("-" + s);
  for (const auto& l : o.longs) f.push_back("--" + l);
  return join(f);
}

std::string last_word(const std::string& path) { return path.substr(path.rfind(' ') + 1); }

// ---- bash -------------------------------------------------------------------

// The reply to an option's value, one case per option of each command.
std::string bash_value_cases(const std::vector<CmdSpec>& cmds) {
  std::string out;
  for (const auto& c : cmds) {
    for (const auto& o : c.opts) {
      std::string reply;
      switch (o.kind) {
        case ValueKind::kNone: continue;
        // An empty reply makes bash fall back to file names (-o default).
        case ValueKind::kFile: reply = "COMPREPLY=()"; break;
        case ValueKind::kNumber: reply = "compopt +o default 2>/dev/null; COMPREPLY=()"; break;
        case ValueKind::kChoice:
          reply = "COMPREPLY=($(compgen -W '" + join(o.choices) + "' -- \"$cur\"))";
          break;
        case ValueKind::kVocabulary:
          reply = "COMPREPLY=($(compgen -W \"$_tok_vocabularies\" -- \"$cur\"))";
          break;
        case ValueKind::kCatalogModel:
          reply = "COMPREPLY=($(compgen -W \"$_tok_catalog_models\" -- \"$cur\"))";
          break;
      }
      std::vector<std::string> pats;
      for (const auto& s : o.shorts) pats.push_back("'" + c.path + "/-" + s + "'");
      for (const auto& l : o.longs) pats.push_back("'" + c.path + "/--" + l + "'");
      out += "    " + join(pats, "|") + ")\n      " + reply + "\n      return ;;\n";
    }
  }
  return out;
}

std::string bash_script(const std::vector<CmdSpec>& cmds, const CompletionWords& w) {
  std::string out =
      "# bash completion for tok. Generated by `tok --generate-completion bash` from tok's\n"
      "# option definitions; do not edit.\n";
  out += "_tok_vocabularies='" + join(w.vocabularies) + "'\n";
  out += "_tok_catalog_models='" + join(w.catalog_models) + "'\n";
  out +=
      "_tok() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd='' i w\n"
      "  # --opt=value: bash splits at '=' (COMP_WORDBREAKS).\n"
      "  if [ \"$cur\" = '=' ]; then\n"
      "    cur=''\n"
      "  elif [ \"$prev\" = '=' ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
      "    prev=${COMP_WORDS[COMP_CWORD-2]}\n"
      "  fi\n"
      "  # The command path so far: '', 'encode', 'vocab info'.\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=${COMP_WORDS[i]}\n"
      "    case \"$cmd/$w\" in\n";
  std::vector<std::string> patterns;
  for (const auto& c : cmds) {
    if (!c.path.empty()) patterns.push_back("'" + c.parent + "/" + c.name + "'");
  }
  out += "      " + join(patterns, "|") + ") cmd=${cmd:+$cmd }$w ;;\n";
  out += "    esac\n  done\n  case \"$cmd/$prev\" in\n" + bash_value_cases(cmds);
  out += "  esac\n  local opts='' subs='' files=0\n  case \"$cmd\" in\n";
  for (const auto& c : cmds) {
    std::vector<std::string> opts;
    for (const auto& o : c.opts) opts.push_back(flags_of(o));
    std::vector<std::string> subs;
    for (const auto& s : c.subs) subs.push_back(last_word(s));
    out += "    '" + c.path + "') opts='" + join(opts) + "' subs='" + join(subs) +
           "' files=" + (c.positional ? "1" : "0") + " ;;\n";
  }
  out +=
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "  elif [ -n \"$subs\" ]; then\n"
      "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=()\n"
      "  fi\n"
      "  # A command that takes no file argument: no file names either.\n"
      "  [[ $cur == -* ]] || [ \"$files\" = 1 ] || compopt +o default 2>/dev/null\n"
      "}\n"
      "complete -o bashdefault -o default -F _tok tok\n";
  return out;
}

// ---- zsh --------------------------------------------------------------------

std::string zsh_quote(const std::string& s) {  // inside '...'
  std::string out;
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out;
}

std::string zsh_desc(const std::string& s) {  // inside [...] of an _arguments spec
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']' || c == '\\' || c == ':') out += '\\';
    out += c;
  }
  return zsh_quote(out);
}

std::string zsh_fn(const std::string& path) {
  if (path.empty()) return "_tok";
  std::string f = "_tok_";
  for (char c : path) f += (c == ' ' || c == '-') ? '_' : c;
  return f;
}

std::string zsh_option(const OptSpec& o) {
  std::vector<std::string> names;
  for (const auto& s : o.shorts) names.push_back("-" + s);
  for (const auto& l : o.longs) names.push_back("--" + l);
  std::string prefix;
  if (o.repeatable) {
    prefix = "'*'";
  } else if (names.size() > 1) {
    prefix = "'(" + join(names) + ")'";
  }
  std::string spec = prefix + (names.size() > 1 ? "{" + join(names, ",") + "}" : names[0]);
  std::string action;
  switch (o.kind) {
    case ValueKind::kNone: break;
    case ValueKind::kChoice: action = ":value:(" + join(o.choices) + ")"; break;
    case ValueKind::kVocabulary: action = ":vocabulary:_tok_vocabularies"; break;
    case ValueKind::kCatalogModel: action = ":model:_tok_catalog_models"; break;
    case ValueKind::kFile: action = ":file:_files"; break;
    case ValueKind::kNumber: action = ":number: "; break;
  }
  return spec + "'[" + zsh_desc(o.summary) + "]" + action + "'";
}

const CmdSpec* find_command(const std::vector<CmdSpec>& cmds, const std::string& path) {
  for (const auto& c : cmds) {
    if (c.path == path) return &c;
  }
  return nullptr;
}

// _tok_vocab_commands: the subcommands of one command, with descriptions.
std::string zsh_command_list(const std::vector<CmdSpec>& cmds, const CmdSpec& c) {
  std::string out = "\n" + zsh_fn(c.path) + "_commands() {\n  local -a commands\n  commands=(\n";
  for (const auto& s : c.subs) {
    const CmdSpec* sub = find_command(cmds, s);
    std::string desc;
    for (char ch : sub ? sub->summary : "")
      desc += ch == ':' ? std::string("\\:") : std::string(1, ch);
    out += "    '" + last_word(s) + ":" + zsh_quote(desc) + "'\n";
  }
  return out + "  )\n  _describe -t commands 'tok command' commands\n}\n";
}

// _tok_encode: _arguments over one command's options; a command with
// subcommands dispatches the rest of the line to the chosen one.
std::string zsh_command_fn(const CmdSpec& c) {
  std::string fn = zsh_fn(c.path);
  std::vector<std::string> specs;
  for (const auto& o : c.opts) specs.push_back(zsh_option(o));
  if (!c.subs.empty()) {
    specs.push_back("'1: :" + fn + "_commands'");
    specs.push_back("'*:: :->args'");
  } else if (c.positional) {
    specs.push_back("'*:file:_files'");
  }
  std::string out = "\n" + fn + "() {\n";
  if (!c.subs.empty()) out += "  local curcontext=$curcontext state line ret=1\n";
  out += "  _arguments -s -S" + std::string(c.subs.empty() ? "" : " -C");
  for (const auto& s : specs) out += " \\\n    " + s;
  if (c.subs.empty()) return out + "\n}\n";
  out +=
      " && ret=0\n  case $state in\n    args)\n"
      "      curcontext=\"${curcontext%:*:*}:tok-$words[1]:\"\n"
      "      case $words[1] in\n";
  for (const auto& s : c.subs) {
    out += "        " + last_word(s) + ") " + zsh_fn(s) + " && ret=0 ;;\n";
  }
  return out + "      esac ;;\n  esac\n  return ret\n}\n";
}

std::string zsh_script(const std::vector<CmdSpec>& cmds, const CompletionWords& w) {
  std::string out =
      "#compdef tok\n"
      "# zsh completion for tok. Generated by `tok --generate-completion zsh` from tok's\n"
      "# option definitions; do not edit.\n";
  out += "\n_tok_vocabularies() {\n";
  out +=
      "  _alternative 'names:vocabulary:(" + join(w.vocabularies) + ")' 'files:file:_files'\n}\n";
  out += "\n_tok_catalog_models() {\n  local -a models expl\n";
  out += "  models=(" + join(w.catalog_models) + ")\n";
  out += "  _wanted models expl 'catalog model' compadd -a models\n}\n";
  for (const auto& c : cmds) {
    if (!c.subs.empty()) out += zsh_command_list(cmds, c);
    out += zsh_command_fn(c);
  }
  out +=
      "\nif [ \"$funcstack[1]\" = \"_tok\" ]; then\n"
      "  _tok \"$@\"\n"
      "else\n"
      "  compdef _tok tok\n"
      "fi\n";
  return out;
}

// ---- fish -------------------------------------------------------------------

std::string fish_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string fish_script(const std::vector<CmdSpec>& cmds, const CompletionWords& w) {
  std::string out =
      "# fish completion for tok. Generated by `tok --generate-completion fish` from tok's\n"
      "# option definitions; do not edit.\n\n"
      "# The command path so far (\"\", \"encode\", \"vocab info\").\n"
      "function __tok_command\n"
      "    set -l tokens (commandline -opc)\n"
      "    set -e tokens[1]\n"
      "    set -l cmd ''\n"
      "    for w in $tokens\n"
      "        switch \"$cmd/$w\"\n"
      "            case";
  for (const auto& c : cmds) {
    if (!c.path.empty()) out += " " + fish_quote(c.parent + "/" + c.name);
  }
  out +=
      "\n                set cmd (string trim -- \"$cmd $w\")\n"
      "        end\n"
      "    end\n"
      "    echo $cmd\n"
      "end\n\n"
      "function __tok_at\n"
      "    set -l cmd (__tok_command)\n"
      "    test \"$cmd\" = \"$argv[1]\"\n"
      "end\n\n";
  for (const auto& c : cmds) {
    std::string cond = "-n " + fish_quote("__tok_at " + fish_quote(c.path));
    // fish offers files for arguments unless told not to; option values
    // marked -r still complete to files.
    if (!c.positional) out += "complete -c tok " + cond + " -f\n";
    for (const auto& s : c.subs) {
      const CmdSpec* sub = find_command(cmds, s);
      out += "complete -c tok " + cond + " -f -a " + fish_quote(last_word(s)) + " -d " +
             fish_quote(sub ? sub->summary : "") + "\n";
    }
    for (const auto& o : c.opts) {
      std::string line = "complete -c tok " + cond;
      for (const auto& s : o.shorts) line += " -s " + s;
      for (const auto& l : o.longs) line += " -l " + l;
      switch (o.kind) {
        case ValueKind::kNone: break;
        case ValueKind::kChoice: line += " -x -a " + fish_quote(join(o.choices)); break;
        case ValueKind::kVocabulary: line += " -r -a " + fish_quote(join(w.vocabularies)); break;
        case ValueKind::kCatalogModel:
          line += " -x -a " + fish_quote(join(w.catalog_models));
          break;
        case ValueKind::kFile: line += " -r"; break;
        case ValueKind::kNumber: line += " -x"; break;
      }
      out += line + " -d " + fish_quote(o.summary) + "\n";
    }
  }
  return out;
}

}  // namespace

Result<std::string> completion_script(const CLI::App& app, const std::string& shell,
                                      const CompletionWords& words) {
  std::vector<CmdSpec> cmds;
  collect(app, "", cmds);
  if (shell == "bash") return bash_script(cmds, words);
  if (shell == "zsh") return zsh_script(cmds, words);
  if (shell == "fish") return fish_script(cmds, words);
  return make_error("unknown shell '{}' for --generate-completion; shells: bash, zsh, fish", shell);
}

}  // namespace tok::cli
