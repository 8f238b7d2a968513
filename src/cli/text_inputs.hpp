// The one input rule of the tokenizing commands (encode, count, truncate,
// chunk, show): positional arguments are files ("-" is stdin; directories
// where the command walks trees), -t/--text TEXT (repeatable) is literal
// text. A missing file's error says how to pass text instead.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/mapped_file.hpp"
#include "core/result.hpp"

namespace tok::cli {

struct TextInputs {
  std::vector<std::string> files;  // as given; "-" is stdin
  std::vector<std::string> texts;  // -t/--text, in order

  // Adds the FILE positional (help text: file_help) and -t/--text.
  void add(CLI::App* app, const std::string& file_help);
  // Nothing given: the command reads stdin.
  bool empty() const { return files.empty() && texts.empty(); }
  std::size_t size() const { return files.size() + texts.size(); }
  // How text i is named in output and errors: "<text>", or "<text N>"
  // (1-based) when there are several.
  std::string text_name(std::size_t i) const;
  // Throws UsageError unless there is at most one input (stdin when none).
  void require_one(const std::string& command) const;
};

// open_input for a named input of a tokenizing command: the error for a
// missing file whose name has no '/' adds "(to use it as text, pass -t '...')".
Result<MappedFile> open_text_input(const std::string& path);

// "<stdin>" for "-" (and ""), else the path itself: how errors name an input.
std::string input_name(const std::string& path);

// After a directory walk: one line on stderr for the binary files left
// out ("skipped 2,036 binary files; --verbose lists them"), or with verbose
// one line per file.
void report_skipped_binary(const std::vector<std::string>& skipped, bool verbose);

}  // namespace tok::cli
