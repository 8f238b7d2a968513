#include "core/data_dir.hpp"

#include <dlfcn.h>
#include <pwd.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "tok/build_info.hpp"

namespace tok {
namespace fs = std::filesystem;

namespace {
// With HOME unset, the account's home from the password database; never a
// shared directory such as /tmp, where another user could plant a catalog or
// a table image for tok to load.
std::string home_sub(const char* xdg_var, const char* fallback) {
  const char* x = std::getenv(xdg_var);
  if (x && *x) return std::string(x) + "/tok";
  const char* home = std::getenv("HOME");
  if (!home || !*home) {
    const passwd* pw = ::getpwuid(::geteuid());
    home = pw ? pw->pw_dir : nullptr;
  }
  if (!home || !*home || std::string_view(home) == "/") return {};
  return std::string(home) + "/" + fallback + "/tok";
}

// This program's path; empty when the system will not say.
fs::path executable_path() {
  std::error_code ec;
#if defined(__APPLE__)
  // No /proc on macOS: dyld knows the path the program was started by.
  char buf[4096];
  std::uint32_t size = sizeof buf;
  if (::_NSGetExecutablePath(buf, &size) != 0) return {};
  fs::path exe = fs::weakly_canonical(buf, ec);
#else
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // Linux
#endif
  return ec ? fs::path{} : exe;
}

// The shared object this code was linked into (the Python package's
// tok/_tok*.so); empty in the tok executable, or when the system will not say.
// For the main program dladdr gives argv[0], which names no shared object:
// a relative name, or the executable itself.
fs::path shared_object_path() {
  static const char anchor = 0;
  Dl_info info{};
  if (::dladdr(&anchor, &info) == 0 || !info.dli_fname) return {};
  fs::path so = info.dli_fname;
  if (!so.is_absolute()) return {};
  std::error_code ec;
  fs::path exe = executable_path();
  if (!exe.empty() && fs::equivalent(so, exe, ec)) return {};
  return so;
}
}  // namespace

std::string vocab_dir() {
  if (const char* env = std::getenv("TOK_VOCAB_DIR"); env && *env) return env;
  std::error_code ec;
  // A Python package installed by pip ships the data beside its module.
  if (fs::path so = shared_object_path(); !so.empty()) {
    fs::path beside = so.parent_path() / "vocab";
    if (fs::is_directory(beside, ec)) return beside.string();
  }
  fs::path exe = executable_path();
  if (!exe.empty()) {
    fs::path installed = exe.parent_path().parent_path() / build_info::kInstallVocabDir;
    // Prefer the install location when the binary lives in a bin/ directory.
    if (exe.parent_path().filename() == "bin" && fs::is_directory(installed, ec)) {
      return installed.string();
    }
  }
  if (fs::is_directory(build_info::kSourceVocabDir, ec)) return build_info::kSourceVocabDir;
  if (!exe.empty())
    return (exe.parent_path().parent_path() / build_info::kInstallVocabDir).string();
  return build_info::kSourceVocabDir;
}

std::string cache_dir() { return home_sub("XDG_CACHE_HOME", ".cache"); }
std::string config_dir() { return home_sub("XDG_CONFIG_HOME", ".config"); }

}  // namespace tok
