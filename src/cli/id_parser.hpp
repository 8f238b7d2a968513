// Token ids as text, the input of `tok decode`: separated by whitespace
// and/or commas, optionally as one JSON array. IdParser takes the text in
// pieces (a stream read block by block), so decode can print as the ids
// arrive; error messages name the byte in the whole input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"
#include "core/result.hpp"

namespace tok::cli {

class IdParser {
 public:
  explicit IdParser(std::string source) : source_(std::move(source)) {}
  // The next bytes of the input: the ids they complete are appended to out
  // (an id at the very end may continue in the next bytes: it waits).
  Status feed(std::string_view bytes, std::vector<bpe::TokenId>& out);
  // The end of the input.
  Status finish(std::vector<bpe::TokenId>& out);

 private:
  // Parses complete text (it ends at a separator, or the input ends).
  Status parse(std::string_view s, std::vector<bpe::TokenId>& out);
  std::string source_;
  std::string carry_;       // the unfinished end of the input so far
  std::uint64_t base_ = 0;  // bytes of the input before carry_
  bool started_ = false;    // something other than separators was seen
  bool bracket_ = false;    // a JSON array: '[' opened it
  bool closed_ = false;     // and ']' closed it
};

// All ids of a complete text.
Status parse_ids(std::string_view text, const std::string& source, std::vector<bpe::TokenId>& out);

}  // namespace tok::cli
