// The small merge-list vocabulary the encoder and table-image tests share:
// the 256 bytes, then "ab" (256), "abc" (257), "bc" (258), merged in the
// order bc, ab, ab+c, without whole-piece lookup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bpe/merge_table.hpp"

namespace tok::bpe::testing {

struct TinyMergeList {
  std::vector<std::optional<std::string>> tokens;
  std::vector<MergeTable::Merge> merges;
  MergeTable::Options options;
};

inline TinyMergeList tiny_merge_list() {
  TinyMergeList v;
  for (int b = 0; b < 256; ++b) v.tokens.push_back(std::string(1, static_cast<char>(b)));
  v.tokens.push_back("ab");   // 256
  v.tokens.push_back("abc");  // 257
  v.tokens.push_back("bc");   // 258
  v.merges = {{'b', 'c'}, {'a', 'b'}, {256, 'c'}};
  v.options.whole_piece_lookup = false;
  return v;
}

}  // namespace tok::bpe::testing
