#include "python/engine.hpp"

#include <unordered_set>

namespace tok::python {

using bpe::SpecialMode;

Engine::Engine(bpe::Tokenizer tokenizer)
    : tokenizer_(std::make_shared<const bpe::Tokenizer>(std::move(tokenizer))) {}

Engine::Lease::Lease(const Engine& e) : engine_(e) {
  std::lock_guard lock(e.mutex_);
  if (!e.free_.empty()) {
    scratch_ = std::move(e.free_.back());
    e.free_.pop_back();
  }
  if (!scratch_) scratch_ = std::make_unique<bpe::EncodeScratch>();
}

Engine::Lease::~Lease() {
  std::lock_guard lock(engine_.mutex_);
  engine_.free_.push_back(std::move(scratch_));
}

SpecialSet Engine::complement(const SpecialSet& set) const {
  SpecialSet out;
  if (set.all) return out;
  std::size_t n = tokenizer_->specials().size();
  if (set.none()) {
    out.all = n > 0;
    return out;
  }
  out.flags.resize(n);
  bool any = false;
  for (std::size_t k = 0; k < n; ++k) {
    out.flags[k] = !set.flags[k];
    any = any || out.flags[k];
  }
  if (!any) out.flags.clear();
  return out;
}

SpecialSet Engine::select(const std::vector<std::string>* texts) const {
  SpecialSet set;
  const auto& specials = tokenizer_->specials();
  if (!texts) {
    set.all = true;
    return set;
  }
  if (texts->empty()) return set;
  set.flags.assign(specials.size(), false);
  std::unordered_set<std::string_view> wanted(texts->begin(), texts->end());
  std::size_t n = 0;
  for (std::size_t k = 0; k < specials.size(); ++k) {
    if (wanted.count(specials[k].text)) {
      set.flags[k] = true;
      ++n;
    }
  }
  if (n == 0) set.flags.clear();
  set.all = n == specials.size() && n > 0;
  return set;
}

std::optional<std::size_t> Engine::first_special(std::string_view text,
                                                 const SpecialSet& set) const {
  if (set.none()) return std::nullopt;
  const auto& specials = tokenizer_->specials();
  for (std::size_t from = 0;;) {
    auto [at, k] = tokenizer_->find_special(text, from);
    if (at == std::string_view::npos) return std::nullopt;
    if (set.has(k)) return k;
    // find_special gives the longest special at `at`; a shorter selected one
    // may start there too.
    for (std::size_t j = 0; j < specials.size(); ++j) {
      if (set.has(j) && text.substr(at).starts_with(specials[j].text)) return j;
    }
    from = at + 1;
  }
}

Status Engine::encode(std::string_view text, const SpecialSet& allowed,
                      std::vector<bpe::TokenId>& out, bpe::EncodeScratch& scratch) const {
  const bpe::Tokenizer& t = *tokenizer_;
  if (allowed.none() || allowed.all) {
    return t.encode(text, allowed.all ? SpecialMode::kAllow : SpecialMode::kText, out, scratch);
  }
  // A subset: split at the allowed specials only (tiktoken skips the others
  // one byte at a time, as here).
  const auto& specials = t.specials();
  std::size_t pos = 0, from = 0;
  while (true) {
    auto [at, k] = t.find_special(text, from);
    if (at != std::string_view::npos && !allowed.has(k)) {
      from = at + 1;
      continue;
    }
    std::size_t end = at == std::string_view::npos ? text.size() : at;
    TOK_TRY(t.encode(text.substr(pos, end - pos), SpecialMode::kText, out, scratch));
    if (at == std::string_view::npos) break;
    out.push_back(specials[k].id);
    pos = from = at + specials[k].text.size();
  }
  return {};
}

std::string_view Engine::last_segment(std::string_view text, const SpecialSet& allowed) const {
  if (allowed.none()) return text;
  const auto& specials = tokenizer_->specials();
  std::size_t pos = 0;
  for (std::size_t from = 0;;) {
    auto [at, k] = tokenizer_->find_special(text, from);
    if (at == std::string_view::npos) return text.substr(pos);
    if (allowed.has(k)) {
      pos = from = at + specials[k].text.size();
    } else {
      from = at + 1;
    }
  }
}

}  // namespace tok::python
