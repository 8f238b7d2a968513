// The two lookups both merge loops make (encoder.cpp for ordinary pieces,
// long_piece.cpp for long ones), kept in one place so the loops cannot come
// to disagree: the id of a lone byte, and the merge table's answer for two
// adjacent symbols. Inline: both sit on the encoder's hot path.
#pragma once

#include <string_view>

#include "bpe/merge_table.hpp"
#include "bpe/pair_cache.hpp"

namespace tok::bpe {

// The id of a lone byte: its byte token, else the unknown token (kNoToken
// when the vocabulary has neither: the byte is dropped from the output).
inline TokenId lone_byte(const MergeTable& table, unsigned char b) {
  TokenId id = table.byte_token(b);
  return id != kNoToken ? id : table.options().unk;
}

// table.pair(left, right, joined), answered from the per-thread pair cache
// when the answer is a function of the two ids alone (see PairCache).
inline PairInfo cached_pair(const MergeTable& table, PairCache& cache, TokenId left, TokenId right,
                            std::string_view joined) {
  TokenId unk = table.options().unk;
  if (!table.pairs_by_id() || left == kNoToken || right == kNoToken || left == unk ||
      right == unk) {
    return table.pair(left, right, joined);
  }
  std::uint64_t k = PairCache::key(left, right);
  PairInfo info;
  if (cache.find(k, &info)) return info;
  info = table.pair(left, right, joined);
  cache.insert(k, info);
  return info;
}

}  // namespace tok::bpe
