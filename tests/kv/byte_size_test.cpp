#include "kv/byte_size.hpp"

#include <doctest/doctest.h>

using namespace tok::kv;

TEST_CASE("byte sizes: plain and binary suffixes") {
  CHECK(parse_byte_size("1000000").value() == 1000000);
  CHECK(parse_byte_size("512KiB").value() == 512u * 1024);
  CHECK(parse_byte_size("64MiB").value() == 64ull << 20);
  CHECK(parse_byte_size("1GiB").value() == 1ull << 30);
  CHECK(parse_byte_size("2TiB").value() == 2ull << 40);
  CHECK(parse_byte_size("100B").value() == 100);
}

TEST_CASE("byte sizes: clear errors") {
  CHECK(parse_byte_size("64MB").error().message ==
        "size '64MB': unit 'MB' is ambiguous; use KiB, MiB or GiB (powers of 1024)");
  CHECK(parse_byte_size("64 MiB").error().message ==
        "size '64 MiB': unknown unit ' MiB'; use KiB, MiB, GiB, TiB or plain bytes");
  CHECK(parse_byte_size("MiB").error().message ==
        "size 'MiB': expected a number of bytes such as 1000000, 512KiB, 64MiB or 1GiB");
  CHECK(parse_byte_size("").ok() == false);
  CHECK(parse_byte_size("-5").ok() == false);
  CHECK(parse_byte_size("99999999999999999999").error().message ==
        "size '99999999999999999999' is too large");
  CHECK(parse_byte_size("20000000TiB").error().message == "size '20000000TiB' is too large");
}
