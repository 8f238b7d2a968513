// One request of an OpenAI batch file (JSONL, `tok count --batch`): each
// non-blank line is {"custom_id": ..., "body": {"messages": [...],
// "max_tokens": N}}. Parsed here, counted by the caller like a chat file.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::cost {

struct BatchRequest {
  nlohmann::json messages;                  // as parse_chat returns them
  std::string custom_id;                    // empty when absent or not a string
  std::optional<std::uint64_t> max_tokens;  // max_tokens or max_completion_tokens
};

// Parses one line; `where` ("FILE:LINE") starts every error message.
Result<BatchRequest> parse_batch_request(std::string_view line, const std::string& where);

}  // namespace tok::cost
