// Hugging Face exactness: tests/data/formats/golden/NAME.json holds the ids HF
// `tokenizers` gives for every sample of tests/data/formats/hf_corpus.json
// (scripts/make-golden-hf). tok must give the same ids with -e NAME, special
// tokens matched as HF does. TOK_GOLDEN_DIR overrides the folder (the _full
// CLI test points it at goldens made live for vocabularies tok cannot ship).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "core/mapped_file.hpp"
#include "formats/json_error.hpp"
#include "formats/registry.hpp"

using namespace tok;

TEST_CASE("hf golden: tok gives HF tokenizers' ids") {
  const char* env = std::getenv("TOK_GOLDEN_DIR");
  std::string dir = env ? env : std::string(TOK_TEST_DATA) + "/formats/golden";
  auto corpus_file = MappedFile::open(std::string(TOK_TEST_DATA) + "/formats/hf_corpus.json");
  REQUIRE(corpus_file.ok());
  auto corpus = formats::parse_json(corpus_file->bytes(), "hf_corpus.json");
  REQUIRE(corpus.ok());
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++files;
    auto gf = MappedFile::open(e.path().string());
    REQUIRE(gf.ok());
    auto golden = formats::parse_json(gf->bytes(), e.path().string());
    REQUIRE(golden.ok());
    std::string name = (*golden)["tokenizer"];
    auto tk = formats::load_tokenizer(name);
    // doctest evaluates a message again whenever it reports a later assertion
    // of the case (every one under -s, as hf_live_full runs it): it must not
    // read the error of a result that succeeded.
    REQUIRE_MESSAGE(tk.ok(), (tk.ok() ? std::string() : tk.error().message));
    const auto& ids = (*golden)["ids"];
    REQUIRE(ids.size() == corpus->size());
    std::size_t same = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      std::string text = (*corpus)[i];
      auto got = tk->encode(text, bpe::SpecialMode::kAllow);
      REQUIRE_MESSAGE(got.ok(), name, " sample ", i, ": ",
                      (got.ok() ? std::string() : got.error().message));
      std::vector<bpe::TokenId> want = ids[i];
      if (*got == want) {
        ++same;
      } else if (i - same < 3) {
        std::string g, w;
        for (auto x : *got) g += std::to_string(x) + " ";
        for (auto x : want) w += std::to_string(x) + " ";
        MESSAGE(name << " sample " << i << " [" << text.substr(0, 60) << "]\n  want " << w
                     << "\n  got  " << g);
      }
    }
    MESSAGE(name << ": " << same << "/" << ids.size() << " samples identical to HF");
    CHECK(same == ids.size());
  }
  CHECK(files > 0);
}
