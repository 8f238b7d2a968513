#include "io/stream_chunks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "bpe/encoder.hpp"
#include "core/mapped_file.hpp"

namespace tok::io {
namespace {

// Bytes kept back from the end before searching for a cut, so the cut never
// depends on bytes not yet read (a split UTF-8 character, a lookahead, a
// special token's rest).
constexpr std::size_t kMargin = 1 << 12;

// The last guaranteed boundary in buf (excluding its end) common to all the
// tokenizers, or 0.
std::size_t last_cut(const std::vector<const bpe::Tokenizer*>& tks, std::string_view buf,
                     std::size_t chunk, bpe::SpecialMode mode) {
  if (buf.size() <= kMargin) return 0;
  std::string_view head = buf.substr(0, buf.size() - kMargin);
  std::vector<std::size_t> common;
  for (std::size_t t = 0; t < tks.size(); ++t) {
    auto cuts = tks[t]->chunk_boundaries(head, chunk, mode);
    // Inner cuts only: 0 and the end of `head` are not boundaries.
    std::vector<std::size_t> inner(cuts.begin() + 1, cuts.end() - 1);
    if (t == 0) {
      common = std::move(inner);
    } else {
      std::vector<std::size_t> both;
      std::set_intersection(common.begin(), common.end(), inner.begin(), inner.end(),
                            std::back_inserter(both));
      common = std::move(both);
    }
    if (common.empty()) return 0;
  }
  return common.empty() ? 0 : common.back();
}

}  // namespace

StreamChunks::StreamChunks(int fd, std::string name, const bpe::Tokenizer& tk,
                           bpe::SpecialMode mode, std::size_t block)
    : StreamChunks(fd, std::move(name), std::vector<const bpe::Tokenizer*>{&tk}, mode, block) {}

StreamChunks::StreamChunks(int fd, std::string name, std::vector<const bpe::Tokenizer*> tks,
                           bpe::SpecialMode mode, std::size_t block)
    : fd_(fd),
      name_(std::move(name)),
      tks_(std::move(tks)),
      mode_(mode == bpe::SpecialMode::kError ? bpe::SpecialMode::kAllow : mode),
      block_(std::max<std::size_t>(block, 1)) {
  buf_.reserve(2 * block_);
  // A tokenizer that cannot cut (a normalizer, two pre-tokenizer levels)
  // needs the stream whole; otherwise a cut must come within one piece.
  bool cut =
      std::all_of(tks_.begin(), tks_.end(), [](const bpe::Tokenizer* t) { return t->can_cut(); });
  limit_ = cut ? bpe::kMaxPieceBytes + kMargin + block_ : kMaxUncutStream;
}

Result<std::string_view> StreamChunks::next() {
  buf_.erase(0, handed_);
  offset_ += handed_;
  handed_ = 0;
  for (;;) {
    if (!eof_) {
      // Fill the buffer to at least one block beyond what is carried over.
      std::size_t target = buf_.size() + block_;
      while (buf_.size() < target) {
        std::size_t old = buf_.size();
        buf_.resize(target);
        auto r = read_some(fd_, buf_.data() + old, target - old, name_);
        buf_.resize(old + (r.ok() ? *r : 0));
        if (!r.ok()) return r.error();
        if (*r == 0) {
          eof_ = true;
          break;
        }
      }
      peak_ = std::max(peak_, buf_.capacity());
    }
    std::size_t cut = eof_
                          ? buf_.size()
                          : last_cut(tks_, buf_, std::max<std::size_t>(block_ / 8, 1 << 16), mode_);
    if (cut == 0 && !eof_) {  // no boundary yet: read more, up to the limit
      if (buf_.size() > limit_ && limit_ == kMaxUncutStream) {
        return make_error(
            "{}: a stream longer than {} MiB, which this vocabulary reads whole (its normalizer "
            "or pre-tokenizers give no safe cut); save it to a file",
            name_, kMaxUncutStream >> 20);
      }
      if (buf_.size() > limit_) {
        return make_error(
            "{}: no piece boundary in the {} MiB from byte {} (one run of a single character "
            "class); tok encodes pieces of at most {} MiB",
            name_, buf_.size() >> 20, offset_, bpe::kMaxPieceBytes >> 20);
      }
      continue;
    }
    handed_ = cut;
    return std::string_view(buf_).substr(0, cut);
  }
}

}  // namespace tok::io
