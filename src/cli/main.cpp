// tok: exact, fast tokenization and token-cost tools. Dispatches subcommands.
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <new>

#include "cli/command.hpp"
#include "core/atomic_file.hpp"
#include "core/output.hpp"
#include "tok/build_info.hpp"

namespace tok::cli {

int report(const Error& e) {
  std::fprintf(stderr, "tok: error: %s\n", e.message.c_str());
  return kExitError;
}

void warn(const std::string& message) { std::fprintf(stderr, "tok: warning: %s\n", message.c_str()); }

namespace {

void on_interrupt(int sig) {
  remove_pending_temporaries();
  signal(sig, SIG_DFL);
  raise(sig);
}

// One line, "tok: error: ...", for every usage error CLI11 reports.
int usage_error(const std::string& message) {
  std::string m = message;
  for (char& c : m) {
    if (c == '\n') c = ' ';
  }
  while (!m.empty() && m.back() == ' ') m.pop_back();
  std::fprintf(stderr, "tok: error: %s (see tok --help)\n", m.c_str());
  return kExitUsage;
}

int run(int argc, char** argv) {
  CLI::App app{"tok: exact, fast tokenization and token-cost tools", "tok"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", std::string("tok ") + build_info::kVersion);
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string(e.what()); });
  Registry registry;
  add_encode(app, registry);
  add_decode(app, registry);
  add_count(app, registry);
  add_compare(app, registry);
  add_vocab(app, registry);
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
    return usage_error(e.what());
  }
  for (auto& [sub, fn] : registry.commands) {
    if (sub->parsed()) return fn();
  }
  return usage_error("no command given");
}

}  // namespace
}  // namespace tok::cli

int main(int argc, char** argv) {
  // A closed stdout pipe surfaces as EPIPE from write(), which Output turns
  // into BrokenPipe: `tok encode big | head` ends quietly with status 0.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, tok::cli::on_interrupt);
  signal(SIGTERM, tok::cli::on_interrupt);
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
  }
}
