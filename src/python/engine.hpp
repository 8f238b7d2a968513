// Engine: one loaded Tokenizer as the Python bindings share it, with a pool
// of encode scratch objects (each carries warm piece caches, too costly to
// build per call for short texts) and the special-token subsets tiktoken's
// allowed_special / disallowed_special select. The batch calls run on it
// through python/batch.hpp.
// count_files, over many tokenizers, spreads its files over core's pool
// itself (native_count.cpp).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::python {

// Which of the tokenizer's specials() a call selects: empty = none, else
// one flag per index of specials().
struct SpecialSet {
  std::vector<bool> flags;
  bool all = false;  // every special (the fast kAllow path)
  bool none() const { return !all && flags.empty(); }
  bool has(std::size_t k) const { return all || (k < flags.size() && flags[k]); }
};

class Engine {
 public:
  explicit Engine(bpe::Tokenizer tokenizer);

  const bpe::Tokenizer& tokenizer() const { return *tokenizer_; }

  // A scratch taken from the pool for the life of the lease.
  class Lease {
   public:
    Lease(const Engine& e);
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    bpe::EncodeScratch& operator*() { return *scratch_; }

   private:
    const Engine& engine_;
    std::unique_ptr<bpe::EncodeScratch> scratch_;
  };

  // The specials whose text is in `texts`; all of them when texts is null.
  SpecialSet select(const std::vector<std::string>* texts) const;
  // The specials not in `set`.
  SpecialSet complement(const SpecialSet& set) const;

  // The first occurrence in text of a special in `set`: its index into
  // specials(), or nullopt.
  std::optional<std::size_t> first_special(std::string_view text, const SpecialSet& set) const;

  // tiktoken's encode: the specials in `allowed` become their ids, every
  // other special string is ordinary text. No refusal here (the caller
  // checked disallowed ones first); fails only as the Tokenizer does on a
  // piece over bpe::kMaxPieceBytes.
  Status encode(std::string_view text, const SpecialSet& allowed, std::vector<bpe::TokenId>& out,
                bpe::EncodeScratch& scratch) const;
  // The text after the last special in `allowed` (all of it when none).
  std::string_view last_segment(std::string_view text, const SpecialSet& allowed) const;

 private:
  std::shared_ptr<const bpe::Tokenizer> tokenizer_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<bpe::EncodeScratch>> free_;
};

}  // namespace tok::python
