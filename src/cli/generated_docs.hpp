// The man page and the shell completions, generated from the same CLI11 App
// tree that `--help` prints, so none of them can drift from the options the
// binary really has. The build runs the hidden flags below on the freshly built
// binary (src/CMakeLists.txt) and installs what they print.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace tok::cli {

// Names a value of an option may complete to, beyond files: the built-in and
// named vocabularies for -e, the catalog models for a catalog -m.
struct CompletionWords {
  std::vector<std::string> vocabularies;
  std::vector<std::string> catalog_models;
};

// The parts of the App tree a user sees: subcommands and options that are not
// hidden (CLI11 hides those whose group is empty), in definition order.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);
std::vector<const CLI::Option*> visible_options(const CLI::App& app);
// Whether the option takes a value (a flag does not).
bool takes_value(const CLI::Option& o);
// The choices a CLI::IsMember check allows ("{error,allow,text}" in the
// option's type name); empty when the value is free.
std::vector<std::string> option_choices(const CLI::Option& o);

// roff source of tok(1): one section per (sub)command, its options with their
// descriptions, defaults, accepted values and required-ness.
std::string man_page(const CLI::App& app);

// A completion script for `shell` ("bash", "zsh" or "fish").
Result<std::string> completion_script(const CLI::App& app, const std::string& shell,
                                      const CompletionWords& words);

// `tok --generate-man` and `tok --generate-completion SHELL`, hidden from
// --help: prints the document and returns the exit status; nullopt when argv
// asks for neither. Throws UsageError for a missing or unknown shell.
std::optional<int> run_doc_generator(int argc, char** argv, const CLI::App& app);

}  // namespace tok::cli
