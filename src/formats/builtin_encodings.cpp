#include "formats/builtin_encodings.hpp"

namespace tok::formats {

const std::vector<BuiltinEncoding>& builtin_encodings() {
  static const std::vector<BuiltinEncoding> kAll = {
      {"o200k_base",
       {"o200k"},
       "o200k_base.tiktoken",
       "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
       "o200k",
       {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}},
      {"cl100k_base",
       {"cl100k"},
       "cl100k_base.tiktoken",
       "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
       "cl100k",
       {{"<|endoftext|>", 100257},
        {"<|fim_prefix|>", 100258},
        {"<|fim_middle|>", 100259},
        {"<|fim_suffix|>", 100260},
        {"<|endofprompt|>", 100276}}},
      {"p50k_base",
       {"p50k"},
       "p50k_base.tiktoken",
       "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
       "gpt2",
       {{"<|endoftext|>", 50256}}},
      {"r50k_base",
       {"r50k", "gpt2"},
       "r50k_base.tiktoken",
       "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
       "gpt2",
       {{"<|endoftext|>", 50256}}},
  };
  return kAll;
}

const BuiltinEncoding* find_builtin(std::string_view name) {
  for (const auto& e : builtin_encodings()) {
    if (e.name == name) return &e;
    for (const auto& a : e.aliases) {
      if (a == name) return &e;
    }
  }
  return nullptr;
}

const BuiltinEncoding* find_builtin_by_sha256(std::string_view sha) {
  for (const auto& e : builtin_encodings()) {
    if (e.sha256 == sha) return &e;
  }
  return nullptr;
}

}  // namespace tok::formats
