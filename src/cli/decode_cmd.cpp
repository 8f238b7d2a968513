// tok decode [-e ENC] [IDS...]: ids (arguments, or stdin: whitespace-separated
// or a JSON array) back to raw bytes on stdout; a pipe as it arrives.
#include <fmt/format.h>
#include <unistd.h>

#include <span>
#include <vector>

#include "cli/command.hpp"
#include "cli/encoding_options.hpp"
#include "cli/id_parser.hpp"
#include "cli/input.hpp"
#include "core/mapped_file.hpp"
#include "core/output.hpp"

namespace tok::cli {
namespace {

struct DecodeArgs {
  EncodingOptions enc;
  std::vector<std::string> ids;
};

// How many of ids, from the first, the vocabulary has; the error for the
// first it lacks.
std::size_t known_prefix(const bpe::Tokenizer& tk, std::span<const bpe::TokenId> ids) {
  std::size_t n = 0;
  while (n < ids.size() && tk.has_token(ids[n])) ++n;
  return n;
}

Error unknown_id(const bpe::Tokenizer& tk, bpe::TokenId id) {
  return make_error("unknown token id {} (the vocabulary {} has ids 0..{})", id, tk.name(),
                    tk.vocab_size() - 1);
}

// The positions of the vocabulary's unknown token among the decoded ids.
// Encode gives it for bytes that have no token (a SentencePiece vocabulary
// without that byte-fallback token), so decode cannot give those bytes back:
// one warning says where, after the output (docs/encode.md). Only for
// vocabularies that lack a byte token: where every byte has one, the unk id
// (some files name <|endoftext|>) never stands for lost bytes.
class UnkPositions {
 public:
  explicit UnkPositions(const bpe::Tokenizer& tk)
      : unk_(tk.table().options().unk), text_(tk.token_bytes(unk_)), vocab_(tk.name()) {
    for (int b = 0; b < 256 && unk_ != bpe::kNoToken && !lacks_byte_; ++b) {
      lacks_byte_ = tk.table().byte_token(static_cast<unsigned char>(b)) == unk_;
    }
  }
  // ids are the decoded ids from position `base` of the whole list.
  void scan(std::span<const bpe::TokenId> ids, std::size_t base) {
    if (!lacks_byte_) return;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] != unk_) continue;
      if (first_.size() < kListed) first_.push_back(base + i);
      ++count_;
    }
  }
  void warn_if_any() const {
    if (count_ == 0) return;
    std::string at;
    for (std::size_t p : first_) at += (at.empty() ? "" : ", ") + std::to_string(p);
    if (count_ > first_.size()) at += fmt::format(" and {} more", count_ - first_.size());
    warn(
        fmt::format("id {} ({}) at position{} {} (counting from 0) stand{} for bytes that have "
                    "no token in {}: decode cannot give them back",
                    unk_, one_line(std::string(text_)), count_ == 1 ? "" : "s", at,
                    count_ == 1 ? "s" : "", vocab_));
  }

 private:
  static constexpr std::size_t kListed = 10;
  bpe::TokenId unk_;
  bool lacks_byte_ = false;  // some byte encodes as unk_
  std::string_view text_;
  std::string vocab_;
  std::vector<std::size_t> first_;
  std::size_t count_ = 0;
};

// All ids at once: checked before anything is written.
int decode_all(const bpe::Tokenizer& tk, const std::vector<bpe::TokenId>& ids) {
  if (std::size_t n = known_prefix(tk, ids); n < ids.size()) return report(unknown_id(tk, ids[n]));
  UnkPositions unk(tk);
  unk.scan(ids, 0);
  Output out;
  if (tk.has_decode_transform()) {
    // SentencePiece-style vocabularies: "▁" back to spaces, prefix space removed.
    auto text = tk.decode(ids);
    if (!text.ok()) return report(text.error());
    out.write(*text);
  } else {
    for (bpe::TokenId id : ids) out.write(tk.token_bytes(id));
  }
  out.flush();
  unk.warn_if_any();
  return 0;
}

// Ids from a pipe, decoded as they arrive (`yes 1 2 | tok decode | head`
// ends): the bytes before a bad id are written by the time it is found.
// Only for vocabularies without a decode transform, whose bytes are just
// the tokens' (a transform such as SentencePiece's prefix-space removal
// applies to the whole text: those read all ids first).
int decode_stream(const bpe::Tokenizer& tk, int fd) {
  IdParser parser("<stdin>");
  std::vector<bpe::TokenId> ids;
  std::string block(std::size_t{1} << 20, '\0');
  Output out;
  UnkPositions unk(tk);
  std::size_t done = 0;           // ids written before this block's
  auto write = [&]() -> Status {  // the ids parsed so far, up to an unknown one
    std::size_t n = known_prefix(tk, ids);
    for (std::size_t i = 0; i < n; ++i) out.write(tk.token_bytes(ids[i]));
    unk.scan(std::span(ids).first(n), done);
    done += n;
    Status st = n < ids.size() ? Status(unknown_id(tk, ids[n])) : Status{};
    ids.clear();
    return st;
  };
  for (;;) {
    auto r = read_some(fd, block.data(), block.size(), "<stdin>");
    if (!r.ok()) {
      out.flush();
      return report(r.error());
    }
    if (*r == 0) break;
    Status st = parser.feed(std::string_view(block).substr(0, *r), ids);
    Status wst = write();
    if (!st.ok() || !wst.ok()) {
      out.flush();
      return report(!wst.ok() ? wst.error() : st.error());
    }
    out.flush();  // a slow pipe's bytes go out as they are decoded
  }
  Status st = parser.finish(ids);
  Status wst = write();
  out.flush();
  unk.warn_if_any();
  if (!st.ok()) return report(st.error());
  if (!wst.ok()) return report(wst.error());
  return 0;
}

int run_decode(const DecodeArgs& a) {
  auto tk = a.enc.load();
  if (!tk.ok()) return report(tk.error());
  std::vector<bpe::TokenId> ids;
  if (!a.ids.empty()) {
    for (const auto& s : a.ids) {
      // An argument that is not ids but names a file is a file of ids
      // (`tok decode ids.txt`); "12" stays the id 12 even if a file has that name.
      bool ids_text = s.find_first_not_of("0123456789[], \t\r\n") == std::string::npos;
      if (!ids_text && ::access(s.c_str(), F_OK) == 0) {
        auto in = MappedFile::open(s);
        if (!in.ok()) return report(in.error());
        auto st = parse_ids(in->bytes(), s, ids);
        if (!st.ok()) return report(st.error());
        continue;
      }
      auto st = parse_ids(s, "argument", ids);
      if (!st.ok()) return report(st.error());
    }
    return decode_all(*tk, ids);
  }
  if (is_stream(0) && !tk->has_decode_transform()) return decode_stream(*tk, 0);
  auto in = open_input("-");
  if (!in.ok()) return report(in.error());
  auto st = parse_ids(in->bytes(), "<stdin>", ids);
  if (!st.ok()) return report(st.error());
  return decode_all(*tk, ids);
}

}  // namespace

void add_decode(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<DecodeArgs>();
  CLI::App* sub = app.add_subcommand("decode", "Write the bytes of token ids to stdout");
  a->enc.add_encoding(sub);
  sub->add_option("IDS", a->ids,
                  "Token ids, or files of them (default: read from stdin, whitespace or JSON)");
  commands.add(sub, [a] { return run_decode(*a); });
}

}  // namespace tok::cli
