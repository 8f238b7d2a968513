// CoreBPE: tiktoken's native core API over an Engine (see core_bpe.cpp).
// Special-token selections arrive as optional name lists: nullopt = all.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "python/engine.hpp"

namespace tok::python {

namespace py = pybind11;

struct CoreBPE {
  std::shared_ptr<Engine> engine;

  // A tokenizer as -e SPEC loads it; with special_tokens, its specials
  // replaced (tiktoken's p50k_edit and o200k_harmony extend a base's).
  static CoreBPE from_spec(const std::string& spec, const std::string& name,
                           std::optional<py::dict> special_tokens);
  // tiktoken's Encoding(...) arguments.
  static CoreBPE from_ranks(const std::string& name, const py::dict& mergeable_ranks,
                            const py::dict& special_tokens, const std::string& pat_str);

  using Names = std::optional<std::vector<std::string>>;
  SpecialSet allowed(const Names& names) const;
  // The specials that raise (disallowed nullopt: every special not allowed).
  SpecialSet refused(const SpecialSet& allowed, const Names& disallowed) const;
  // Raises tiktoken's ValueError for specials()[k] / when text holds a
  // refused special.
  [[noreturn]] void raise_special(std::size_t k) const;
  void check(std::string_view text, const SpecialSet& refused) const;
  std::vector<bpe::TokenId> encode_view(std::string_view text, const SpecialSet& allowed) const;

  py::list encode(py::handle text, const Names& allowed, const Names& disallowed) const;
  py::list encode_ordinary(py::handle text) const;
  py::array encode_to_numpy(py::handle text, const Names& allowed, const Names& disallowed) const;
  py::list encode_batch(const py::sequence& texts, const Names& allowed, const Names& disallowed,
                        unsigned threads) const;
  // These three touch no Python object and are called without the GIL.
  // Tokens and how many of the last ones belong to the unstable last piece.
  Result<std::pair<std::vector<bpe::TokenId>, std::size_t>> encode_last_piece(
      std::string_view text, const SpecialSet& allowed) const;
  // One piece, without the split pattern.
  Result<std::vector<bpe::TokenId>> byte_pair_encode(std::string_view piece) const;
  // Bytes that need not be valid UTF-8, as tiktoken's _encode_bytes.
  Result<std::vector<bpe::TokenId>> encode_bytes(std::string_view bytes) const;
  bpe::TokenId encode_single_token(py::handle piece) const;
  py::bytes decode_bytes(py::handle ids) const;
  py::bytes decode_single_token_bytes(std::uint64_t id) const;
  py::list token_byte_values() const;
  py::dict mergeable_ranks() const;
};

}  // namespace tok::python
