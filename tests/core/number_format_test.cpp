#include <doctest/doctest.h>

#include "core/number_format.hpp"

using namespace tok;

TEST_CASE(
    "costs print with significant digits, never an exponent or a zero for a non-zero amount") {
  CHECK(format_usd(0) == "$0");
  CHECK(format_usd(5e-05) == "$0.00005");
  CHECK(format_usd(0.000123456) == "$0.000123");
  CHECK(format_usd(1.5e-9) == "$0.0000000015");
  CHECK(format_usd(0.685) == "$0.685");
  CHECK(format_usd(0.1) == "$0.10");
  CHECK(format_usd(2.5) == "$2.50");
  CHECK(format_usd(685.2025) == "$685.20");
  CHECK(format_usd(1234.567) == "$1,234.57");
  CHECK(format_usd(0.9999) == "$1.00");  // rounds to 3 digits
}

TEST_CASE("plain decimals keep their whole digits and trim zeros") {
  CHECK(format_decimal(0, 6) == "0");
  CHECK(format_decimal(123456.7, 3) == "123457");
  CHECK(format_decimal(0.5, 6) == "0.5");
  CHECK(format_decimal(1.0 / 3, 6) == "0.333333");
  CHECK(format_decimal(2e-12, 6) == "0.000000000002");
}

TEST_CASE("byte sizes and digit groups") {
  CHECK(human_bytes(512) == "512 B");
  CHECK(human_bytes(1536) == "1.50 KiB");
  CHECK(human_bytes(3u << 30) == "3.00 GiB");
  CHECK(group_digits(274081) == "274,081");
  CHECK(si_scaled(3.2e12, "FLOP") == "3.20 TFLOP");
}

TEST_CASE("hex_bytes writes two lower-case digits a byte, joined by the separator") {
  CHECK(tok::hex_bytes("", " ") == "");
  CHECK(tok::hex_bytes("\xe4\xbd", " ") == "e4 bd");
  CHECK(tok::hex_bytes(std::string_view("\x00\x0f\xff", 3), "") == "000fff");
  CHECK(tok::hex_bytes("A", ":") == "41");
}
