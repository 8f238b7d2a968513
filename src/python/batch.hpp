// The batch calls (tok.tiktoken's encode_batch and encode_ordinary_batch,
// tok.Tokenizer's encode_batch and count_batch): a list of Python texts
// encoded on several threads with as little as possible done under the GIL,
// since only that part does not scale (issue 46).
//  - The texts are read where CPython keeps them: an ASCII str and bytes
//    in place, any other str transcoded from its 1-, 2- or 4-byte form to
//    UTF-8 by the worker that encodes it, without the GIL (CPython's own
//    conversion would run on the calling thread, under the GIL, for every
//    text before the first could start).
//  - Texts are grouped into tasks of consecutive texts (many short ones, or
//    one long one), each with one flat id buffer.
//  - The calling thread builds the result lists of finished tasks, taking
//    the GIL only for that, while the other threads encode the rest.
// The single encode calls read their text the same way (with_utf8).
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "python/engine.hpp"

namespace tok::python {

namespace py = pybind11;

// Room for texts transcoded to UTF-8, kept by a worker from text to text.
// Grown without zero-filling: a str of 4-byte characters needs room for 4
// UTF-8 bytes each, of which only those written are ever touched.
class Utf8Buffer {
 public:
  char* room(std::size_t bytes);

 private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
};

// One Python text as tok reads it: an ASCII str and bytes in place, any
// other str transcoded from its 1-, 2- or 4-byte form to UTF-8, which needs
// no GIL. The object must outlive it.
class TextRef {
 public:
  TextRef() = default;
  // Under the GIL. TypeError for an object that is neither str nor bytes.
  explicit TextRef(PyObject* o);

  // About how many bytes the text holds (its code units times their width).
  std::size_t cost() const { return units_ * (width_ ? width_ : 1); }
  // The text as UTF-8: in place, or transcoded into `buffer`. False when the
  // str holds a lone surrogate (no UTF-8 form). Needs no GIL.
  bool utf8(Utf8Buffer& buffer, std::string_view& out) const;
  // Under the GIL: raises CPython's own UnicodeEncodeError for the str `o`
  // (one utf8() refused), which tok.tiktoken catches to retry as tiktoken
  // does.
  [[noreturn]] static void raise_unicode_error(PyObject* o);

  // The text read a part at a time (chunked_encode.hpp). Is it UTF-8 in
  // place (bytes, an ASCII str)? Then in_place() is all of it.
  bool is_utf8() const { return width_ == 0; }
  std::string_view in_place() const { return {static_cast<const char*>(data_), units_}; }
  // Else: its code units, the most UTF-8 bytes one takes, and the UTF-8 of
  // units [from, from + n) written at out (room for n * max_utf8() bytes):
  // its length, or nullopt at a lone surrogate. Needs no GIL.
  std::size_t units() const { return units_; }
  std::size_t max_utf8() const { return std::min(2u * width_, 4u); }
  std::optional<std::size_t> utf8_range(std::size_t from, std::size_t n, char* out) const;

 private:
  const void* data_ = nullptr;
  std::size_t units_ = 0;  // code units at data_
  unsigned width_ = 0;     // 0: UTF-8 already (bytes, ASCII str); else 1, 2 or 4 bytes per unit
};

// fn(utf8) on one text (str or bytes), read as the batch calls read theirs:
// CPython's own conversion (PyUnicode_AsUTF8AndSize) would hold the GIL
// while it transcodes (90 ms for a str of 25 MB on its first call) and keep
// a second copy of the text in the str. A long text is transcoded with the
// GIL released; fn releases it itself for its own work. A lone surrogate
// raises UnicodeEncodeError before fn runs. Under the GIL.
template <class Fn>
auto with_utf8(py::handle text, Fn&& fn) {
  constexpr std::size_t kGilFree = std::size_t{64} << 10;  // bytes
  TextRef ref(text.ptr());
  Utf8Buffer buffer;
  std::string_view s;
  bool ok;
  if (ref.cost() >= kGilFree) {
    py::gil_scoped_release release;
    ok = ref.utf8(buffer, s);
  } else {
    ok = ref.utf8(buffer, s);
  }
  if (!ok) TextRef::raise_unicode_error(text.ptr());
  return fn(s);
}

// The texts of one batch call, held (a tuple of new references, so a list
// changed by another thread meanwhile frees nothing) and described for
// reading without the GIL.
class TextBatch {
 public:
  // Under the GIL. TypeError for an item that is neither str nor bytes.
  explicit TextBatch(py::handle texts);

  std::size_t size() const { return refs_.size(); }
  std::size_t cost(std::size_t i) const { return refs_[i].cost(); }
  bool utf8(std::size_t i, Utf8Buffer& buffer, std::string_view& out) const {
    return refs_[i].utf8(buffer, out);
  }
  [[noreturn]] void raise_unicode_error(std::size_t i) const {
    TextRef::raise_unicode_error(items_[i].ptr());
  }

 private:
  py::tuple items_;
  std::vector<TextRef> refs_;  // (size())
};

// Why a text stopped its batch. The batch reports the failure of the lowest
// index, as tiktoken's batch, which encodes the texts in order, would.
struct TextFailure {
  enum class Kind { kSurrogate, kSpecial, kError } kind = Kind::kError;
  std::size_t special = 0;  // kSpecial: index into the tokenizer's specials()
  std::string message;      // kError: the encoder's message
};

// The work on one text: appends its ids to `out` (or records a count) and
// returns nullopt, or says why it cannot. Called on any thread, without the
// GIL; i is the text's index in the batch.
using TextFn = std::function<std::optional<TextFailure>(
    std::size_t i, std::string_view text, std::vector<bpe::TokenId>& out, bpe::EncodeScratch&)>;

// Runs fn on every text on up to `threads` threads (the caller's among
// them; no more than available_cpus()); called with the GIL held. With `lists`, returns the ids as
// list[list[int]]; else None. A failure raises: kSurrogate as
// raise_unicode_error, kError as ValueError, kSpecial through
// raise_special. An exception on any thread (out of memory) is rethrown.
py::object run_batch(const Engine& engine, const TextBatch& texts, unsigned threads, bool lists,
                     const TextFn& fn,
                     const std::function<void(std::size_t special)>& raise_special = {});

}  // namespace tok::python
