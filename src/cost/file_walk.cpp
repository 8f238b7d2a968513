#include "cost/file_walk.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "core/mapped_file.hpp"
#include "cost/glob.hpp"
#include "cost/ignore_rules.hpp"

namespace tok::cost {
namespace fs = std::filesystem;

namespace {

bool glob_any(const std::vector<std::string>& globs, std::string_view rel) {
  std::string_view name = rel.substr(rel.rfind('/') == std::string_view::npos ? 0 : rel.rfind('/') + 1);
  for (const auto& g : globs) {
    bool has_slash = g.find('/') != std::string::npos;
    if (glob_match(g, has_slash ? rel : name)) return true;
  }
  return false;
}

IgnoreRules read_rules(const fs::path& file, const std::string& base) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return {};
  auto f = MappedFile::open(file.string());
  if (!f.ok()) return {};
  return IgnoreRules::parse(f->bytes(), base);
}

struct Walker {
  const WalkOptions& opt;
  const FileSink& on_file;
  std::vector<Error>& errors;
  fs::path root;
  IgnoreStack stack;

  void walk(const fs::path& dir, const std::string& rel) {
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(*it);
    }
    if (ec) {
      errors.push_back(make_error("{}: cannot read directory: {}", dir.string(), ec.message()));
      return;
    }
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
    int pushed = 0;
    if (opt.use_ignore) {
      // A repository root's own exclude file applies like a root .gitignore.
      if (rel.empty()) pushed += push_rules(dir / ".git" / "info" / "exclude", rel);
      pushed += push_rules(dir / ".gitignore", rel);
    }
    walk_entries(entries, rel);
    while (pushed-- > 0) stack.pop();
  }

  int push_rules(const fs::path& file, const std::string& rel) {
    IgnoreRules r = read_rules(file, rel);
    if (r.empty()) return 0;
    stack.push(std::move(r));
    return 1;
  }

  void walk_entries(const std::vector<fs::directory_entry>& entries, const std::string& rel) {
    for (const auto& e : entries) {
      std::string name = e.path().filename().string();
      std::string child = rel.empty() ? name : rel + "/" + name;
      std::error_code ec;
      bool is_dir = e.is_directory(ec) && !e.is_symlink(ec);
      if (name == ".git") continue;
      if (opt.use_ignore && stack.ignored(child, is_dir)) continue;
      if (is_dir) {
        walk(e.path(), child);
        continue;
      }
      if (!e.is_regular_file(ec)) continue;
      if (!opt.include.empty() && !glob_any(opt.include, child)) continue;
      if (glob_any(opt.exclude, child)) continue;
      on_file(e.path().string(), true);
    }
  }
};

}  // namespace

std::vector<Error> expand_inputs(const std::vector<std::string>& inputs, const WalkOptions& options,
                                 const FileSink& on_file) {
  std::vector<Error> errors;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (in != "-" && fs::is_directory(in, ec)) {
      Walker w{options, on_file, errors, in, {}};
      w.walk(in, "");
    } else {
      on_file(in, false);  // missing or unreadable: reported when opened
    }
  }
  return errors;
}

bool looks_binary(std::string_view bytes) {
  std::size_t n = std::min<std::size_t>(bytes.size(), 8192);
  return std::memchr(bytes.data(), 0, n) != nullptr;
}

}  // namespace tok::cost
