// Conversions between Python objects and the spans tok works on, written
// against the C API where pybind11's generic casters would copy twice (a str
// to std::string, a vector to a list through a temporary).
#pragma once

#include <pybind11/pybind11.h>

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

// list[int] from token ids without an intermediate vector of objects.
py::list to_list(std::span<const bpe::TokenId> ids);

// A sequence of ints to ids; a value outside 0..2^32-1 raises OverflowError.
std::vector<bpe::TokenId> to_ids(py::handle seq);

// A JSON value as Python objects, as json.loads reads its text: objects to
// dicts (key order kept), arrays to lists, numbers to int or float. A string
// that is not UTF-8 (a file name) gets U+FFFD for its bad bytes, as the CLI's
// JSON output does.
py::object to_python(const nlohmann::ordered_json& j);

}  // namespace tok::python
