#include "bpe/piece_cache.hpp"

#include <algorithm>

namespace tok::bpe {

void PieceCache::insert(std::string_view piece, std::uint64_t h, const TokenId* toks,
                        std::size_t n) {
  if (piece.empty() || piece.size() > kMaxPieceBytes || n > UINT16_MAX) return;
  if (slots_.empty() || entries_ >= capacity_) {
    // Grow 4x from a small start (cheap for a one-file scratch); at the
    // maximum, clear instead (bounded memory).
    capacity_ = slots_.empty() ? kMinEntries : std::min(capacity_ * 4, kMaxEntries);
    if (entries_ >= kMaxEntries) capacity_ = kMaxEntries;
    slots_.assign(capacity_ * 2, Slot{});
    mask_ = slots_.size() - 1;
    entries_ = 0;
    keys_.clear();
    tokens_.clear();
    // Room for typical pieces (about 12 bytes, 4 tokens) up front: growing
    // these by doubling copies them over and over.
    keys_.reserve(capacity_ * 12);
    tokens_.reserve(capacity_ * 4);
  }
  std::uint64_t i = h & mask_;
  while (slots_[i].key_len != 0) i = (i + 1) & mask_;
  Slot& s = slots_[i];
  s.tag = tag(h);
  s.key_off = static_cast<std::uint32_t>(keys_.size());
  s.key_len = static_cast<std::uint16_t>(piece.size());
  s.tok_off = static_cast<std::uint32_t>(tokens_.size());
  s.tok_len = static_cast<std::uint16_t>(n);
  keys_.insert(keys_.end(), piece.begin(), piece.end());
  tokens_.insert(tokens_.end(), toks, toks + n);
  ++entries_;
}

}  // namespace tok::bpe
