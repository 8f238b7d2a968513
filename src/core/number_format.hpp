// The one way every command writes money, byte sizes, raw bytes and large counts for
// people (tables, summaries, stderr). Machine formats (JSON, CSV) carry the
// plain numbers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tok {

// A non-negative amount with `significant` significant digits and never an
// exponent: 0.00005 -> "0.00005", 0.000123456 -> "0.000123", 2.5 -> "2.5".
// Whole digits are never dropped (123456.7 -> "123457"); trailing zeros are
// trimmed.
std::string format_decimal(double v, int significant);

// Dollars for people: "$0" for zero, cents from $1 up ("$12.34",
// "$1,234.57"), 3 significant digits below and at least cents ("$0.685",
// "$0.10", "$0.00005"); never
// "$5e-05", never "$0.000000" for a non-zero amount.
std::string format_usd(double v);

// 1234567 -> "1,234,567".
std::string group_digits(std::uint64_t n);

// Bytes in binary units with three significant digits: "512 B", "1.50 KiB",
// "12.3 MiB", "123 GiB"; exact below 1 KiB.
std::string human_bytes(std::uint64_t n);

// Bytes as lower-case hex, two digits each, joined by separator:
// ("\xe4\xbd", " ") -> "e4 bd"; ("\xe4\xbd", "") -> "e4bd".
std::string hex_bytes(std::string_view bytes, std::string_view separator);

// 3.2e12 -> "3.20 TFLOP"-style SI scaling with the given unit.
std::string si_scaled(double v, const std::string& unit);

}  // namespace tok
