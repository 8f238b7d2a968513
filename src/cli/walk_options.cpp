#include "cli/walk_options.hpp"

namespace tok::cli {

void WalkFlags::add(CLI::App* app) {
  app->add_option("--include", include,
                  "Only walked files matching PATTERN, or below a directory matching it "
                  "(gitignore syntax, relative to the directory named; repeatable)")
      ->allow_extra_args(false);
  app->add_option("--exclude", exclude,
                  "Skip walked files and directories matching PATTERN (gitignore syntax: "
                  "`tests`, `tests/` and `tests/**` all skip a tests directory; repeatable)")
      ->allow_extra_args(false);
  app->add_flag("--no-ignore", no_ignore,
                "Do not apply .gitignore files or .git/info/exclude when walking directories");
}

}  // namespace tok::cli
