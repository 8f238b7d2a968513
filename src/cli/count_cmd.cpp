// tok count [-e ENC] [--threads N] [-q] [--json] [FILE...]
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "cli/command.hpp"
#include "cli/encoding_options.hpp"
#include "cli/input.hpp"
#include "core/output.hpp"

namespace tok::cli {
namespace {

struct CountArgs {
  EncodingOptions enc;
  std::vector<std::string> files;
  unsigned threads = 0;
  bool quiet = false;
  bool json = false;
};

struct FileCount {
  std::string path;
  std::size_t bytes = 0;
  std::size_t tokens = 0;
};

int run_count(const CountArgs& a) {
  auto tk = a.enc.load();
  if (!tk.ok()) return report(tk.error());
  unsigned threads = a.threads ? a.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> files = a.files;
  if (files.empty()) files.push_back("-");
  std::vector<FileCount> counts;
  int status = 0;
  for (const auto& path : files) {
    auto in = open_input(path);
    if (!in.ok()) {
      status = report(in.error());
      continue;
    }
    auto n = tk->count(in->bytes(), a.enc.special_mode(), threads);
    if (!n.ok()) {
      status = report(make_error("{}: {}", path == "-" ? "<stdin>" : path, n.error().message));
      continue;
    }
    counts.push_back({path, in->size(), *n});
  }
  FileCount total{"total", 0, 0};
  for (const auto& c : counts) {
    total.bytes += c.bytes;
    total.tokens += c.tokens;
  }
  Output out;
  if (a.quiet) {
    out.write_u64(total.tokens);
    out.put('\n');
  } else if (a.json) {
    nlohmann::ordered_json j;
    j["encoding"] = tk->name();
    j["files"] = nlohmann::ordered_json::array();
    for (const auto& c : counts) {
      j["files"].push_back({{"path", c.path}, {"bytes", c.bytes}, {"tokens", c.tokens}});
    }
    j["total"] = {{"bytes", total.bytes}, {"tokens", total.tokens}};
    out.write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    out.put('\n');
  } else {
    out.write(fmt::format("{:>12} {:>12}  {}\n", "tokens", "bytes", "path"));
    for (const auto& c : counts) {
      out.write(fmt::format("{:>12} {:>12}  {}\n", c.tokens, c.bytes, c.path));
    }
    if (counts.size() > 1) {
      out.write(fmt::format("{:>12} {:>12}  {}\n", total.tokens, total.bytes, "total"));
    }
  }
  out.flush();
  return status;
}

}  // namespace

void add_count(CLI::App& app, Registry& r) {
  auto a = std::make_shared<CountArgs>();
  CLI::App* sub = app.add_subcommand("count", "Count the tokens of files (or stdin)");
  a->enc.add_encoding(sub);
  a->enc.add_special(sub, "text");
  sub->add_option("FILE", a->files, "Input files (default: stdin; '-' is stdin)");
  sub->add_option("--threads", a->threads, "Worker threads (default: all cores); never changes a count");
  sub->add_flag("-q,--quiet", a->quiet, "Print only the total token count");
  sub->add_flag("--json", a->json, "Print JSON: {encoding, files: [{path, bytes, tokens}], total}");
  r.add(sub, [a] { return run_count(*a); });
}

}  // namespace tok::cli
