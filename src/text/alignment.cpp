#include "text/alignment.hpp"

namespace tok::text {

AlignedWriter::AlignedWriter(std::string& out, std::vector<std::size_t>* to_input)
    : out_(out), map_(to_input) {
  out_.clear();
  if (map_) map_->clear();
}

void AlignedWriter::copy(std::string_view bytes, std::size_t from) {
  if (bytes.empty()) return;
  out_.append(bytes);
  if (!map_) return;
  // The first boundary takes any dropped bytes before it (covered_ <= from).
  map_->push_back(covered_);
  for (std::size_t k = 1; k < bytes.size(); ++k) map_->push_back(from + k);
  covered_ = from + bytes.size();
}

void AlignedWriter::rewrite(std::size_t from, std::size_t to, std::string_view bytes) {
  if (bytes.empty()) return;  // dropped: the next unit's first boundary takes them
  out_.append(bytes);
  if (!map_) return;
  map_->push_back(covered_ < from ? covered_ : from);
  for (std::size_t k = 1; k < bytes.size(); ++k) map_->push_back(to);
  covered_ = to;
}

void AlignedWriter::finish(std::size_t input_size) {
  if (map_) map_->push_back(input_size);
}

void identity_alignment(std::size_t n, std::vector<std::size_t>& to_input) {
  to_input.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) to_input[i] = i;
}

void compose_alignment(const std::vector<std::size_t>& first, std::vector<std::size_t>& second) {
  for (std::size_t& b : second) b = first[b];
}

}  // namespace tok::text
