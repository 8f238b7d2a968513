#include "cost/batch.hpp"

#include "cost/chat.hpp"
#include "formats/json_error.hpp"

namespace tok::cost {

Result<BatchRequest> parse_batch_request(std::string_view line, const std::string& where) {
  TOK_ASSIGN(nlohmann::json req, formats::parse_json(line, where));
  if (!req.is_object() || !req.contains("body") || !req["body"].is_object()) {
    return make_error("{}: expected a batch request {{\"custom_id\", \"body\": {{...}}}}", where);
  }
  const auto& body = req["body"];
  if (!body.contains("messages")) return make_error("{}: body has no 'messages'", where);
  BatchRequest out;
  TOK_ASSIGN(out.messages, parse_chat(body["messages"].dump(), where + ": body"));
  if (req.contains("custom_id") && req["custom_id"].is_string()) {
    out.custom_id = req["custom_id"].get<std::string>();
  }
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (body.contains(key) && body[key].is_number_unsigned()) {
      out.max_tokens = body[key].get<std::uint64_t>();
      break;
    }
  }
  return out;
}

}  // namespace tok::cost
