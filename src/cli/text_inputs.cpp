#include "cli/text_inputs.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/command.hpp"
#include "cli/input.hpp"
#include "core/number_format.hpp"

namespace tok::cli {

void TextInputs::add(CLI::App* app, const std::string& file_help) {
  app->add_option("FILE", files, file_help);
  app->add_option("-t,--text", texts,
                  "Literal text to use as an input (repeatable; after the FILEs, in order)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::string TextInputs::text_name(std::size_t i) const {
  return texts.size() == 1 ? std::string("<text>") : fmt::format("<text {}>", i + 1);
}

void TextInputs::require_one(const std::string& command) const {
  if (size() > 1) {
    throw UsageError{fmt::format("{} takes one input: a FILE, '-' or one -t TEXT", command)};
  }
}

Result<MappedFile> open_text_input(const std::string& path) {
  auto in = open_input(path);
  // A name with a '/' is meant as a path; "hello world" may be meant as text.
  if (in.ok() || path.empty() || path == "-" || path.find('/') != std::string::npos) return in;
  std::error_code ec;
  if (std::filesystem::symlink_status(path, ec).type() == std::filesystem::file_type::not_found) {
    return make_error("{} (to use it as text, pass -t '{}')", in.error().message, path);
  }
  return in;
}

std::string input_name(const std::string& path) {
  return path.empty() || path == "-" ? std::string("<stdin>") : path;
}

void report_skipped_binary(const std::vector<std::string>& skipped, bool verbose) {
  if (skipped.empty()) return;
  if (verbose) {
    for (const auto& s : skipped) warn(fmt::format("{}: skipped (binary file)", s));
    return;
  }
  warn(fmt::format("skipped {} binary file{}; --verbose lists them", group_digits(skipped.size()),
                   skipped.size() == 1 ? "" : "s"));
}

}  // namespace tok::cli
