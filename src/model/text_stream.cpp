#include "model/text_stream.hpp"

#include <algorithm>

#include "core/utf8.hpp"

namespace tok::model {

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
  std::size_t safe = utf8::complete_prefix(pending_);
  // Keep the longest tail that is a proper prefix of some stop string.
  for (const auto& s : stops_) {
    for (std::size_t len = std::min(s.size() - 1, pending_.size()); len > 0; --len) {
      if (std::string_view(pending_).substr(pending_.size() - len) ==
          std::string_view(s).substr(0, len)) {
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
