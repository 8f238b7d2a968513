// SHA-256 (FIPS 180-4), for identifying vocabulary files by checksum.
#pragma once

#include <string>
#include <string_view>

namespace tok {

// Lower-case hex digest of data.
std::string sha256_hex(std::string_view data);

}  // namespace tok
