// The command-line layer: the only code that prints to the terminal or picks
// exit statuses. Each subcommand lives in its own file and adds itself to the
// command table with add_<name>(app, commands); main.cpp parses and runs the
// chosen one.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace tok::cli {

inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

// Thrown by commands for usage errors found after parsing (exit 2).
struct UsageError {
  std::string message;
};

// Each subcommand with the function that runs it once it is parsed.
struct CommandTable {
  std::vector<std::pair<CLI::App*, std::function<int()>>> entries;
  void add(CLI::App* sub, std::function<int()> run) { entries.emplace_back(sub, std::move(run)); }
};

// Every command that writes files calls this before opening any: an output
// that is one of its inputs, or another of its outputs, is a usage error
// (exit 2) worded by core/output_paths.hpp. `inputs` may hold names that are
// not files (an encoding such as o200k_base): they are skipped.
void require_distinct_outputs(const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs);

// User data (a path, a batch custom_id) made safe for one line of a terminal:
// control bytes as \xNN, so they cannot split a row or send escape sequences.
std::string one_line(const std::string& m);
// Prints "tok: error: MESSAGE" on stderr and returns kExitError.
int report(const Error& e);
// Prints "tok: warning: MESSAGE" on stderr.
void warn(const std::string& message);

void add_encode(CLI::App& app, CommandTable& commands);
void add_decode(CLI::App& app, CommandTable& commands);
void add_count(CLI::App& app, CommandTable& commands);
void add_compare(CLI::App& app, CommandTable& commands);
void add_train(CLI::App& app, CommandTable& commands);
void add_models(CLI::App& app, CommandTable& commands);
void add_truncate(CLI::App& app, CommandTable& commands);
void add_chunk(CLI::App& app, CommandTable& commands);
void add_show(CLI::App& app, CommandTable& commands);
void add_generate(CLI::App& app, CommandTable& commands);
void add_score(CLI::App& app, CommandTable& commands);
void add_quantize(CLI::App& app, CommandTable& commands);
void add_vocab(CLI::App& app, CommandTable& commands);
// `tok vocab info`, a subcommand of `vocab` (vocab_info_cmd.cpp).
void add_vocab_info(CLI::App& vocab, CommandTable& commands);

}  // namespace tok::cli
