#include "formats/hf_json_writer.hpp"

#include <nlohmann/json.hpp>

#include "bpe/encoder.hpp"
#include "formats/byte_level.hpp"

namespace tok::formats {
namespace {

// The pattern as Hugging Face's regex engine (Oniguruma, Ruby syntax) reads
// it. Onig has possessive *+ ++ ?+ but reads "{1,3}+" as "{1,3}" repeated
// one or more times, which would glue digit runs together. A possessive
// interval at the end of an alternative never backtracks anyway, so dropping
// the "+" keeps the same splits.
std::string onig_pattern(std::string_view pattern) {
  std::string out(pattern);
  for (std::size_t p = 0; (p = out.find("}+", p)) != std::string::npos;) {
    std::size_t open = out.rfind('{', p);
    bool interval =
        open != std::string::npos && out.find_first_not_of("0123456789,", open + 1) == p;
    if (interval) {
      out.erase(p + 1, 1);
    } else {
      p += 2;
    }
  }
  return out;
}

}  // namespace

std::string write_hf_tokenizer_json(const bpe::MergeTable& table, std::string_view pattern_regex,
                                    const std::vector<bpe::SpecialToken>& specials) {
  using json = nlohmann::ordered_json;
  json vocab = json::object();
  json merges = json::array();
  bpe::EncodeScratch scratch;
  std::vector<bpe::TokenId> parts;
  for (bpe::TokenId id = 0; id < table.size(); ++id) {
    std::string_view b = table.bytes(id);
    vocab[byte_level_encode(b)] = id;
    if (b.size() < 2) continue;
    parts.clear();
    bpe::merge_symbols(table, b, table.priority(id), false, parts, scratch);
    if (parts.size() != 2) continue;
    merges.push_back(byte_level_encode(table.bytes(parts[0])) + " " +
                     byte_level_encode(table.bytes(parts[1])));
  }
  json added = json::array();
  for (const auto& s : specials) {
    added.push_back({{"id", s.id},
                     {"content", s.text},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  json j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  j["added_tokens"] = added;
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers", json::array({{{"type", "Split"},
                                      {"pattern", {{"Regex", onig_pattern(pattern_regex)}}},
                                      {"behavior", "Isolated"},
                                      {"invert", false}},
                                     {{"type", "ByteLevel"},
                                      {"add_prefix_space", false},
                                      {"trim_offsets", true},
                                      {"use_regex", false}}})}};
  j["post_processor"] = nullptr;
  j["decoder"] = {{"type", "ByteLevel"},
                  {"add_prefix_space", true},
                  {"trim_offsets", true},
                  {"use_regex", true}};
  j["model"] = {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"continuing_subword_prefix", nullptr},
                {"end_of_word_suffix", nullptr},
                {"fuse_unk", false},
                {"byte_fallback", false},
                {"ignore_merges", true},
                {"vocab", vocab},
                {"merges", merges}};
  return j.dump(1, ' ', false, json::error_handler_t::strict) + "\n";
}

}  // namespace tok::formats
