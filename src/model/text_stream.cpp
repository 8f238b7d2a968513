#include "model/text_stream.hpp"

#include <algorithm>

#include "text/utf8.hpp"

namespace tok::model {

std::size_t utf8_complete_prefix(std::string_view s) {
  // Look back at most 3 bytes for the lead byte of the last sequence.
  std::size_t n = s.size();
  for (std::size_t back = 1; back <= std::min<std::size_t>(4, n); ++back) {
    unsigned char c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation byte
    std::size_t len = text::utf8::char_length(c);
    return len > back ? n - back : n;
  }
  return n;  // only continuation bytes: invalid, release them
}

std::string TextStream::push(std::string_view bytes) {
  if (stopped_) return {};
  pending_.append(bytes);
  // A stop string inside the pending text ends generation.
  std::size_t stop_at = std::string::npos;
  for (const auto& s : stops_) {
    if (s.empty()) continue;
    std::size_t at = pending_.find(s);
    if (at < stop_at) stop_at = at;
  }
  if (stop_at != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, stop_at);
    pending_.clear();
    released_ += out;
    return out;
  }
  std::size_t safe = utf8_complete_prefix(pending_);
  // Keep the longest tail that is a proper prefix of some stop string.
  for (const auto& s : stops_) {
    for (std::size_t len = std::min(s.size() - 1, pending_.size()); len > 0; --len) {
      if (std::string_view(pending_).substr(pending_.size() - len) == std::string_view(s).substr(0, len)) {
        safe = std::min(safe, pending_.size() - len);
        break;
      }
    }
  }
  std::string out = pending_.substr(0, safe);
  pending_.erase(0, safe);
  released_ += out;
  return out;
}

std::string TextStream::finish() {
  std::string out;
  if (!stopped_) out.swap(pending_);
  pending_.clear();
  released_ += out;
  return out;
}

}  // namespace tok::model
