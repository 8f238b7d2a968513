// The pieces of the _tok module, one function per bound concern.
#pragma once

#include <pybind11/pybind11.h>

namespace tok::python {

// CoreBPE: the tiktoken-shaped core behind tok.tiktoken.Encoding.
void bind_core_bpe(pybind11::module_& m);
// Tokenizer: the native API over anything -e loads (tok.load).
void bind_native_tokenizer(pybind11::module_& m);
// count_files: `tok count --json` as a call.
void bind_count_files(pybind11::module_& m);
// train: `tok train` as a call.
void bind_train(pybind11::module_& m);

}  // namespace tok::python
