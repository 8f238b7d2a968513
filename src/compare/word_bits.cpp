#include "compare/word_bits.hpp"

#include <algorithm>
#include <bit>

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

}  // namespace tok::compare
