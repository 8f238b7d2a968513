#include "compare/word_bits.hpp"

#include <algorithm>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tok::compare {
namespace {

constexpr std::uint64_t kAll = ~std::uint64_t{0};

// Ones at positions [b, e) of the 64 positions from w * 64 on.
std::uint64_t range_mask(std::size_t w, std::size_t b, std::size_t e) {
  std::size_t lo = std::max(b, w * 64) - w * 64, hi = std::min(e, w * 64 + 64) - w * 64;
  if (lo >= hi) return 0;
  std::uint64_t upto = hi == 64 ? kAll : (std::uint64_t{1} << hi) - 1;
  return upto & ~((std::uint64_t{1} << lo) - 1);
}

void set_range(std::vector<std::uint64_t>& v, std::size_t b, std::size_t e) {
  if (b >= e) return;
  for (std::size_t w = b >> 6; w <= (e - 1) >> 6; ++w) v[w] |= range_mask(w, b, e);
}

}  // namespace

void WordBits::reset(std::size_t n) {
  n_ = n;
  starts_.assign(n / 64 + 2, 0);
  inside_.assign(n / 64 + 2, 0);
}

void WordBits::add(std::size_t b, std::size_t e) {
  starts_[b >> 6] |= std::uint64_t{1} << (b & 63);
  set_range(inside_, b + 1, e);
}

void WordBits::clear(std::size_t b, std::size_t e) {
  if (b >= e) return;
  for (std::size_t w = b >> 6; w <= (e - 1) >> 6; ++w) {
    std::uint64_t m = ~range_mask(w, b, e);
    starts_[w] &= m;
    inside_[w] &= m;
  }
}

std::size_t WordBits::count() const {
  std::size_t n = 0;
  for (std::uint64_t w : starts_) n += popcount64(w);
  return n;
}

void WordBits::spans(std::vector<ByteSpan>& out) const {
  for (std::size_t w = 0; w < starts_.size(); ++w) {
    for (std::uint64_t s = starts_[w]; s; s &= s - 1) {
      std::size_t b = w * 64 + static_cast<std::size_t>(std::countr_zero(s));
      // The word ends at the first position after b that is not inside it.
      std::size_t e = b + 1, k = e >> 6;
      std::uint64_t outside = ~inside_[k] & (kAll << (e & 63));
      while (!outside) outside = ~inside_[++k];
      e = k * 64 + static_cast<std::size_t>(std::countr_zero(outside));
      out.push_back({b, e});
    }
  }
}

void TokenStarts::reset(const WordBits& words) {
  words_ = &words;
  pos_ = 0;
  starts_.assign(words.inside().size(), 0);
  done_ = 0;
  continued_ = 0;
  carry_ = false;
}

bool TokenStarts::add(std::size_t bytes, std::span<const bpe::TokenId> ids,
                      const TokenLengths& lengths) {
  if (bytes > words_->size() - pos_) return false;
  if (marks_.size() < bytes + 64) marks_.resize(bytes + 64, 0);
  if (++stamp_ == 0) {  // every value was used: start over
    std::fill(marks_.begin(), marks_.end(), 0);
    stamp_ = 1;
  }
  // A byte per position first, then 64 of them to a word: a store per token
  // and no dependency between tokens but the running offset (setting bits
  // in place would make each token wait on the previous one's update). The
  // pointers are locals: a byte store may alias any member, which would
  // otherwise be reloaded after every token.
  std::uint8_t* marks = marks_.data();
  const std::uint8_t stamp = stamp_;
  const std::uint8_t* len8 = lengths.len.data();
  const std::uint32_t* long_len = lengths.long_len.data();
  const std::size_t nlen = lengths.len.size();
  std::size_t p = 0;
  for (bpe::TokenId id : ids) {
    if (id >= nlen || p >= bytes) return false;
    marks[p] = stamp;
    std::size_t len = len8[id];
    if (len == 255) len = long_len[id];
    p += len;
  }
  if (p != bytes) return false;
#if defined(__SSE2__)
  const __m128i want = _mm_set1_epi8(static_cast<char>(stamp));
#endif
  for (std::size_t i = 0; i < bytes; i += 64) {
    std::uint64_t m = 0;
#if defined(__SSE2__)
    for (int k = 0; k < 4; ++k) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(marks + i + 16 * k));
      auto bits = static_cast<std::uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, want)));
      m |= std::uint64_t{bits} << (16 * k);
    }
#else
    for (int k = 0; k < 64; ++k) m |= std::uint64_t{marks[i + k] == stamp} << k;
#endif
    std::size_t at = pos_ + i;
    unsigned sh = at & 63;
    starts_[at >> 6] |= m << sh;
    if (sh) starts_[(at >> 6) + 1] |= m >> (64 - sh);
  }
  pos_ += bytes;
  // The words before the one holding pos_ get no more starts: count them
  // while they are in cache.
  count_upto(pos_ >> 6);
  return true;
}

// Each run of `inside` bits is the interior of one word. Adding to the
// bitmap the token starts that fall in it (h, a subset of it) carries out
// of the run exactly when there is at least one: the run's ones from bit s
// to bit e are worth 2^(e+1) - 2^s, the starts add between 2^s and
// 2^(e+1) - 2^s, so the sum sets bit e + 1 (never in `inside`) and carries
// no further. Counting those carry bits counts the continued words; a run
// that crosses a 64-bit word passes its carry on like an add with carry.
void TokenStarts::count_upto(std::size_t end) {
  std::span<const std::uint64_t> inside = words_->inside();
  std::size_t continued = 0;
  bool carry = carry_;
  for (std::size_t w = done_; w < end; ++w) {
    std::uint64_t a = inside[w];
    std::uint64_t sum = 0;
    bool c1 = __builtin_add_overflow(a, a & starts_[w], &sum);
    bool c2 = __builtin_add_overflow(sum, std::uint64_t{carry}, &sum);
    carry = c1 || c2;
    continued += popcount64(sum & ~a);
  }
  continued_ += continued;
  carry_ = carry;
  done_ = std::max(done_, end);
}

std::optional<std::size_t> TokenStarts::count_continued() {
  if (!words_ || pos_ != words_->size()) return std::nullopt;
  count_upto(starts_.size());
  return continued_;
}

}  // namespace tok::compare
