// TextStream: turns the bytes of generated tokens into text that is safe to
// write as it comes. It holds back (a) an incomplete UTF-8 sequence at the
// end, so a character split across tokens is never split across writes, and
// (b) any tail that could be the start of a stop string, so a stop string is
// never printed. When a stop string appears, the text before it is released
// and the stream reports that it has stopped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tok::model {

class TextStream {
 public:
  explicit TextStream(std::vector<std::string> stops = {}) : stops_(std::move(stops)) {}

  // Adds bytes; returns the text that may be written now.
  std::string push(std::string_view bytes);
  // End of generation: everything held back (an incomplete UTF-8 tail is
  // released as is: those are the model's bytes).
  std::string finish();
  bool stopped() const { return stopped_; }
  // All text released so far (for --json).
  const std::string& text() const { return released_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;  // bytes not yet released
  std::string released_;
  bool stopped_ = false;
};

}  // namespace tok::model
