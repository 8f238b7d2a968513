// The Python extension module tok._tok: the native half of the `tok` and
// `tok.tiktoken` packages (python/tok). Each binding lives in its own file;
// this one only registers them.
#include <pybind11/pybind11.h>

#include "python/bindings.hpp"
#include "tok/build_info.hpp"

PYBIND11_MODULE(_tok, m) {
  m.doc() = "tok's native tokenizers (used by the tok and tok.tiktoken packages)";
  m.attr("__version__") = tok::build_info::kVersion;
  tok::python::bind_core_bpe(m);
  tok::python::bind_native_tokenizer(m);
  tok::python::bind_count_files(m);
  tok::python::bind_train(m);
}
