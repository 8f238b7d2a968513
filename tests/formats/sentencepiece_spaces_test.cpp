// SentencePiece space handling (formats/sentencepiece_spaces.hpp): exact
// cases of the transform, then its two entry points agreeing: one vocabulary
// loaded from a GGUF file and from the equivalent tokenizer.json gives the
// same ids for the same sentences.
#include "formats/sentencepiece_spaces.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/mapped_file.hpp"
#include "formats/gguf.hpp"
#include "formats/gguf_vocab.hpp"
#include "formats/hf_tokenizer.hpp"

using namespace tok;
using formats::SentencePieceSpaces;
using Prepend = SentencePieceSpaces::Prepend;

namespace {

std::string encoded(const SentencePieceSpaces& s, std::string_view run, std::size_t offset = 0) {
  return s.encode(run, offset, nullptr);
}

// The shipped mistral tokenizer.json: Prepend + Replace normalizers, merges.
std::string mistral_file() {
  auto f = MappedFile::open(std::string(TOK_VOCAB_DIR_FOR_TESTS) + "/mistral/tokenizer.json");
  REQUIRE_MESSAGE(f.ok(), f.error().message);
  return std::string(f->bytes());
}

// That file with its normalizer and pre-tokenizer replaced.
std::string mistral_json(const nlohmann::json& normalizer, const nlohmann::json& pre) {
  nlohmann::json j = nlohmann::json::parse(mistral_file());
  j["normalizer"] = normalizer;
  j["pre_tokenizer"] = pre;
  return j.dump();
}

// The same vocabulary as a llama.cpp "llama" (SentencePiece) GGUF: scores
// that rank each token as the merges list ranks the merge making it.
std::string mistral_gguf(bool add_space_prefix) {
  nlohmann::json j = nlohmann::json::parse(mistral_file());
  std::vector<std::string> tokens(j["model"]["vocab"].size());
  for (const auto& [text, id] : j["model"]["vocab"].items()) tokens[id.get<std::size_t>()] = text;
  std::vector<float> scores(tokens.size(), 0.0f);
  std::vector<std::int32_t> types(tokens.size(), 1);
  std::unordered_map<std::string, std::size_t> id_of;
  for (std::size_t i = 0; i < tokens.size(); ++i) id_of[tokens[i]] = i;
  const auto& merges = j["model"]["merges"];
  for (std::size_t rank = merges.size(); rank-- > 0;) {
    std::string m = merges[rank].is_string() ? merges[rank].get<std::string>()
                                             : merges[rank][0].get<std::string>() + " " +
                                                   merges[rank][1].get<std::string>();
    std::size_t sp = m.find(' ');
    scores[id_of.at(m.substr(0, sp) + m.substr(sp + 1))] = -static_cast<float>(rank);
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].size() == 6 && tokens[i].starts_with("<0x")) types[i] = 6;  // byte
  }
  types[0] = 2;             // <unk>
  types[1] = types[2] = 3;  // <s>, </s>
  formats::GgufWriter w;
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_strings("tokenizer.ggml.tokens", tokens);
  w.set_f32s("tokenizer.ggml.scores", scores);
  w.set_i32s("tokenizer.ggml.token_type", types);
  w.set_u32("tokenizer.ggml.unknown_token_id", 0);
  w.set_bool("tokenizer.ggml.add_space_prefix", add_space_prefix);
  return w.serialize();
}

std::vector<bpe::TokenId> ids(const bpe::Tokenizer& tk, std::string_view text) {
  auto r = tk.encode(text, bpe::SpecialMode::kAllow);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  return *r;
}

const std::vector<std::string> kSentences = {
    "Hello world",
    " a leading space",
    "two  spaces and a trailing one ",
    "<s>after a special token</s> and before",
    "naïve café, 日本語 and emoji 🙂",
    "tabs\tand\nnewlines\n",
    "▁already a replacement character",
};

}  // namespace

TEST_CASE("sentencepiece spaces: spaces become the replacement, the prefix as the scheme says") {
  SentencePieceSpaces always;
  CHECK(encoded(always, "a b") == "▁a▁b");
  CHECK(encoded(always, " a") == "▁▁a");   // SentencePiece and llama.cpp: a second prefix
  CHECK(encoded(always, "a", 7) == "▁a");  // after a special token too
  SentencePieceSpaces metaspace{"\u2581", Prepend::kAlways, true};
  CHECK(encoded(metaspace, " a") == "▁a");  // HF Metaspace: none before a space
  CHECK(encoded(metaspace, "▁a") == "▁a");
  SentencePieceSpaces first{"\u2581", Prepend::kFirst, true};
  CHECK(encoded(first, "a b") == "▁a▁b");
  CHECK(encoded(first, "a b", 3) == "a▁b");
  SentencePieceSpaces never{"\u2581", Prepend::kNever, false};
  CHECK(encoded(never, " a ") == "▁a▁");
  SentencePieceSpaces other{"_", Prepend::kAlways, false};
  CHECK(encoded(other, "a b") == "_a_b");
  Prepend p{};
  CHECK((formats::parse_prepend_scheme("first", p) && p == Prepend::kFirst));
  CHECK_FALSE(formats::parse_prepend_scheme("First", p));
}

TEST_CASE("sentencepiece spaces: the alignment maps the prefix to no input byte") {
  std::vector<std::size_t> to_input;
  SentencePieceSpaces always;
  CHECK(always.encode("a b", 0, &to_input) == "▁a▁b");
  // ▁ (3 bytes, inserted) a ▁ (the space) b
  CHECK(to_input == std::vector<std::size_t>{0, 0, 0, 0, 1, 2, 2, 2, 3});
}

TEST_CASE("sentencepiece spaces: decode maps the replacement back, dropping the prefix") {
  SentencePieceSpaces s;
  CHECK(s.decode("▁Hello▁world", true) == "Hello world");
  CHECK(s.decode("▁Hello▁world", false) == " Hello world");
  CHECK(s.decode("▁▁a", true) == " a");
  CHECK(s.decode("", true).empty());
}

TEST_CASE(
    "sentencepiece spaces: an unknown Metaspace prepend_scheme is refused, not read as never") {
  std::string j = R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[]},
    "pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"sometimes"}})";
  auto tk = formats::load_hf_tokenizer_json(j, "t.json", "t");
  REQUIRE_FALSE(tk.ok());
  CHECK(tk.error().message == "t.json: Metaspace prepend_scheme 'sometimes' is not supported yet");
}

TEST_CASE("sentencepiece spaces: a GGUF vocabulary and its tokenizer.json give the same ids") {
  using nlohmann::json;
  auto gguf = [](bool prefix) {
    auto f = formats::GgufFile::parse(mistral_gguf(prefix), "mistral.gguf");
    REQUIRE_MESSAGE(f.ok(), f.error().message);
    auto tk = formats::load_gguf_tokenizer(*f, "mistral-gguf");
    REQUIRE_MESSAGE(tk.ok(), tk.error().message);
    return std::move(tk).value();
  };
  auto hf = [](const json& normalizer, const json& pre) {
    auto tk = formats::load_hf_tokenizer_json(mistral_json(normalizer, pre),
                                              "/nonexistent/tokenizer.json", "mistral-hf");
    REQUIRE_MESSAGE(tk.ok(), tk.error().message);
    return std::move(tk).value();
  };
  json replace = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}};
  json prepend = {{"type", "Prepend"}, {"prepend", "▁"}};
  SUBCASE("add_space_prefix: Prepend + Replace normalizers (Llama 2, Mistral)") {
    bpe::Tokenizer g = gguf(true);
    bpe::Tokenizer h = hf({{"type", "Sequence"}, {"normalizers", {prepend, replace}}}, nullptr);
    for (const auto& s : kSentences) {
      CAPTURE(s);
      CHECK(ids(g, s) == ids(h, s));
      CHECK(*g.decode(ids(g, s)) == *h.decode(ids(h, s)));
    }
    // The shipped file itself loads the same way.
    auto shipped =
        formats::load_hf_tokenizer_json(mistral_file(), "/nonexistent/tokenizer.json", "mistral");
    REQUIRE_MESSAGE(shipped.ok(), shipped.error().message);
    for (const auto& s : kSentences) CHECK(ids(*shipped, s) == ids(g, s));
  }
  SUBCASE("no add_space_prefix: a Replace normalizer alone (Gemma)") {
    bpe::Tokenizer g = gguf(false);
    bpe::Tokenizer h = hf(replace, nullptr);
    for (const auto& s : kSentences) {
      CAPTURE(s);
      CHECK(ids(g, s) == ids(h, s));
    }
  }
  SUBCASE("Metaspace always, unsplit: equal but for a run that starts with a space") {
    bpe::Tokenizer g = gguf(true);
    bpe::Tokenizer h = hf(nullptr, {{"type", "Metaspace"},
                                    {"replacement", "▁"},
                                    {"prepend_scheme", "always"},
                                    {"split", false}});
    for (const std::string s :
         {"Hello world", "<s>after a special token</s>and before",
          "naïve café, 日本語 and emoji 🙂", "tabs\tand\nnewlines\n"}) {
      CAPTURE(s);
      CHECK(ids(g, s) == ids(h, s));
    }
    // Metaspace adds no second "▁" where the run has one already.
    CHECK(ids(h, " a leading space") == ids(g, "a leading space"));
    CHECK(ids(h, "▁a replacement") == ids(g, "a replacement"));
    CHECK(ids(h, "<s> x") == ids(g, "<s>x"));
  }
}
