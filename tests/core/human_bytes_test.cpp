#include "core/number_format.hpp"

#include <doctest/doctest.h>

TEST_CASE("group_digits puts a comma every three digits") {
  CHECK(tok::group_digits(0) == "0");
  CHECK(tok::group_digits(999) == "999");
  CHECK(tok::group_digits(2036) == "2,036");
  CHECK(tok::group_digits(1234567) == "1,234,567");
}

TEST_CASE("human_bytes prints three significant digits in binary units") {
  CHECK(tok::human_bytes(0) == "0 B");
  CHECK(tok::human_bytes(1023) == "1023 B");
  CHECK(tok::human_bytes(1024) == "1.00 KiB");
  CHECK(tok::human_bytes(1536) == "1.50 KiB");
  CHECK(tok::human_bytes(12 * 1024 * 1024 + 300 * 1024) == "12.3 MiB");
  CHECK(tok::human_bytes(123ull << 30) == "123 GiB");
  // Rounding never prints four digits or 1024 of a unit.
  CHECK(tok::human_bytes(10239) == "10.0 KiB");
  CHECK(tok::human_bytes((1ull << 20) - 1) == "1.00 MiB");
}
