// tok encode --jsonl FIELD: a dataset of JSON Lines in, the token ids of its
// documents out (text lines, or flat little-endian u16/u32 arrays or a
// NumPy .npy file for training code), with an optional end-of-text token
// after each document and an index of document start offsets.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "cli/encoding_options.hpp"
#include "cli/text_inputs.hpp"

namespace tok::cli {

struct JsonlEncodeOptions {
  std::string field;  // --jsonl FIELD; empty: the input is plain text
  bool eot = false;
  std::optional<std::uint32_t> eot_id;
  std::string format;  // text, u16, u32 or npy; empty: from -o
  std::string output;
  std::string index;
  bool skip_bad = false;
  bool quiet = false;    // -q: no summary line or progress bar
  bool stats = false;    // --stats (encode's flag): the summary as one JSON line
  unsigned threads = 0;  // --threads: also used by plain-file encode (0: the CPUs tok may use)

  void add(CLI::App* sub);
  bool active() const { return !field.empty(); }
  // Throws UsageError when a JSONL-only flag is given without --jsonl.
  void check_unused() const;
};

// `other_output`: --json or --tokens was given (they do not apply).
int run_encode_jsonl(const JsonlEncodeOptions& o, const EncodingOptions& enc, const TextInputs& in,
                     bool other_output);

}  // namespace tok::cli
