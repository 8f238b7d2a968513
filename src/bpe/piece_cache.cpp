#include "bpe/piece_cache.hpp"

#include <algorithm>

namespace tok::bpe {

namespace {

// Room in the key and token arrays for `entries` typical pieces (about 12
// bytes, 4 tokens), so that the arrays are not copied as they fill. Sized by
// the entries expected, not for kMaxEntries: from kMinHugeBlock (64 KiB) the
// arrays are huge pages, each zeroed whole on first touch, and two (4 MiB) were a
// sixth of a 2 MB text's first encode (perf samples) while its cache held
// a few hundred KB.
template <class Keys, class Tokens>
void reserve_arrays(Keys& keys, Tokens& tokens, std::size_t entries) {
  keys.reserve(entries * 12);
  tokens.reserve(entries * 4);
}

}  // namespace

void PieceCache::insert(std::string_view piece, std::uint64_t h, const TokenId* toks,
                        std::size_t n) {
  if (piece.empty() || piece.size() > kMaxPieceBytes || n > UINT16_MAX) return;
  if (slots_.empty() || entries_ >= capacity_) grow();
  Slot& s = free_slot(h);
  s.tag = tag(h);
  s.key_off = static_cast<std::uint32_t>(keys_.size());
  s.key_len = static_cast<std::uint16_t>(piece.size());
  s.tok_off = static_cast<std::uint32_t>(tokens_.size());
  s.tok_len = static_cast<std::uint16_t>(n);
  keys_.insert(keys_.end(), piece.begin(), piece.end());
  tokens_.insert(tokens_.end(), toks, toks + n);
  ++entries_;
}

void PieceCache::reserve(std::size_t entries) {
  if (!slots_.empty()) return;
  grow();  // the first table, at kMinEntries
  std::size_t want = kMinEntries;
  while (want < entries && want < kMaxEntries) want *= 2;
  reserve_arrays(keys_, tokens_, want);
  if (want == capacity_) return;
  capacity_ = want;
  slots_.assign(capacity_ * 2, Slot{});
  mask_ = slots_.size() - 1;
}

// The first empty slot of h's probe sequence.
PieceCache::Slot& PieceCache::free_slot(std::uint64_t h) {
  std::uint64_t i = h & mask_;
  while (slots_[i].key_len != 0) i = (i + 1) & mask_;
  return slots_[i];
}

// Doubles the table, keeping its entries, from a small start (cheap for a
// one-file scratch); at the maximum, clears it instead (bounded memory).
// Doubling rather than growing 4x keeps the table near the size the input
// needs: fresh memory is costly here (every page is zeroed on first touch),
// and on a 25 MB input 4x steps left three quarters of an 8 MB table unused.
void PieceCache::grow() {
  if (slots_.empty() || capacity_ >= kMaxEntries) {
    capacity_ = slots_.empty() ? kMinEntries : kMaxEntries;
    slots_.assign(capacity_ * 2, Slot{});
    mask_ = slots_.size() - 1;
    entries_ = 0;
    keys_.clear();
    tokens_.clear();
    reserve_arrays(keys_, tokens_, capacity_);
    return;
  }
  capacity_ *= 2;
  std::vector<Slot, HugePageAllocator<Slot>> old(capacity_ * 2, Slot{});
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.key_len == 0) continue;
    free_slot(hash_bytes(std::string_view(keys_.data() + s.key_off, s.key_len))) = s;
  }
}

}  // namespace tok::bpe
