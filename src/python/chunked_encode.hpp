// tok.tiktoken's single encode calls on a long text: the text read, encoded
// and turned into the result list a part of about a MiB at a time, cut at
// guaranteed piece boundaries (bpe::Tokenizer::next_boundary), so the ids
// are those of encoding it whole. Encoded whole, a 25 MB str went through a
// 25 MB UTF-8 copy and a 25 MB id vector, both fresh memory, before the
// 50 MB list: in a VM each fresh page costs a host fault, and those pages
// were a third of a first call. A part's UTF-8 and ids stay in the cache
// from one step to the next; only the list is fresh.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "python/engine.hpp"

namespace tok::python {

namespace py = pybind11;

// From this many bytes (code units times their width) on, a text is
// encoded in parts.
inline constexpr std::size_t kChunkedText = std::size_t{2} << 20;

// The ids of `text` (str or bytes) as engine.encode(text, allowed) gives
// them, as a list; a special of `refused` in the text calls raise_special
// with its index (which raises), as CoreBPE::check would before encoding.
// nullopt when the text is shorter than kChunkedText or the tokenizer
// cannot be cut: the caller encodes it whole. A lone surrogate raises
// UnicodeEncodeError. Under the GIL; released while a part is read and
// encoded.
std::optional<py::list> encode_chunked(const Engine& engine, py::handle text,
                                       const SpecialSet& allowed, const SpecialSet& refused,
                                       const std::function<void(std::size_t)>& raise_special);
// The same ids in one vector (encode_to_numpy): no whole-text UTF-8 copy.
std::optional<std::vector<bpe::TokenId>> encode_chunked_ids(
    const Engine& engine, py::handle text, const SpecialSet& allowed, const SpecialSet& refused,
    const std::function<void(std::size_t)>& raise_special);

}  // namespace tok::python
