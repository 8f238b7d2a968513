// parse_json: nlohmann::json parsing that never throws and reports errors as
// "SOURCE:LINE:COLUMN: what is wrong".
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::formats {

Result<nlohmann::json> parse_json(std::string_view text, const std::string& source);

// Line and column (1-based) of a byte offset.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset);

}  // namespace tok::formats
