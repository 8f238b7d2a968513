#include "core/output_paths.hpp"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

namespace tok {
namespace {

// How a path is told apart from others: an existing regular file by device
// and inode; a path that names no file yet by its absolute form, links
// resolved. Anything else (a device, a FIFO, a directory) has no identity
// here and is never refused.
struct Identity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string path;  // when !exists
  bool operator==(const Identity& o) const {
    return exists == o.exists && (exists ? dev == o.dev && ino == o.ino : path == o.path);
  }
};

std::optional<Identity> regular_file(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  return Identity{true, st.st_dev, st.st_ino, {}};
}

std::optional<Identity> input_identity(const std::string& path) {
  struct stat st {};
  if (path == "-" ? ::fstat(0, &st) != 0 : ::stat(path.c_str(), &st) != 0) return std::nullopt;
  return regular_file(st);
}

std::optional<Identity> output_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return regular_file(st);
  auto target = resolve_links(path);
  if (!target.ok()) return std::nullopt;  // AtomicFile::create reports it
  std::error_code ec;
  std::filesystem::path p =
      std::filesystem::weakly_canonical(std::filesystem::absolute(*target, ec), ec);
  if (ec) return std::nullopt;
  return Identity{false, 0, 0, p.lexically_normal().string()};
}

std::string other_name(const std::string& out, const std::string& other) {
  if (other == out) return "";
  return " (" + (other == "-" ? std::string("<stdin>") : other) + ")";
}

}  // namespace

Result<std::string> resolve_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char buf[PATH_MAX];
    ssize_t n = ::readlink(p.c_str(), buf, sizeof(buf));
    if (n < 0 || n == sizeof(buf)) {
      return make_error("{}: cannot read symbolic link: {}", path,
                        std::strerror(n < 0 ? errno : ENAMETOOLONG));
    }
    std::filesystem::path link(std::string(buf, static_cast<std::size_t>(n)));
    p = link.is_absolute() ? link.string()
                           : (std::filesystem::path(p).parent_path() / link).string();
  }
  return make_error("{}: too many levels of symbolic links", path);
}

Status check_outputs(std::span<const std::string> inputs, std::span<const std::string> outputs) {
  std::vector<std::pair<Identity, const std::string*>> in, out;
  for (const std::string& path : inputs) {
    if (auto id = input_identity(path)) in.emplace_back(*id, &path);
  }
  for (const std::string& path : outputs) {
    if (path.empty() || path == "-") continue;
    auto id = output_identity(path);
    if (!id) continue;
    for (const auto& [other, name] : in) {
      if (other == *id) {
        return make_error("{}: is also an input{}; write to another file", path,
                          other_name(path, *name));
      }
    }
    for (const auto& [other, name] : out) {
      if (other == *id) {
        return make_error("{}: is also another output{}; write to another file", path,
                          other_name(path, *name));
      }
    }
    out.emplace_back(*id, &path);
  }
  return {};
}

}  // namespace tok
