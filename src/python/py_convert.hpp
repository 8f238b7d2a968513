// Conversions between Python objects and the spans tok works on, written
// against the C API where pybind11's generic casters would copy twice (a str
// to std::string, a vector to a list through a temporary).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <vector>

#include "bpe/merge_table.hpp"

namespace tok::python {

namespace py = pybind11;

// The UTF-8 bytes of a str (CPython caches them in the object, so the view
// lives as long as the str) or of a bytes object. A str holding lone
// surrogates raises UnicodeEncodeError, which tok.tiktoken catches and
// retries with the surrogates replaced, as tiktoken does.
std::string_view utf8_view(py::handle text);

// list[int] from token ids without an intermediate vector of objects. A
// large list's item array is advised for huge pages before it is filled.
py::list to_list(std::span<const bpe::TokenId> ids);

// A list[int] of ids built a chunk at a time, for a text encoded in pieces
// (chunked_encode.hpp): its item array is reserved for about `expected`
// ids, grown as a list grows if they are more, and shrunk to the ids
// appended by finish(). Untouched reserved room is never faulted in. Every
// call under the GIL; destroyed unfinished, the list is released.
class IdList {
 public:
  explicit IdList(std::size_t expected);
  ~IdList();
  IdList(const IdList&) = delete;
  IdList& operator=(const IdList&) = delete;

  void append(std::span<const bpe::TokenId> ids);
  py::list finish();

 private:
  void reserve(std::size_t n);

  PyObject* list_;
};

// From this size on, a buffer is usually a mapping of its own (glibc maps
// blocks past its mmap threshold, 128 KiB growing to at most 32 MiB), so
// advice for huge pages given before it is written takes effect; on heap
// memory it does no harm.
inline constexpr std::size_t kLargeBuffer = std::size_t{1} << 20;

// Room in `ids` for the tokens of a text of `bytes` bytes, reserved at once
// and advised for huge pages when the text is large (no more tokens than
// bytes, plus an edge token or two: the vector never grows). Growing by
// doubling copied the ids into fresh memory again and again, and in a VM
// each fresh 4 KiB page faults at a cost of microseconds: the copies and
// faults were a third of an encode_ordinary call on a 25 MB text. Untouched
// reserved pages cost nothing. Needs no GIL.
void reserve_ids(std::vector<bpe::TokenId>& ids, std::size_t bytes);

// A sequence of ints to ids; a value outside 0..2^32-1 raises OverflowError.
std::vector<bpe::TokenId> to_ids(py::handle seq);

// A JSON value as Python objects, as json.loads reads its text: objects to
// dicts (key order kept), arrays to lists, numbers to int or float. A string
// that is not UTF-8 (a file name) gets U+FFFD for its bad bytes, as the CLI's
// JSON output does.
py::object to_python(const nlohmann::ordered_json& j);

}  // namespace tok::python
