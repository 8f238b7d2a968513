#include "python/py_error.hpp"

#include <pybind11/pybind11.h>

#include <string_view>
#include <utility>

#include "core/flag_hints.hpp"

namespace tok::python {

namespace {

struct Rewording {
  std::string_view cli, python;
};

// Each hint the libraries end an error with, and its Python wording.
constexpr Rewording kRewordings[] = {
    {hints::kRefusedSpecial,
     "pass special=\"allow\" to encode it as a special token or special=\"text\" to encode it "
     "as ordinary text"},
    {hints::kPattern, "pass pattern=\"NAME\" or pattern=REGEX to say how to split text"},
};

}  // namespace

std::string python_message(std::string message) {
  for (const auto& r : kRewordings) {
    if (auto at = message.find(r.cli); at != std::string::npos) {
      message.replace(at, r.cli.size(), r.python);
    }
  }
  return message;
}

void raise_error(std::string message) {
  throw pybind11::value_error(python_message(std::move(message)));
}

}  // namespace tok::python
