#include "cli/runtime_options.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "cli/input.hpp"
#include "cli/numeric_options.hpp"
#include "core/data_dir.hpp"
#include "core/system_cpus.hpp"
#include "cost/catalog.hpp"

namespace tok::cli {

void RuntimeOptions::add(CLI::App* app) {
  app->add_option(
      "-m,--model", model,
      std::string("Model file (GGUF: llama, smollm3, qwen2, qwen3, gemma3 or phi3); default: ") +
          kDefaultModel + " from tok's vocab directory");
  app->add_option("--threads", threads,
                  "Threads for the matrix products (default: the CPUs tok may use, at most 8)")
      ->check(integer_in(1, 256));
  app->add_option("-c,--ctx", ctx,
                  "Context length in tokens (at most the model's; default: the model's)")
      ->check(integer_in(1, 1 << 20));
}

unsigned RuntimeOptions::thread_count() const {
  if (threads > 0) return threads;
  return std::clamp(available_cpus(), 1u, 8u);
}

namespace {

// -m is a GGUF path here but a catalog model in count, show and truncate:
// a catalog name given where no such file exists gets told which is which.
Status check_not_catalog_name(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found) {
    return {};
  }
  auto catalog = cost::Catalog::load_default({});
  if (!catalog.ok() || !catalog->get(path).ok()) return {};
  return make_error(
      "{} is a catalog model (prices), not a GGUF file: -m here takes a .gguf path "
      "(catalog models go to tok count -m and tok show -m)",
      path);
}

}  // namespace

Result<model::Model> RuntimeOptions::load() const {
  std::string path = model.empty() ? vocab_dir() + "/" + kDefaultModel : model;
  TOK_TRY(check_not_catalog_name(path));
  TOK_ASSIGN(model::Model m, model::Model::load(path));
  // Refused here, before the KV cache for the context is allocated.
  TOK_TRY(model::check_run_memory(m, ctx > 0 ? ctx : m.config().ctx));
  return m;
}

Result<std::vector<bpe::TokenId>> prompt_ids(const model::Model& m, const std::string& arg,
                                             bool given, std::string* text) {
  *text = arg;
  if (!given) {
    // A prompt from a pipe stops at 256 MiB (more than any context tok can
    // hold in memory), so `generate < /dev/zero` ends within a second.
    note_terminal_stdin();
    TOK_ASSIGN(auto in, MappedFile::open("-", kMaxSmallStreamBytes));
    *text = std::string(in.bytes());
  }
  const bpe::Tokenizer& tk = m.tokenizer();
  std::vector<bpe::TokenId> ids;
  if (tk.add_bos && tk.bos) ids.push_back(*tk.bos);
  auto enc = tk.encode(*text, bpe::SpecialMode::kText);
  if (!enc.ok()) return make_error("{}: {}", given ? "PROMPT" : "<stdin>", enc.error().message);
  ids.insert(ids.end(), enc->begin(), enc->end());
  return ids;
}

}  // namespace tok::cli
