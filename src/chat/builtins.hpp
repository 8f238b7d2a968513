// Helpers shared by the attribute access (methods.cpp) and the filters
// (filters.cpp): the string and object methods templates call.
#pragma once

#include <cstdint>
#include <string>

#include "chat/interpreter.hpp"

namespace tok::chat {

// A string's method or property (`length`), or undefined.
Value string_method(Interpreter& in, const std::string& s, const std::string& name);
// An object's method (get, items, keys, values), or undefined.
Value object_method(Interpreter& in, const Value& o, const std::string& name);
// [[key, value], ...] of an object.
Value object_items(Interpreter& in, const Object& o);
// str.replace(from, to, count); count < 0: all.
std::string replace_text(Interpreter& in, const std::string& s, const std::string& from,
                         const std::string& to, std::int64_t count);

}  // namespace tok::chat
