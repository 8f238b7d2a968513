// --include, --exclude and --no-ignore: how count, chunk and train walk the
// directories they are given (io::expand_inputs, one walker for all).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "io/file_walk.hpp"

namespace tok::cli {

struct WalkFlags {
  std::vector<std::string> include, exclude;
  bool no_ignore = false;

  void add(CLI::App* app);
  io::WalkOptions options() const { return {!no_ignore, include, exclude}; }
};

}  // namespace tok::cli
