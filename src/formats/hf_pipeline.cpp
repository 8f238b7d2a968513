#include "formats/hf_pipeline.hpp"

#include <functional>

#include "formats/json_error.hpp"
#include "formats/sentencepiece_spaces.hpp"
#include "text/alignment.hpp"
#include "text/normalize.hpp"

namespace tok::formats {
namespace {

using json = nlohmann::json;
using Alignment = std::vector<std::size_t>;
// One text step; `offset` is where the segment starts in the input. Fills
// *to_input (when given) with the alignment of its result with its input.
using Step = std::function<std::string(std::string_view, std::size_t offset, Alignment* to_input)>;

// A step that leaves this text as it is.
std::string unchanged(std::string_view s, Alignment* to_input) {
  if (to_input) text::identity_alignment(s.size(), *to_input);
  return std::string(s);
}

std::string str_or(const json& j, const char* key, std::string def) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : def;
}
bool bool_or(const json& j, const char* key, bool def) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : def;
}

// Escapes a literal for PCRE2.
std::string quote_regex(std::string_view s) { return "\\Q" + std::string(s) + "\\E"; }

// Sequences of normalizers, pre-tokenizers or decoders nest a few levels in
// real files; a hostile one nested thousands deep is refused.
constexpr std::size_t kMaxSequenceDepth = 64;

struct Builder {
  const std::string& source;
  HfPipeline out;
  std::vector<Step> steps;

  Error unsupported(std::string_view what, std::string_view type) {
    return make_error("{}: {} '{}' is not supported yet", source, what, type);
  }
  void note(std::string_view s) {
    if (!out.describe.empty()) out.describe += ", ";
    out.describe += s;
  }

  Status too_deep(std::string_view what, std::size_t depth) {
    if (depth <= kMaxSequenceDepth) return {};
    return make_error("{}: {} Sequence nested deeper than {} levels", source, what,
                      kMaxSequenceDepth);
  }

  void add_spaces(SentencePieceSpaces spaces) {
    steps.push_back(
        [spaces = std::move(spaces)](std::string_view s, std::size_t offset, Alignment* a) {
          return spaces.encode(s, offset, a);
        });
  }

  // Prepend(P) then Replace(" " -> P), the normalizers of llama and Mistral
  // files: SentencePiece's dummy prefix on every run and spaces as P.
  bool sentencepiece_prefix(const json& first, const json& second) {
    if (str_or(first, "type", "") != "Prepend" || str_or(second, "type", "") != "Replace") {
      return false;
    }
    std::string p = str_or(first, "prepend", "");
    const json& pat = member(second, "pattern");
    if (p.empty() || !pat.is_object() || str_or(pat, "String", "") != " " ||
        str_or(second, "content", "") != p) {
      return false;
    }
    note("Prepend");
    note("Replace");
    add_spaces({p, SentencePieceSpaces::Prepend::kAlways, false});
    return true;
  }

  Status normalizer(const json& n, std::size_t depth = 0) {
    if (n.is_null()) return {};
    TOK_TRY(too_deep("normalizer", depth));
    std::string type = str_or(n, "type", "");
    if (type == "Sequence") {
      std::vector<const json*> list;
      for (const auto& x : member(n, "normalizers")) list.push_back(&x);
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (i + 1 < list.size() && sentencepiece_prefix(*list[i], *list[i + 1])) {
          ++i;
          continue;
        }
        TOK_TRY(normalizer(*list[i], depth + 1));
      }
      return {};
    }
    note(type);
    if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
      steps.push_back([type](std::string_view s, std::size_t, Alignment* a) {
        return text::unicode_normalize(s, type, a);
      });
    } else if (type == "Lowercase") {
      steps.push_back([](std::string_view s, std::size_t, Alignment* a) {
        return text::unicode_lowercase(s, a);
      });
    } else if (type == "Prepend") {
      std::string p = str_or(n, "prepend", "");
      steps.push_back([p](std::string_view s, std::size_t, Alignment* a) {
        return s.empty() ? unchanged(s, a) : text::prepend(s, p, a);
      });
    } else if (type == "Replace") {
      const json& pat = member(n, "pattern");
      if (!pat.contains("String") || !pat["String"].is_string()) {
        return unsupported("normalizer", "Replace with a Regex pattern");
      }
      std::string from = pat["String"], to = str_or(n, "content", "");
      steps.push_back([from, to](std::string_view s, std::size_t, Alignment* a) {
        return text::replace_all(s, from, to, a);
      });
    } else if (type == "Strip") {
      bool left = bool_or(n, "strip_left", true), right = bool_or(n, "strip_right", true);
      steps.push_back([left, right](std::string_view s, std::size_t, Alignment* a) {
        return text::strip(s, left, right, a);
      });
    } else {
      return unsupported("normalizer", type);
    }
    return {};
  }

  Status add_regex(const std::string& pattern) {
    auto named = text::PreTokenizer::named(pattern);
    auto p = named.ok() ? std::move(named) : text::PreTokenizer::from_regex(pattern);
    if (!p.ok()) return make_error("{}: split pattern: {}", source, p.error().message);
    out.pre.push_back(std::move(p).value());
    return {};
  }

  Status pretokenizer(const json& p, bool first, std::size_t depth = 0) {
    if (p.is_null()) return {};
    TOK_TRY(too_deep("pre-tokenizer", depth));
    std::string type = str_or(p, "type", "");
    if (type == "Sequence") {
      bool f = first;
      for (const auto& x : member(p, "pretokenizers")) {
        TOK_TRY(pretokenizer(x, f, depth + 1));
        f = false;
      }
      return {};
    }
    note(type);
    if (type == "ByteLevel") {
      out.byte_level = true;
      if (bool_or(p, "add_prefix_space", false)) {
        if (!first || !out.pre.empty())
          return unsupported("pre-tokenizer", "ByteLevel with add_prefix_space after a split");
        steps.push_back([](std::string_view s, std::size_t, Alignment* a) {
          return s.starts_with(' ') ? unchanged(s, a) : text::prepend(s, " ", a);
        });
      }
      if (bool_or(p, "use_regex", true)) TOK_TRY(add_regex("gpt2"));
      return {};
    }
    if (type == "Split") {
      // HF splits by matches; tok's pre-tokenizers emit matches and gaps
      // ("Isolated"). The other behaviors are rewritten as Isolated regexes.
      std::string behavior = str_or(p, "behavior", "Isolated");
      bool invert = bool_or(p, "invert", false);
      const json& pat = member(p, "pattern");
      bool is_string = pat.contains("String") && pat["String"].is_string();
      if (!is_string && !(pat.contains("Regex") && pat["Regex"].is_string())) {
        return make_error("{}: Split pre-tokenizer without a Regex or String pattern", source);
      }
      std::string re = is_string ? quote_regex(pat["String"].get<std::string>())
                                 : pat["Regex"].get<std::string>();
      // Removed + invert keeps the matches; tiktoken-style patterns match
      // every character, so nothing is removed and it equals Isolated.
      if ((behavior == "Isolated" && !invert) || (behavior == "Removed" && invert)) {
        return add_regex(re);
      }
      if (is_string && !invert && behavior == "MergedWithPrevious") {
        return add_regex("(?s)(?:(?!" + re + ").)*" + re + "|(?:(?!" + re + ").)+");
      }
      if (is_string && !invert && behavior == "MergedWithNext") {
        return add_regex("(?s)" + re + "(?:(?!" + re + ").)*|(?:(?!" + re + ").)+");
      }
      return unsupported("Split behavior", behavior + (invert ? " (inverted)" : ""));
    }
    if (type == "Digits") {
      return add_regex(bool_or(p, "individual_digits", false) ? "\\p{N}" : "\\p{N}+");
    }
    if (type == "Metaspace") {
      if (!first || !out.pre.empty())
        return unsupported("pre-tokenizer", "Metaspace after a split");
      std::string rep = str_or(p, "replacement", "\u2581");
      std::string scheme = str_or(p, "prepend_scheme", "");
      if (scheme.empty()) scheme = bool_or(p, "add_prefix_space", true) ? "always" : "never";
      SentencePieceSpaces spaces{rep, {}, true};  // Metaspace: no second prefix before a space
      if (!parse_prepend_scheme(scheme, spaces.prepend)) {
        return unsupported("Metaspace prepend_scheme", scheme);
      }
      add_spaces(std::move(spaces));
      if (bool_or(p, "split", true)) {
        TOK_TRY(add_regex("(?s)" + quote_regex(rep) + "(?:(?!" + quote_regex(rep) + ").)*|(?:(?!" +
                          quote_regex(rep) + ").)+"));
      }
      return {};
    }
    return unsupported("pre-tokenizer", type);
  }

  // Decoders: byte-level needs nothing (tok keeps raw bytes); SentencePiece
  // style maps the replacement character back to spaces and strips the
  // prefix space the encoder added.
  Status decoder(const json& d) {
    if (d.is_null()) return {};
    std::string rep;
    bool strip_first = false;
    std::function<Status(const json&, std::size_t)> visit = [&](const json& x,
                                                                std::size_t depth) -> Status {
      TOK_TRY(too_deep("decoder", depth));
      std::string type = str_or(x, "type", "");
      if (type == "Sequence") {
        for (const auto& y : member(x, "decoders")) TOK_TRY(visit(y, depth + 1));
      } else if (type == "Metaspace") {
        rep = str_or(x, "replacement", "\u2581");
        std::string scheme = str_or(x, "prepend_scheme", "always");
        strip_first = scheme != "never" && bool_or(x, "add_prefix_space", true);
      } else if (type == "Replace") {
        const json& pat = member(x, "pattern");
        if (pat.contains("String") && str_or(x, "content", "") == " ") rep = pat["String"];
      } else if (type == "Strip") {
        const json& start = member(x, "start");
        strip_first = start.is_number() && start.get<double>() > 0;
      }
      return {};
    };
    TOK_TRY(visit(d, 0));
    if (rep.empty()) return {};
    out.decode = [spaces = SentencePieceSpaces{rep, {}, false}, strip_first](std::string_view s) {
      return spaces.decode(s, strip_first);
    };
    return {};
  }
};

}  // namespace

Result<HfPipeline> build_hf_pipeline(const json& normalizer, const json& pre_tokenizer,
                                     const json& decoder, const std::string& source) {
  Builder b{source, {}, {}};
  TOK_TRY(b.normalizer(normalizer));
  TOK_TRY(b.pretokenizer(pre_tokenizer, true));
  TOK_TRY(b.decoder(decoder));
  if (!b.steps.empty()) {
    b.out.segment = [steps = std::move(b.steps)](std::string_view s, std::size_t offset,
                                                 Alignment* to_input) {
      std::string t(s);
      Alignment step;
      if (to_input) text::identity_alignment(s.size(), *to_input);
      for (const auto& f : steps) {
        std::string next = f(t, offset, to_input ? &step : nullptr);
        if (to_input) {
          text::compose_alignment(*to_input, step);
          to_input->swap(step);
        }
        t = std::move(next);
      }
      return t;
    };
  }
  return std::move(b.out);
}

}  // namespace tok::formats
