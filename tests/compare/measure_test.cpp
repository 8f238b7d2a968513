#include <doctest/doctest.h>

#include <cctype>
#include <cstdlib>
#include <string>

#include "compare/composition.hpp"
#include "compare/corpus.hpp"
#include "compare/measure.hpp"
#include "compare/metrics.hpp"
#include "compare/report.hpp"
#include "compare/segment.hpp"
#include "formats/registry.hpp"

using namespace tok;
using namespace tok::compare;

namespace {

const bpe::Tokenizer& cl100k() {
  static bpe::Tokenizer tk = [] {
    setenv("TOK_VOCAB_DIR", TOK_VOCAB_DIR_FOR_TESTS, 1);
    auto t = formats::load_tokenizer("cl100k_base");
    REQUIRE(t.ok());
    return std::move(*t);
  }();
  return tk;
}

Corpus corpus_of(std::vector<std::pair<std::string, std::string>> samples) {
  Corpus c{"test", {}};
  for (auto& [name, text] : samples) {
    c.samples.push_back({name, name, MappedFile::from_string(text)});
  }
  return c;
}

}  // namespace

TEST_CASE("parallel TSV: columns become samples, rows are checked") {
  auto s = parse_parallel_tsv("en\tde\nriver\tFluss\ntown\tStadt\n", "x.tsv");
  REQUIRE(s.ok());
  REQUIRE(s->size() == 2);
  CHECK((*s)[0].name == "de");
  CHECK((*s)[0].text.bytes() == "Fluss\nStadt\n");
  CHECK((*s)[1].text.bytes() == "river\ntown\n");
  auto bad = parse_parallel_tsv("en\tde\nriver\n", "x.tsv");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message == "x.tsv:2: 1 cells, but the header names 2 samples");
  CHECK(!parse_parallel_tsv("just text\n", "y.tsv").ok());
  CHECK(!parse_parallel_tsv("en\ten\n", "z.tsv").ok());
}

TEST_CASE("line chunks cut only between a printable character + newline and a letter") {
  std::string text = "aaaa\n bbbb\ncccc\n\ndddd\neeee\n\ffff. \ngggg";
  auto cuts = line_chunks(text, 4);
  CHECK(cuts.front() == 0);
  CHECK(cuts.back() == text.size());
  CHECK(cuts == std::vector<std::size_t>{0, 11, 22, text.size()});
  for (std::size_t i = 1; i + 1 < cuts.size(); ++i) {
    CHECK(text[cuts[i] - 1] == '\n');
    CHECK(text[cuts[i] - 2] > ' ');
    CHECK(std::isalpha(static_cast<unsigned char>(text[cuts[i]])));
  }
  CHECK(line_chunks("short", 100).size() == 2);
}

TEST_CASE("chunk size: 4 MiB, larger for large corpora, at most 64 MiB") {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  CHECK(chunk_size(10 * kMiB, 2) == 4 * kMiB);
  CHECK(chunk_size(640 * kMiB, 2) == 40 * kMiB);  // 8 chunks a thread
  CHECK(chunk_size(640 * kMiB, 16) == 5 * kMiB);
  CHECK(chunk_size(std::size_t{100} << 30, 1) == 64 * kMiB);
  CHECK(chunk_size(kMiB, 0) == 4 * kMiB);
}

TEST_CASE("samples of a named-scanner vocabulary are cut into chunks") {
  // A probe that never found its cut once left every sample whole.
  CHECK(cl100k().can_cut());
  // And continued words take the path through token ids.
  CHECK(cl100k().tiles_input(bpe::SpecialMode::kText));
  CHECK(cl100k().tiles_input(bpe::SpecialMode::kAllow));  // specials are their own text
}

TEST_CASE("measure: tokens equal Tokenizer::count; threads and chunks change nothing") {
  std::string big;
  for (int i = 0; i < 3000; ++i) big += "The river rose quickly. Река поднялась! 河水上涨了。\n";
  Corpus c = corpus_of(
      {{"en", "There is a small town beside a wide, slow river.\n"}, {"mix", big}, {"empty", ""}});
  std::vector<const bpe::Tokenizer*> v{&cl100k()};
  MeasureOptions one;
  one.threads = 1;
  auto a = measure(c, v, one);
  REQUIRE(a.ok());
  MeasureOptions many;
  many.threads = 4;
  many.chunk_bytes = 1000;  // many chunks
  auto b = measure(c, v, many);
  REQUIRE(b.ok());
  for (std::size_t i = 0; i < c.samples.size(); ++i) {
    auto n = cl100k().count(c.samples[i].text.bytes(), bpe::SpecialMode::kText);
    REQUIRE(n.ok());
    CHECK((*a)[i].vocab[0].tokens == *n);
    CHECK((*b)[i].vocab[0].tokens == *n);
    CHECK((*a)[i].vocab[0].continued_words == (*b)[i].vocab[0].continued_words);
    CHECK((*a)[i].text.words == (*b)[i].text.words);
    CHECK((*a)[i].text.graphemes == (*b)[i].text.graphemes);
  }
  CHECK((*a)[0].text.words == 10);
  CHECK((*a)[0].text.graphemes == 49);
  CHECK((*a)[0].main_script == "Latin");
  CHECK((*a)[2].vocab[0].tokens == 0);
  MeasureOptions fast = many;
  fast.words = false;
  auto f = measure(c, v, fast);
  REQUIRE(f.ok());
  CHECK((*f)[1].vocab[0].tokens == (*a)[1].vocab[0].tokens);
  CHECK((*f)[1].text.words == 0);
}

TEST_CASE("measure: continued words from token ids equal those from ICU words and token spans") {
  // measure() counts them from WordBits and the ids of a vocabulary whose
  // tokens tile the text; the reference is plain ICU and encode_spans.
  std::string mixed;
  for (int i = 0; i < 200; ++i) {
    mixed +=
        "Der Fluss stieg schnell, 3.14 km/h. Река поднялась! नदी तेज़ी से बढ़ी। 河水上涨了。"
        " don't x_y __init__ caf\xC3\xA9 e\xCC\x81 \xF0\x9F\x98\x80\r\n";
  }
  Corpus c =
      corpus_of({{"mixed", mixed}, {"en", "There is a small town beside a wide, slow river.\n"}});
  std::vector<const bpe::Tokenizer*> v{&cl100k()};
  MeasureOptions o;
  o.chunk_bytes = 3000;
  auto m = measure(c, v, o);
  REQUIRE(m.ok());
  auto seg = Segmenter::create();
  REQUIRE(seg.ok());
  std::vector<std::uint32_t> lengths(cl100k().vocab_size());
  for (std::size_t id = 0; id < lengths.size(); ++id) {
    lengths[id] =
        static_cast<std::uint32_t>(cl100k().token_bytes(static_cast<bpe::TokenId>(id)).size());
  }
  for (std::size_t i = 0; i < c.samples.size(); ++i) {
    std::string_view text = c.samples[i].text.bytes();
    std::vector<ByteSpan> words;
    seg->word_spans_icu(text, words);
    std::vector<bpe::TokenSpan> spans;
    REQUIRE(cl100k().encode_spans(text, bpe::SpecialMode::kText, spans).ok());
    CHECK((*m)[i].text.words == words.size());
    CHECK((*m)[i].vocab[0].tokens == spans.size());
    CHECK((*m)[i].vocab[0].continued_words == count_continued_words(words, spans));
  }
}

TEST_CASE("report: baseline premium is 1, rows sorted worst first") {
  Corpus c = corpus_of(
      {{"en", "The river is beautiful.\n"}, {"ru", "Река красивая.\n"}, {"my", "မြစ်သည် လှပသည်။\n"}});
  std::vector<const bpe::Tokenizer*> v{&cl100k()};
  auto counts = measure(c, v, {});
  REQUIRE(counts.ok());
  std::vector<VocabColumn> cols{{"cl100k_base", "cl100k_base", cl100k().vocab_size(), {}, {}}};
  CorpusTable t = build_table(c, *counts, cols, "en", true);
  REQUIRE(t.baseline);
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows.front().sample == "my");
  CHECK(t.rows.front().worst);
  CHECK(t.rows.back().sample == "en");
  CHECK(*t.rows.back().metrics[0].premium == 1.0);
  CorpusTable none = build_table(c, *counts, cols, "xx", true);
  CHECK(!none.baseline);
  CHECK(!none.rows[0].metrics[0].premium);
}

TEST_CASE("composition: scripts of tokens, partial UTF-8, overlap with itself") {
  CHECK(token_script(" the") == "Latin");
  CHECK(token_script("ing") == "Latin");
  CHECK(token_script(" 123") == "Common");
  CHECK(token_script("Река") == "Cyrillic");
  CHECK(token_script("的") == "Han");
  CHECK(token_script("aя") == "Mixed");
  CHECK(token_script("\xe7\x9a") == "");  // first two bytes of 的
  Composition comp = compose(cl100k());
  CHECK(comp.tokens == 100256);
  CHECK(comp.partial > 0);
  CHECK(comp.partial < comp.tokens / 10);
  CHECK(comp.scripts.front().script == "Latin");
  CHECK(comp.mean_bytes > 3.0);
  CHECK(comp.mean_bytes < 10.0);
  CHECK(jaccard(cl100k(), cl100k()) == 1.0);
}
