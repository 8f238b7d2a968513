#include "formats/sentencepiece_spaces.hpp"

#include "text/alignment.hpp"

namespace tok::formats {

std::string SentencePieceSpaces::encode(std::string_view run, std::size_t offset,
                                        std::vector<std::size_t>* to_input) const {
  bool present = run.starts_with(' ') || run.starts_with(replacement);
  bool add = prepend == Prepend::kAlways || (prepend == Prepend::kFirst && offset == 0);
  if (unless_present && present) add = false;
  std::string out;
  out.reserve(run.size() + run.size() / 4 + replacement.size());
  text::AlignedWriter w(out, to_input);
  if (add) w.rewrite(0, 0, replacement);
  std::size_t from = 0;
  for (std::size_t i = 0; i < run.size(); ++i) {
    if (run[i] != ' ') continue;
    if (i > from) w.copy(run.substr(from, i - from), from);
    w.rewrite(i, i + 1, replacement);
    from = i + 1;
  }
  if (from < run.size()) w.copy(run.substr(from), from);
  w.finish(run.size());
  return out;
}

std::string SentencePieceSpaces::decode(std::string_view text, bool strip_first) const {
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t at;
       !replacement.empty() && (at = text.find(replacement, from)) != std::string_view::npos;
       from = at + replacement.size()) {
    out.append(text.substr(from, at - from));
    out.push_back(' ');
  }
  out.append(text.substr(from));
  if (strip_first && out.starts_with(' ')) out.erase(0, 1);
  return out;
}

bool parse_prepend_scheme(std::string_view name, SentencePieceSpaces::Prepend& out) {
  using P = SentencePieceSpaces::Prepend;
  if (name == "always") return out = P::kAlways, true;
  if (name == "first") return out = P::kFirst, true;
  if (name == "never") return out = P::kNever, true;
  return false;
}

}  // namespace tok::formats
