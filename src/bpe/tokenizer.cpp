#include "bpe/tokenizer.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "core/first_error.hpp"

namespace tok::bpe {

Tokenizer::Tokenizer(std::string name, MergeTable table, std::vector<text::PreTokenizer> pre,
                     std::vector<SpecialToken> specials)
    : name_(std::move(name)),
      table_(std::move(table)),
      pre_(std::move(pre)),
      specials_(std::move(specials)),
      special_first_(256, 0) {
  vocab_size_ = table_.size();
  int firsts = 0;
  for (const auto& s : specials_) {
    if (!s.text.empty() && !special_first_[static_cast<unsigned char>(s.text[0])]) {
      special_first_[static_cast<unsigned char>(s.text[0])] = 1;
      only_first_ = static_cast<unsigned char>(s.text[0]);
      ++firsts;
    }
    has_always_ = has_always_ || s.always;
    vocab_size_ = std::max<std::size_t>(vocab_size_, std::size_t{s.id} + 1);
  }
  if (firsts != 1) only_first_ = -1;
  // Longest match first when two specials start at the same place.
  std::stable_sort(specials_.begin(), specials_.end(),
                   [](const SpecialToken& a, const SpecialToken& b) {
                     return a.text.size() > b.text.size();
                   });
}

bool Tokenizer::is_special(TokenId id) const {
  for (const auto& s : specials_) {
    if (s.id == id) return true;
  }
  return false;
}

bool Tokenizer::has_token(TokenId id) const { return table_.has(id) || is_special(id); }

std::string_view Tokenizer::token_bytes(TokenId id) const {
  for (const auto& s : specials_) {
    if (s.id == id) return s.text;
  }
  if (table_.has(id)) return table_.bytes(id);
  return {};
}

std::string Tokenizer::apply_transform(std::string_view text) const {
  return transform_ ? transform_(text) : std::string(text);
}

std::pair<std::size_t, std::size_t> Tokenizer::find_special(std::string_view text,
                                                            std::size_t from, Match which) const {
  if (specials_.empty()) return {std::string_view::npos, 0};
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = from; i < text.size(); ++i) {
    if (only_first_ >= 0) {
      // All specials start with one byte ('<' for tiktoken's): memchr to it.
      const void* hit = std::memchr(p + i, only_first_, text.size() - i);
      if (!hit) break;
      i = static_cast<std::size_t>(static_cast<const unsigned char*>(hit) - p);
    } else if (!special_first_[p[i]]) {
      continue;
    }
    for (std::size_t k = 0; k < specials_.size(); ++k) {
      if (which == Match::kAlways && !specials_[k].always) continue;
      if (which == Match::kRefusable && specials_[k].always) continue;
      const std::string& s = specials_[k].text;
      if (!s.empty() && text.compare(i, s.size(), s) == 0) return {i, k};
    }
  }
  return {std::string_view::npos, 0};
}

template <class F>
void Tokenizer::split_level(std::size_t level, std::string_view text, F& f) const {
  if (level + 1 == pre_.size()) {
    pre_[level].split(text, f);
  } else {
    pre_[level].split(text, [&](std::string_view piece) { split_level(level + 1, piece, f); });
  }
}

template <class F>
void Tokenizer::for_each_piece(std::string_view text, F&& f) const {
  if (pre_.empty()) {
    if (!text.empty()) f(text);
    return;
  }
  split_level(0, text, f);
}

bool Tokenizer::segmented(SpecialMode mode) const {
  return segment_transform_ || has_always_ || (mode == SpecialMode::kAllow && !specials_.empty());
}

namespace {
bool is_space_byte(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

template <class O, class S>
void Tokenizer::for_each_segment(std::string_view text, SpecialMode mode, O&& ordinary,
                                 S&& special) const {
  Match which = mode == SpecialMode::kAllow ? Match::kAll : Match::kAlways;
  auto emit = [&](std::size_t b, std::size_t e) {
    if (e <= b) return;
    std::string_view run = text.substr(b, e - b);
    if (!segment_transform_) return ordinary(run, b);
    std::string t = segment_transform_(run, b);
    ordinary(std::string_view(t), b);
  };
  std::size_t pos = 0;
  for (;;) {
    auto [at, k] = find_special(text, pos, which);
    if (at == std::string_view::npos) break;
    const SpecialToken& sp = specials_[k];
    std::size_t end = at;
    if (sp.lstrip) {
      while (end > pos && is_space_byte(text[end - 1])) --end;
    }
    emit(pos, end);
    special(sp.id, at);
    pos = at + sp.text.size();
    if (sp.rstrip) {
      while (pos < text.size() && is_space_byte(text[pos])) ++pos;
    }
  }
  emit(pos, text.size());
}

template <class O, class S>
void Tokenizer::for_each_special(std::string_view text, O&& ordinary, S&& special) const {
  std::size_t pos = 0;
  for (;;) {
    auto [at, k] = find_special(text, pos);
    if (at == std::string_view::npos) break;
    ordinary(text.substr(pos, at - pos));
    special(specials_[k].id, at);
    pos = at + specials_[k].text.size();
  }
  ordinary(text.substr(pos));
}

Status Tokenizer::check_no_specials(std::string_view text, std::uint64_t offset) const {
  auto [pos, k] = find_special(text, 0, Match::kRefusable);
  if (pos == std::string_view::npos) return {};
  return make_error(
      "the text contains the special token {} at byte {}; pass --special allow to encode it as "
      "a special token or --special text to encode it as ordinary text",
      specials_[k].text, offset + pos);
}

void Tokenizer::encode_ordinary(std::string_view text, std::vector<TokenId>* out,
                                std::size_t* count, EncodeScratch& scratch) const {
  // Pieces go to the encoder in batches (encode_pieces overlaps their cache
  // misses); they are views into text, valid until this returns.
  std::string_view batch[kPieceBatch];
  std::size_t n = 0;
  for_each_piece(text, [&](std::string_view piece) {
    batch[n++] = piece;
    if (n == kPieceBatch) {
      encode_pieces(table_, batch, n, out, count, scratch);
      n = 0;
    }
  });
  if (n) encode_pieces(table_, batch, n, out, count, scratch);
}

std::size_t Tokenizer::count_ordinary(std::string_view text, EncodeScratch& scratch) const {
  std::size_t n = 0;
  encode_ordinary(text, nullptr, &n, scratch);
  return n;
}

Status Tokenizer::encode(std::string_view input, SpecialMode mode, std::vector<TokenId>& out,
                         EncodeScratch& scratch) const {
  if (!transform_) return encode_prepared(input, mode, out, scratch);
  std::string transformed = transform_(input);
  return encode_prepared(transformed, mode, out, scratch);
}

Status Tokenizer::encode_prepared(std::string_view text, SpecialMode mode,
                                  std::vector<TokenId>& out, EncodeScratch& scratch) const {
  auto ordinary = [&](std::string_view t) { encode_ordinary(t, &out, nullptr, scratch); };
  if (segmented(mode)) {
    if (mode == SpecialMode::kError) TOK_TRY(check_no_specials(text));
    for_each_segment(
        text, mode, [&](std::string_view run, std::size_t) { ordinary(run); },
        [&](TokenId id, std::size_t) { out.push_back(id); });
    return {};
  }
  if (mode == SpecialMode::kText || specials_.empty()) {
    ordinary(text);
    return {};
  }
  if (mode == SpecialMode::kError) {
    TOK_TRY(check_no_specials(text));
    ordinary(text);
    return {};
  }
  for_each_special(text, ordinary, [&](TokenId id, std::size_t) { out.push_back(id); });
  return {};
}

Result<std::vector<TokenId>> Tokenizer::encode(std::string_view text, SpecialMode mode) const {
  std::vector<TokenId> out;
  EncodeScratch scratch;
  TOK_TRY(encode(text, mode, out, scratch));
  return out;
}

Status Tokenizer::encode_spans(std::string_view input, SpecialMode mode,
                               std::vector<TokenSpan>& out) const {
  EncodeScratch scratch;
  return encode_spans(input, mode, out, scratch);
}

Result<std::string_view> Tokenizer::prepare(std::string_view input, SpecialMode mode,
                                            std::string& storage) const {
  std::string_view text = input;
  if (transform_) {
    storage = transform_(input);
    text = storage;
  }
  if (mode == SpecialMode::kError && !specials_.empty()) TOK_TRY(check_no_specials(text));
  return text;
}

Status Tokenizer::encode_spans(std::string_view input, SpecialMode mode,
                               std::vector<TokenSpan>& out, EncodeScratch& scratch) const {
  std::string transformed;
  TOK_ASSIGN(std::string_view text, prepare(input, mode, transformed));
  std::vector<TokenId> ids;
  // Pieces tile the text, so the tokens of a batch of consecutive pieces
  // cover its bytes in order: each token's offset is the previous one's plus
  // its length. A batch where that does not add up (a byte with no token
  // dropped, an unk token) is redone piece by piece.
  auto flush = [&](std::string_view t, std::size_t base, const std::string_view* batch,
                   std::size_t n) {
    ids.clear();
    encode_pieces(table_, batch, n, &ids, nullptr, scratch);
    std::size_t start = base + static_cast<std::size_t>(batch[0].data() - t.data());
    std::size_t end = base + static_cast<std::size_t>(batch[n - 1].data() + batch[n - 1].size() -
                                                      t.data());
    std::size_t off = start, first = out.size();
    for (TokenId id : ids) {
      out.push_back({id, off});
      off += table_.bytes(id).size();
    }
    if (off == end) return;
    out.resize(first);
    for (std::size_t i = 0; i < n; ++i) {
      ids.clear();
      encode_piece(table_, batch[i], ids, scratch);
      off = base + static_cast<std::size_t>(batch[i].data() - t.data());
      for (TokenId id : ids) {
        out.push_back({id, off});
        off += table_.bytes(id).size();
      }
    }
  };
  auto ordinary_at = [&](std::string_view t, std::size_t base) {
    std::string_view batch[kPieceBatch];
    std::size_t n = 0;
    for_each_piece(t, [&](std::string_view piece) {
      batch[n++] = piece;
      if (n == kPieceBatch) {
        flush(t, base, batch, n);
        n = 0;
      }
    });
    if (n) flush(t, base, batch, n);
  };
  auto ordinary = [&](std::string_view t) {
    ordinary_at(t, static_cast<std::size_t>(t.data() - text.data()));
  };
  if (segmented(mode)) {
    // Offsets are those of the runs in the input (approximate inside a
    // transformed run).
    for_each_segment(
        text, mode, [&](std::string_view run, std::size_t at) { ordinary_at(run, at); },
        [&](TokenId id, std::size_t at) { out.push_back({id, at}); });
    return {};
  }
  if (mode != SpecialMode::kAllow || specials_.empty()) {
    ordinary(text);
    return {};
  }
  for_each_special(text, ordinary, [&](TokenId id, std::size_t at) { out.push_back({id, at}); });
  return {};
}

Result<std::size_t> Tokenizer::count(std::string_view input, SpecialMode mode,
                                     unsigned threads) const {
  std::string transformed;
  TOK_ASSIGN(std::string_view text, prepare(input, mode, transformed));
  if (segmented(mode) && (threads <= 1 || segment_transform_)) {
    EncodeScratch scratch;
    std::vector<TokenId> out;
    TOK_TRY(encode_prepared(text, mode, out, scratch));
    return out.size();
  }
  bool allow = segmented(mode);
  constexpr std::size_t kChunk = 1 << 20;
  if (threads <= 1 || text.size() < 2 * kChunk || pre_.size() != 1 || transform_) {
    EncodeScratch scratch;
    return count_prepared(text, mode, scratch);
  }
  std::vector<std::size_t> cuts = chunk_boundaries(text, kChunk, mode);
  std::size_t nchunks = cuts.size() - 1;
  // More threads than chunks would only idle (and --threads 100000 would
  // exhaust the system's threads).
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, nchunks));
  std::vector<std::size_t> counts(nchunks, 0);
  // Chunks are handed out one at a time: text and code encode at different
  // speeds, so a fixed assignment would leave one thread idle at the end.
  std::atomic<std::size_t> next{0};
  FirstError errors;
  auto worker = [&] {
    EncodeScratch scratch;
    std::vector<TokenId> out;
    for (std::size_t c; !errors.stopped() && (c = next.fetch_add(1, std::memory_order_relaxed)) < nchunks;) {
      std::string_view part = text.substr(cuts[c], cuts[c + 1] - cuts[c]);
      if (allow) {
        out.clear();
        (void)encode_prepared(part, mode == SpecialMode::kAllow ? mode : SpecialMode::kText, out,
                              scratch);
        counts[c] = out.size();
      } else {
        counts[c] = count_ordinary(part, scratch);
      }
    }
  };
  std::vector<std::thread> pool;
  errors.run([&] {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back([&] { errors.run(worker); });
  });
  errors.run(worker);
  for (auto& th : pool) th.join();
  errors.rethrow();
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  return total;
}

Result<std::size_t> Tokenizer::count(std::string_view input, SpecialMode mode,
                                     EncodeScratch& scratch) const {
  std::string transformed;
  TOK_ASSIGN(std::string_view text, prepare(input, mode, transformed));
  return count_prepared(text, mode, scratch);
}

Result<std::size_t> Tokenizer::count_prepared(std::string_view text, SpecialMode mode,
                                              EncodeScratch& scratch) const {
  if (!segmented(mode)) return count_ordinary(text, scratch);
  std::vector<TokenId> out;
  TOK_TRY(encode_prepared(text, mode, out, scratch));
  return out.size();
}

std::vector<std::size_t> Tokenizer::chunk_boundaries(std::string_view text, std::size_t chunk,
                                                     SpecialMode mode) const {
  std::vector<std::size_t> cuts{0};
  if (!can_cut()) {
    cuts.push_back(text.size());
    return cuts;
  }
  bool allow = segmented(mode);
  std::size_t max_special = 0;
  for (const auto& s : specials_) max_special = std::max(max_special, s.text.size());
  while (cuts.back() < text.size()) {
    std::size_t from = cuts.back() + chunk;
    if (from >= text.size()) {
      cuts.push_back(text.size());
      break;
    }
    std::size_t p = pre_[0].safe_boundary(text, from, chunk);
    // Not inside a special token's text either.
    while (allow && p < text.size()) {
      std::size_t lo = p >= max_special ? p - max_special + 1 : 0;
      auto [at, k] = find_special(text.substr(0, p + max_special), lo);
      if (at == std::string_view::npos || at >= p || at + specials_[k].text.size() <= p) break;
      p = pre_[0].safe_boundary(text, p + 1, chunk);
    }
    cuts.push_back(p);
  }
  return cuts;
}

Result<std::string> Tokenizer::decode(std::span<const TokenId> ids) const {
  std::string out;
  for (TokenId id : ids) {
    if (table_.has(id)) {
      out += table_.bytes(id);
    } else if (is_special(id)) {
      out += token_bytes(id);
    } else {
      return make_error("unknown token id {} (the vocabulary {} has {} ids)", id, name_,
                        vocab_size_);
    }
  }
  if (decode_transform_) return decode_transform_(out);
  return out;
}

}  // namespace tok::bpe
