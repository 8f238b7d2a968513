// tok decode [-e ENC] [IDS...]: ids (arguments, or stdin: whitespace-separated
// or a JSON array) back to raw bytes on stdout.
#include <charconv>
#include <vector>

#include "cli/command.hpp"
#include "cli/encoding_options.hpp"
#include "cli/input.hpp"
#include "core/output.hpp"

namespace tok::cli {
namespace {

struct DecodeArgs {
  EncodingOptions enc;
  std::vector<std::string> ids;
};

// Parses ids separated by whitespace and/or commas, optionally in [ ].
Status parse_ids(std::string_view s, const std::string& source, std::vector<bpe::TokenId>& out) {
  std::size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == ',')) ++i;
  };
  skip();
  bool bracket = i < s.size() && s[i] == '[';
  if (bracket) ++i;
  for (;;) {
    skip();
    if (i >= s.size()) break;
    if (bracket && s[i] == ']') {
      ++i;
      skip();
      if (i < s.size()) return make_error("{}: unexpected text after ']' at byte {}", source, i);
      return {};
    }
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    std::size_t len = static_cast<std::size_t>(end - (s.data() + i));
    if (ec != std::errc() || len == 0 || v > 0xffffffffu) {
      std::size_t e = i;
      while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e])) && s[e] != ',') ++e;
      return make_error("{}: '{}' is not a token id (expected non-negative integers)", source,
                        s.substr(i, std::min<std::size_t>(e - i, 40)));
    }
    out.push_back(static_cast<bpe::TokenId>(v));
    i += len;
    if (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != ',' &&
        s[i] != ']') {
      return make_error("{}: unexpected character '{}' at byte {}", source, s[i], i);
    }
  }
  if (bracket) return make_error("{}: missing ']' at the end of the JSON array", source);
  return {};
}

int run_decode(const DecodeArgs& a) {
  auto tk = a.enc.load();
  if (!tk.ok()) return report(tk.error());
  std::vector<bpe::TokenId> ids;
  if (!a.ids.empty()) {
    for (const auto& s : a.ids) {
      auto st = parse_ids(s, "argument", ids);
      if (!st.ok()) return report(st.error());
    }
  } else {
    auto in = open_input("-");
    if (!in.ok()) return report(in.error());
    auto st = parse_ids(in->bytes(), "<stdin>", ids);
    if (!st.ok()) return report(st.error());
  }
  Output out;
  for (bpe::TokenId id : ids) {
    if (!tk->has_token(id)) {
      return report(make_error("unknown token id {} (the vocabulary {} has ids 0..{})", id,
                               tk->name(), tk->vocab_size() - 1));
    }
  }
  if (tk->has_decode_transform()) {
    // SentencePiece-style vocabularies: "▁" back to spaces, prefix space removed.
    auto text = tk->decode(ids);
    if (!text.ok()) return report(text.error());
    out.write(*text);
  } else {
    for (bpe::TokenId id : ids) out.write(tk->token_bytes(id));
  }
  out.flush();
  return 0;
}

}  // namespace

void add_decode(CLI::App& app, Registry& r) {
  auto a = std::make_shared<DecodeArgs>();
  CLI::App* sub = app.add_subcommand("decode", "Write the bytes of token ids to stdout");
  a->enc.add_encoding(sub);
  sub->add_option("IDS", a->ids, "Token ids (default: read from stdin, whitespace or JSON)");
  r.add(sub, [a] { return run_decode(*a); });
}

}  // namespace tok::cli
