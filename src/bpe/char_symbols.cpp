#include "bpe/char_symbols.hpp"

namespace tok::bpe {

// The character's bytes merged alone (at most three merges, so the plain
// loop: the lowest pair, leftmost on ties), noting the highest merge.
void CharCache::fill(const MergeTable& table, const unsigned char* p, std::size_t len,
                     std::uint32_t code, Entry& e) {
  std::string_view bytes(reinterpret_cast<const char*>(p), len);
  TokenId id[4];
  std::uint8_t start[5];
  std::size_t m = len;
  for (std::size_t k = 0; k < len; ++k) {
    id[k] = table.byte_token(p[k]);
    start[k] = static_cast<std::uint8_t>(k);
  }
  start[len] = static_cast<std::uint8_t>(len);
  std::uint32_t highest = 0;
  for (;;) {
    PairInfo best;
    std::size_t at = 0;
    for (std::size_t k = 0; k + 1 < m; ++k) {
      PairInfo pi = table.pair(id[k], id[k + 1], bytes.substr(start[k], start[k + 2] - start[k]));
      if (pi.rank < best.rank) {
        best = pi;
        at = k;
      }
    }
    if (best.rank == kNoRank) break;
    highest = best.rank > highest ? best.rank : highest;
    id[at] = best.result;
    for (std::size_t k = at + 1; k + 1 < m; ++k) id[k] = id[k + 1];
    for (std::size_t k = at + 1; k < m; ++k) start[k] = start[k + 1];
    --m;
  }
  e.code = code;
  e.n = static_cast<std::uint8_t>(m);
  for (std::size_t k = 0; k < m; ++k) {
    e.tokens[k] = id[k];
    e.offset[k] = start[k];
  }
  // One token: condition (1) of char_symbols.hpp (the last merge, the
  // token's own rank, is the highest) and (2). Several tokens: they never
  // merge across the character's clean boundaries, so both hold vacuously.
  e.ok = m > 1 || (highest == table.rank_of(id[0]) && !table.outranked_char(code));
}

}  // namespace tok::bpe
