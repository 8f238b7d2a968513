// A small ranked byte-level table for the encoder's unit tests: the 256
// bytes at their own ranks, then `extra` from rank 256 in order.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bpe/merge_table.hpp"

namespace tok::bpe::testing {

inline MergeTable ranked_table(std::vector<std::string> extra) {
  std::vector<std::string> toks;
  for (int b = 0; b < 256; ++b) toks.push_back(std::string(1, static_cast<char>(b)));
  for (auto& e : extra) toks.push_back(std::move(e));
  return std::move(MergeTable::from_ranks(std::move(toks))).value();
}

}  // namespace tok::bpe::testing
