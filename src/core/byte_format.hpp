// The one way tok prints counts and byte sizes to people, so every command
// (count --kv, show, generate, compare) writes the same size the same way.
#pragma once

#include <cstdint>
#include <string>

namespace tok {

// 1234567 -> "1,234,567".
std::string group_digits(std::uint64_t n);
// Bytes in binary units with three significant digits: "512 B", "1.50 KiB",
// "12.3 MiB", "123 GiB"; exact below 1 KiB.
std::string human_bytes(std::uint64_t n);

}  // namespace tok
