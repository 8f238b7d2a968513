// The text pipeline of a Hugging Face tokenizer.json, turned into tok's parts:
// normalizers and the text-changing pre-tokenizers (Metaspace, ByteLevel's
// add_prefix_space) become one per-segment transform; splitting
// pre-tokenizers (ByteLevel's regex, Split, Digits, Metaspace split) become
// the PreTokenizer sequence; decoders become a decode transform.
// Unsupported components are errors naming them.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"
#include "text/pretokenizer.hpp"

namespace tok::formats {

struct HfPipeline {
  std::vector<text::PreTokenizer> pre;
  bpe::Tokenizer::SegmentTransform segment;  // empty: none
  bpe::Tokenizer::Transform decode;          // empty: none
  bool byte_level = false;                   // token strings use GPT-2's byte mapping
  std::string describe;                      // "NFC, Split(regex), ByteLevel" for `vocab info`
};

// `normalizer`, `pre_tokenizer` and `decoder` are the tokenizer.json members
// (null allowed). Errors are prefixed with `source`.
Result<HfPipeline> build_hf_pipeline(const nlohmann::json& normalizer,
                                     const nlohmann::json& pre_tokenizer,
                                     const nlohmann::json& decoder, const std::string& source);

}  // namespace tok::formats
