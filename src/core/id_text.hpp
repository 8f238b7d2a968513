// IdText: the decimal text of token ids, each after a separator byte,
// memoised in one 64-bit word per id (bytes 0-6: separator and digits, byte
// 7: their length), so printing an id is one table load and one 8-byte store.
// `tok encode` prints millions of ids from a vocabulary of at most a few
// hundred thousand, and formatting each afresh was 7% of its time. Entries
// are filled on first use: a short input pays for the ids it prints, not for
// the vocabulary. Ids of 7 digits or more, or past `limit`, are formatted
// afresh.
#pragma once

#include <cstdint>
#include <vector>

#include "core/output.hpp"

namespace tok {

class IdText {
 public:
  IdText(char sep, std::size_t limit) : sep_(sep), words_(limit < kMaxId ? limit : kMaxId, 0) {}

  // The separator, then id.
  void put(Output& out, std::uint64_t id) {
    if (id >= words_.size()) {
      out.put_u64(sep_, id);
      return;
    }
    std::uint64_t& w = words_[id];
    if (!w) w = pack(id);
    out.put_word(w);
  }

 private:
  static constexpr std::size_t kMaxId = 1000000;  // 6 digits + separator fit in 7 bytes
  std::uint64_t pack(std::uint64_t id) const;
  char sep_;
  std::vector<std::uint64_t> words_;  // (limit): packed text of id, or 0 when not yet made
};

}  // namespace tok
