// encode_in_order: one large text encoded on several threads, its tokens
// handed back in input order while later parts are still being encoded
// (`tok encode --threads N FILE`).
//
// The text is cut where the caller says (Tokenizer::chunk_boundaries:
// guaranteed piece boundaries, so the tokens are exactly those of encoding it
// whole, whatever the thread count). Workers take chunks in order; the
// calling thread is one of them, and between chunks it hands every finished
// chunk, in order, to `consume`: so N threads encode on N CPUs and the
// consumer (printing, for the CLI) needs no extra one. At most `window`
// chunks are encoded ahead of the consumer, which bounds memory
// (window x chunk x 4 bytes) however slow the consumer is.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "core/result.hpp"

namespace tok::bpe {

// consume(c, ids): chunk c's tokens (c = 0, 1, ... in order). Its first
// error stops the encoding and is returned; so is the first chunk's
// encoding error, in chunk order.
using ChunkConsumer = std::function<Status(std::size_t chunk, std::span<const TokenId> ids)>;

// Encodes text[cuts[c], cuts[c + 1]) for every chunk c on `threads`
// threads of core's pool (the caller's included; an exception on any of
// them, such as PieceTooLong, is rethrown here), in `mode` (not kError:
// the caller refuses specials once for the whole text, before or in
// `first`).
// first (optional): run by the calling thread before anything else while
// the other threads start encoding (`tok encode` checks the whole text for
// refused specials there, so the check costs no time of its own); its error
// stops the run before any chunk reaches `consume`, and is returned.
Status encode_in_order(const Tokenizer& tk, std::string_view text,
                       const std::vector<std::size_t>& cuts, SpecialMode mode, unsigned threads,
                       const ChunkConsumer& consume, const std::function<Status()>& first = {});

}  // namespace tok::bpe
