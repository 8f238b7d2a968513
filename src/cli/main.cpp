// tok: exact, fast tokenization and token-cost tools. Dispatches subcommands.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command.hpp"
#include "cli/generated_docs.hpp"
#include "cli/usage_errors.hpp"
#include "core/atomic_file.hpp"
#include "core/fatal_signals.hpp"
#include "core/mapped_file.hpp"
#include "core/output.hpp"
#include "core/suggest.hpp"
#include "formats/registry.hpp"
#include "text/escape.hpp"
#include "text/unicode_tables.hpp"
#include "tok/build_info.hpp"

namespace tok::cli {

// Messages quote user data (paths, file contents, names from files); control
// bytes there must not break the one-line contract or drive the terminal:
// the terminal escaper's rule (C0, DEL, C1 and bytes that are not UTF-8 as
// \xNN), with backslashes left as they are so quoted patterns read as written.
std::string one_line(const std::string& m) {
  return text::escape_terminal(m, {.backslash = false});
}

int report(const Error& e) {
  // Once an input shrank under its mapping, what tok read after that point is
  // zeros, and errors about it are noise: main() names the shrunk file instead.
  if (!shrunk_mapped_file().empty()) return kExitError;
  std::fprintf(stderr, "tok: error: %s\n", one_line(e.message).c_str());
  return kExitError;
}

void warn(const std::string& message) {
  std::fprintf(stderr, "tok: warning: %s\n", one_line(message).c_str());
}

namespace {

// One line, "tok: error: ...", for every usage error, naming the help of
// the command it is about ("see tok train --help").
int usage_error(const std::string& message, const std::string& command = "tok") {
  std::string m = message;
  for (char& c : m) {
    if (c == '\n') c = ' ';
  }
  while (!m.empty() && m.back() == ' ') m.pop_back();
  std::fprintf(stderr, "tok: error: %s (see %s --help)\n", one_line(m).c_str(), command.c_str());
  return kExitUsage;
}

// CLI11 reports a mistyped command as "A subcommand is required"; name it
// and suggest the closest commands instead.
std::optional<std::string> unknown_command(const std::string& cmd, CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->check_name(cmd)) return std::nullopt;
    names.push_back(sub->get_name());
  }
  std::string hint;
  auto near = suggest(cmd, names);
  if (!near.empty()) hint = fmt::format("; did you mean {}?", fmt::join(near, ", "));
  return fmt::format("unknown command '{}'{}; commands: {}", cmd, hint, fmt::join(names, ", "));
}

int run(int argc, char** argv) {
  CLI::App app{"tok: exact, fast tokenization and token-cost tools", "tok"};
  app.require_subcommand(1);
  // The Unicode version of tok's character classes: which characters are
  // letters, numbers or spaces to the split patterns.
  app.set_version_flag("-V,--version", fmt::format("tok {}\nUnicode {}", build_info::kVersion,
                                                   text::kUnicodeVersion));
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string(e.what()); });
  CommandTable commands;
  add_encode(app, commands);
  add_decode(app, commands);
  add_count(app, commands);
  add_compare(app, commands);
  add_train(app, commands);
  add_models(app, commands);
  add_truncate(app, commands);
  add_chunk(app, commands);
  add_show(app, commands);
  add_generate(app, commands);
  add_score(app, commands);
  add_quantize(app, commands);
  add_vocab(app, commands);
  if (auto status = run_doc_generator(argc, argv, app)) return *status;
  if (argc > 1 && argv[1][0] != '-') {
    if (auto e = unknown_command(argv[1], app)) return usage_error(*e);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    return usage_error(explain_parse_error(app, e), command_path(app));
  }
  for (auto& [sub, fn] : commands.entries) {
    if (!sub->parsed()) continue;
    try {
      return fn();
    } catch (const UsageError& e) {
      return usage_error(e.message, command_path(app));
    }
  }
  return usage_error("no command given");
}

}  // namespace
}  // namespace tok::cli

namespace {

// A standard descriptor tok was started without (`tok count f >&-`) would be
// taken by the next file tok opens, and stdout's bytes would land in an input
// or a temporary. Park /dev/null there, opened the wrong way round, so that
// writing to a closed stdout still fails (EBADF) and is reported.
void guard_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    int got = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (got >= 0 && got != fd) ::close(got);
  }
}

// Output still in stdout's buffer (fmt::print, printf) is only written here:
// a full disk or a closed stdout must not end in status 0 with the result
// lost. A reader that went away (EPIPE) is not an error (`tok ... | head`).
int check_stdout(int status) {
  errno = 0;
  bool failed = std::fflush(stdout) != 0;
  int e = errno;
  failed |= std::ferror(stdout) != 0;
  if (!failed && std::fclose(stdout) != 0 && errno != EBADF) {
    failed = true;
    e = errno;
  }
  if (!failed || e == EPIPE) return status;
  std::fprintf(stderr, "tok: error: cannot write output: %s\n",
               e ? std::strerror(e) : "write error");
  return tok::cli::kExitError;
}

// An input that shrank under its mapping was read on as zeros: whatever was
// printed from it is incomplete.
int check_inputs(int status) {
  std::string shrunk = tok::shrunk_mapped_file();
  if (shrunk.empty()) return status;
  std::fprintf(stderr,
               "tok: error: %s: the file shrank while tok read it (truncated or rotated?); "
               "the results are incomplete\n",
               tok::cli::one_line(shrunk).c_str());
  return tok::cli::kExitError;
}

int run_main(int argc, char** argv) {
  try {
    return tok::cli::run(argc, argv);
  } catch (const tok::BrokenPipe&) {
    return 0;
  } catch (const tok::WriteFailed& e) {
    std::fprintf(stderr, "tok: error: cannot write output: %s\n", e.message.c_str());
    return tok::cli::kExitError;
  } catch (const tok::cli::UsageError& e) {
    return tok::cli::usage_error(e.message);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "tok: error: out of memory\n");
    return tok::cli::kExitError;
  } catch (const std::exception& e) {
    // A library exception that escaped (std::system_error from a thread, ...):
    // still one line and status 1, never "terminate called".
    std::fprintf(stderr, "tok: error: %s\n", e.what());
    return tok::cli::kExitError;
  }
}

}  // namespace

int main(int argc, char** argv) {
  guard_standard_fds();
  // A closed stdout pipe surfaces as EPIPE from write(), which Output turns
  // into BrokenPipe: `tok encode big | head` ends quietly with status 0.
  signal(SIGPIPE, SIG_IGN);
  // A file size limit (ulimit -f) then fails write() with EFBIG, which
  // AtomicFile reports, instead of killing tok with a half-written temporary.
  signal(SIGXFSZ, SIG_IGN);
  tok::install_fatal_signal_handlers();
  int status = run_main(argc, argv);
  status = check_inputs(status);
  if (status == tok::cli::kExitError && std::ferror(stdout)) {
    // The error is already reported; stdout's own failure adds nothing.
    return status;
  }
  return check_stdout(status);
}
