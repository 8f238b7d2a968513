// render_json: the whole report for programs. Schema (stable; new keys may be
// added): {tool, words_measured, vocabularies: [{label, spec, vocab_size,
// model?, price_input_per_mtok?}], corpora: [{name, baseline, samples:
// [{name, script, bytes, graphemes, words, worst, results: [{vocabulary,
// tokens, continued_words, bytes_per_token, chars_per_token, fertility,
// continued, premium, cost_per_1k_words}]}]}], composition: [...],
// overlap: {vocabularies, jaccard}}. Absent ratios are null.
#include <nlohmann/json.hpp>

#include "compare/report.hpp"
#include "text/escape.hpp"

namespace tok::compare {
namespace {

using Json = nlohmann::ordered_json;

Json number(std::optional<double> v) { return v ? Json(*v) : Json(nullptr); }

Json sample_json(const Report& rep, const Row& r) {
  Json s;
  s["name"] = r.sample;
  s["script"] = r.script;
  s["bytes"] = r.text.bytes;
  s["graphemes"] = rep.words ? Json(r.text.graphemes) : Json(nullptr);
  s["words"] = rep.words ? Json(r.text.words) : Json(nullptr);
  s["worst"] = r.worst;
  s["results"] = Json::array();
  for (std::size_t v = 0; v < rep.vocabs.size(); ++v) {
    const Metrics& m = r.metrics[v];
    s["results"].push_back({
        {"vocabulary", rep.vocabs[v].label},
        {"tokens", r.counts[v].tokens},
        {"continued_words", rep.words ? Json(r.counts[v].continued_words) : Json(nullptr)},
        {"bytes_per_token", number(m.bytes_per_token)},
        {"chars_per_token", number(m.chars_per_token)},
        {"fertility", number(m.fertility)},
        {"continued", number(m.continued)},
        {"premium", number(m.premium)},
        {"cost_per_1k_words", number(m.cost_per_1k_words)},
    });
  }
  return s;
}

}  // namespace

std::string render_json(const Report& rep) {
  Json j;
  j["tool"] = "tok compare";
  j["words_measured"] = rep.words;
  j["vocabularies"] = Json::array();
  for (const auto& v : rep.vocabs) {
    Json o{{"label", v.label}, {"spec", v.spec}, {"vocab_size", v.vocab_size}};
    if (v.model) o["model"] = *v.model;
    if (v.price_per_mtok) o["price_input_per_mtok"] = *v.price_per_mtok;
    j["vocabularies"].push_back(o);
  }
  j["corpora"] = Json::array();
  for (const CorpusTable& t : rep.corpora) {
    Json c{{"name", t.name}, {"baseline", t.baseline ? Json(*t.baseline) : Json(nullptr)}};
    c["samples"] = Json::array();
    for (const Row& r : t.rows) c["samples"].push_back(sample_json(rep, r));
    j["corpora"].push_back(c);
  }
  j["composition"] = Json::array();
  for (std::size_t v = 0; v < rep.composition.size(); ++v) {
    const Composition& c = rep.composition[v];
    Json scripts = Json::array();
    for (const auto& s : c.scripts) scripts.push_back({{"script", s.script}, {"tokens", s.tokens}});
    j["composition"].push_back({{"vocabulary", rep.vocabs[v].label},
                                {"tokens", c.tokens},
                                {"partial_utf8", c.partial},
                                {"mean_bytes", c.mean_bytes},
                                {"mean_chars", c.mean_chars},
                                {"scripts", scripts}});
  }
  Json names = Json::array();
  for (const auto& v : rep.vocabs) names.push_back(v.label);
  j["overlap"] = {{"vocabularies", names}, {"jaccard", rep.jaccard}};
  return text::escape_json_controls(
             j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) +
         "\n";
}

}  // namespace tok::compare
