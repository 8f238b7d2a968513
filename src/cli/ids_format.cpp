#include "cli/ids_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>
#include <utility>

#include "cli/command.hpp"

namespace tok::cli {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSuffixes{
    {{".u16", "u16"}, {".u32", "u32"}, {".npy", "npy"}, {".txt", "text"}}};

std::string lower_suffix(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  });
  return ext;
}

}  // namespace

std::string ids_format(const std::string& format, const std::string& output) {
  if (output.empty() || output == "-") return format.empty() ? "text" : format;
  std::string ext = lower_suffix(output);
  for (const auto& [suffix, named] : kSuffixes) {
    if (ext != suffix) continue;
    if (!format.empty() && format != named) {
      throw UsageError{
          fmt::format("-o {} names a {} file, but --format is {}; drop --format or "
                      "give the file a name that says {}",
                      output, named, format, format)};
    }
    return std::string(named);
  }
  if (ext == ".bin" && format.empty()) {
    throw UsageError{
        fmt::format("-o {}: a .bin name does not say how ids are stored; pass "
                    "--format u16 or --format u32 (or name it .u16, .u32 or .npy)",
                    output)};
  }
  return format.empty() ? "u32" : format;
}

}  // namespace tok::cli
