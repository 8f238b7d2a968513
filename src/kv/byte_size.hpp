// Parses memory sizes for --kv-budget: a plain byte count ("1000000") or a
// number with a binary suffix ("512KiB", "64MiB", "1GiB", "1TiB"). Decimal
// suffixes (MB, GB) are refused on purpose: the message names the binary one.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/result.hpp"

namespace tok::kv {

Result<std::uint64_t> parse_byte_size(std::string_view s);

}  // namespace tok::kv
