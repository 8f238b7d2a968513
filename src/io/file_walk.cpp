#include "io/file_walk.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>

#include "core/mapped_file.hpp"
#include "io/ignore_rules.hpp"

namespace tok::io {
namespace fs = std::filesystem;

namespace {

// --include/--exclude patterns: gitignore lines relative to the directory named.
IgnoreRules pattern_rules(const std::vector<std::string>& patterns) {
  std::string text;
  for (const auto& p : patterns) text += p + "\n";
  return IgnoreRules::parse(text, "");
}

bool matches(const IgnoreRules& rules, std::string_view rel, bool is_dir) {
  return rules.match(rel, is_dir) == IgnoreVerdict::kIgnore;
}

IgnoreRules read_rules(const fs::path& file, const std::string& base) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return {};
  auto f = MappedFile::open(file.string());
  if (!f.ok()) return {};
  return IgnoreRules::parse(f->bytes(), base);
}

// The git repository holding dir: its root, and dir's path inside it as
// components from the root down (empty at the root). Physical paths, as git
// resolves its working directory.
struct Repository {
  fs::path root;
  std::vector<std::string> below;
};

std::optional<Repository> find_repository(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::canonical(dir, ec);
  if (ec) return std::nullopt;
  Repository repo;
  for (;;) {
    if (fs::exists(p / ".git", ec)) {
      repo.root = p;
      std::reverse(repo.below.begin(), repo.below.end());
      return repo;
    }
    if (!p.has_relative_path() || p == p.parent_path()) return std::nullopt;
    repo.below.push_back(p.filename().string());
    p = p.parent_path();
  }
}

struct Walker {
  Walker(const WalkOptions& o, const FileSink& sink, std::vector<Error>& errs)
      : opt(o),
        on_file(sink),
        errors(errs),
        include(pattern_rules(o.include)),
        exclude(pattern_rules(o.exclude)) {}

  const WalkOptions& opt;
  const FileSink& on_file;
  std::vector<Error>& errors;
  IgnoreRules include, exclude;  // --include, --exclude
  std::string prefix;            // the named directory inside its repository ("" = root, or none)
  IgnoreStack stack;             // rules keyed by paths inside the repository

  std::string repo_path(const std::string& rel) const {
    if (prefix.empty()) return rel;
    return rel.empty() ? prefix : prefix + "/" + rel;
  }

  // Inside a repository: its exclude file and the .gitignore files from the
  // root down to the named directory's parent (the walk reads the rest).
  void push_repository_rules(const std::string& dir) {
    if (!opt.use_ignore) return;
    std::optional<Repository> repo = find_repository(dir);
    if (!repo) return;
    push_rules(repo->root / ".git" / "info" / "exclude", "");
    fs::path d = repo->root;
    std::string base;
    for (const auto& name : repo->below) {
      push_rules(d / ".gitignore", base);
      d /= name;
      base = base.empty() ? name : base + "/" + name;
    }
    prefix = base;
  }

  void walk(const fs::path& dir, const std::string& rel, bool included) {
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(*it);
    }
    if (ec) {
      errors.push_back(make_error("{}: cannot read directory: {}", dir.string(), ec.message()));
      return;
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a.path().filename() < b.path().filename();
    });
    int pushed = opt.use_ignore ? push_rules(dir / ".gitignore", repo_path(rel)) : 0;
    walk_entries(entries, rel, included);
    while (pushed-- > 0) stack.pop();
  }

  int push_rules(const fs::path& file, const std::string& base) {
    IgnoreRules r = read_rules(file, base);
    if (r.empty()) return 0;
    stack.push(std::move(r));
    return 1;
  }

  // included: a directory above matched --include, so everything below does.
  void walk_entries(const std::vector<fs::directory_entry>& entries, const std::string& rel,
                    bool included) {
    for (const auto& e : entries) {
      std::string name = e.path().filename().string();
      std::string child = rel.empty() ? name : rel + "/" + name;
      std::error_code ec;
      bool is_dir = e.is_directory(ec) && !e.is_symlink(ec);
      if (name == ".git") continue;
      if (opt.use_ignore && stack.ignored(repo_path(child), is_dir)) continue;
      if (matches(exclude, child, is_dir)) continue;
      IgnoreVerdict own = include.match(child, is_dir);
      bool inc = own == IgnoreVerdict::kIgnore || (included && own != IgnoreVerdict::kInclude);
      if (is_dir) {
        walk(e.path(), child, inc);
        continue;
      }
      if (!e.is_regular_file(ec)) continue;
      if (!include.empty() && !inc) continue;
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
      Walker w(options, on_file, errors);
      w.push_repository_rules(in);
      w.walk(in, "", false);
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

}  // namespace tok::io
