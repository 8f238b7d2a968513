// The advice some library errors end with, in the command line's words. The
// Python module replaces each with the argument that does the same there
// (src/python/py_error.cpp), so that no Python user is told to pass a flag.
#pragma once

#include <string_view>

namespace tok::hints {

// A special token found where it is refused (SpecialMode::kError).
inline constexpr std::string_view kRefusedSpecial =
    "pass --special allow to encode it as a special token or --special text to encode it as "
    "ordinary text";

// A .tiktoken file that is no built-in encoding and has no split pattern.
inline constexpr std::string_view kPattern = "pass --pattern NAME|REGEX to say how to split text";

}  // namespace tok::hints
