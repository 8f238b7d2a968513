// Errors from tok's libraries raised in Python: ValueError with tok's one-line
// message, where the words of the command line (--special allow, --pattern)
// become the Python argument that does the same (special="allow", pattern=).
#pragma once

#include <string>

namespace tok::python {

// The message as Python users read it.
std::string python_message(std::string message);

// Raises ValueError(python_message(message)).
[[noreturn]] void raise_error(std::string message);

}  // namespace tok::python
