// The JSON readers on arbitrary bytes: parse_json never throws and reports
// "SOURCE:LINE:COLUMN: malformed JSON: ..." with a position inside the text;
// parse_sidecar (FILE.tiktoken.json) accepts or refuses with a message naming
// the file, and what it accepts writes back to the same definition. The chat
// and batch JSON readers join here when they land.
#include <cstdint>
#include <string>

#include "formats/json_error.hpp"
#include "formats/tiktoken_file.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = tok::fuzz::as_view(data, size);
  auto j = tok::formats::parse_json(text, "in.json");
  if (!j.ok()) {
    const std::string& m = j.error().message;
    if (m.rfind("in.json", 0) != 0) tok::fuzz::fail("json", "error does not name the file: " + m);
    if (m.find('\n') != std::string::npos) tok::fuzz::fail("json", "error is not one line: " + m);
  }
  auto s = tok::formats::parse_sidecar(text, "in.json");
  if (!s.ok()) {
    if (s.error().message.rfind("in.json", 0) != 0) {
      tok::fuzz::fail("json", "sidecar error does not name the file: " + s.error().message);
    }
    return 0;
  }
  auto again = tok::formats::parse_sidecar(tok::formats::write_sidecar(*s), "written");
  if (!again.ok() || again->pattern != s->pattern || again->specials.size() > s->specials.size()) {
    tok::fuzz::fail("json", "sidecar write/parse round trip differs");
  }
  return 0;
}
