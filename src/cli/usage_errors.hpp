// Usage errors in tok's own words: which command's help to read, and for a
// mistyped flag the flag, the command and the closest flags it does have
// ("unknown option --temprature for tok generate (did you mean
// --temperature?)"), instead of CLI11's raw "arguments were not expected".
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace tok::cli {

// "tok", "tok generate" or "tok vocab info": the deepest command parsed so far.
std::string command_path(const CLI::App& app);

// The message of a CLI11 parse error (without the "see ... --help" tail).
std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e);

}  // namespace tok::cli
