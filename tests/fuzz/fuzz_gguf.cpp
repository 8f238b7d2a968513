// GGUF files on arbitrary bytes, through every reader that takes one: the
// GgufFile parser (metadata, tensor infos, data bounds), the tokenizer in its
// metadata (load_gguf_tokenizer) and the model loader (Model::load: config,
// tensor shapes and types), then two greedy tokens generated with a context
// of at most 8, so weights of any value and any shape the loader accepts
// are computed with. Every refusal names the file. (Messages may quote keys
// and names from the file, newlines included: cli's report() prints control
// bytes as \xNN, which keeps them one line on the terminal.)
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "formats/gguf_reader.hpp"
#include "formats/gguf_vocab.hpp"
#include "fuzz_common.hpp"
#include "model/generator.hpp"
#include "model/model.hpp"

namespace {

const std::string& scratch_path() {
  static const std::string p = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tok-fuzz-" + std::to_string(getpid()) +
           ".gguf";
  }();
  return p;
}

void check_error(const tok::Error& e, const std::string& path, const char* what) {
  if (e.message.rfind(path, 0) != 0) {
    tok::fuzz::fail("gguf", std::string(what) + " error does not name the file: " + e.message);
  }
}

void run_model(const std::string& path) {
  auto m = tok::model::Model::load(path, true);
  if (!m.ok()) {
    check_error(m.error(), path, "Model::load");
    return;
  }
  static tok::ThreadPool pool(1);
  tok::model::GenerateOptions o;
  o.max_tokens = 2;
  o.ctx = static_cast<int>(std::min<std::int64_t>(m->config().ctx, 8));
  o.sampling.greedy = true;
  std::vector<tok::bpe::TokenId> prompt = {0};
  (void)tok::model::generate(*m, pool, prompt, o, {});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto f = tok::formats::GgufFile::parse(bytes, "in.gguf");
  if (!f.ok()) {
    check_error(f.error(), "in.gguf", "GgufFile::parse");
    return 0;
  }
  auto tk = tok::formats::load_gguf_tokenizer(*f, "in");
  if (!tk.ok()) {
    check_error(tk.error(), "in.gguf", "load_gguf_tokenizer");
  } else {
    auto ids = tk->encode("Hello world 123 <s>", tok::bpe::SpecialMode::kText);
    if (ids.ok()) (void)tk->decode(*ids);
  }
  // The model loader opens a path: give it the same bytes as a file.
  const std::string& path = scratch_path();
  if (FILE* out = std::fopen(path.c_str(), "wb")) {
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
    ok = std::fclose(out) == 0 && ok;
    if (ok) run_model(path);
    std::remove(path.c_str());
  }
  return 0;
}
