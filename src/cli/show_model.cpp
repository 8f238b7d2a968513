#include "cli/show_model.hpp"

#include "cost/kv_estimate.hpp"
#include "cost/pricing.hpp"
#include "formats/registry.hpp"

namespace tok::cli {

Result<std::unique_ptr<ShowModel>> ShowModel::load(const ShowModelArgs& a) {
  auto m = std::make_unique<ShowModel>();
  if (a.model) {
    TOK_ASSIGN(m->catalog_, cost::Catalog::load_default(a.model_files));
    TOK_ASSIGN(m->model_, m->catalog_.get(*a.model));
    TOK_ASSIGN(m->model_tokenizer_, m->set_.get(*m->model_));
  }
  for (const auto& spec : a.encodings) {
    if (a.pattern) {
      formats::LoadOptions lo;
      lo.pattern = a.pattern;
      TOK_ASSIGN(bpe::Tokenizer tk, formats::load_tokenizer(spec, lo));
      m->owned_.push_back(std::make_unique<bpe::Tokenizer>(std::move(tk)));
      m->tokenizers_.push_back(m->owned_.back().get());
    } else {
      TOK_ASSIGN(const bpe::Tokenizer* tk, m->set_.get_encoding(spec));
      m->tokenizers_.push_back(tk);
    }
  }
  if (m->tokenizers_.empty()) {
    TOK_ASSIGN(const bpe::Tokenizer* tk,
               m->model_ ? m->model_tokenizer_ : m->set_.get_encoding("o200k_base"));
    m->tokenizers_.push_back(tk);
  }
  return m;
}

std::optional<show::ModelFigures> ShowModel::figures(std::uint64_t tokens) const {
  if (!model_) return std::nullopt;
  const cost::ModelInfo& m = *model_;
  show::ModelFigures f;
  f.model = m.id;
  f.encoding = model_tokenizer_->name();
  f.tokens = tokens;
  f.estimate = m.estimate;
  cost::CostLine cl = cost::price_tokens(m, tokens, 0, 0);
  f.input_usd = cl.input_usd;
  f.usd_per_mtok = m.price.input;
  f.context_window = m.context_window;
  f.window_share = cl.window_share;
  if (m.kv) {
    cost::KvEstimate e = cost::estimate_kv(*m.kv, tokens);
    cost::KvEstimate twice = cost::estimate_kv(*m.kv, 2 * tokens);
    f.kv_block_tokens = cost::kDefaultBlockTokens;
    f.kv_paged_tokens = e.paged_tokens;
    f.kv_f16 = e.bytes_f16;
    f.kv_q8 = e.bytes_q8_0;
    f.attention_flops = e.attention_flops;
    f.flops_at_double = twice.attention_flops;
    f.kv_f16_at_double = twice.bytes_f16;
  }
  return f;
}

}  // namespace tok::cli
