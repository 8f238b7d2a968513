// Beam search over a paged KV cache: each beam is one sequence; successors
// of a beam fork it (sharing every block, copying the partly filled last
// one on the next write) and beams nobody continues are freed.
#include <algorithm>
#include <optional>

#include "model/paged_kv_adapter.hpp"
#include "model/samples.hpp"

namespace tok::model {
namespace {

struct Beam {
  PagedKvAdapter cache;
  std::vector<bpe::TokenId> ids;
  double score = 0;
};

struct Candidate {
  double score;
  std::size_t parent;
  bpe::TokenId id;
};

std::string beam_text(const bpe::Tokenizer& tk, const std::vector<bpe::TokenId>& ids) {
  std::string s;
  for (bpe::TokenId id : ids) {
    if (!tk.is_special(id)) s += tk.token_bytes(id);
  }
  return s;
}

// The `beams` best (beam, token) extensions, best first; ties go to the
// earlier beam, then the smaller id, so the search is deterministic.
std::vector<Candidate> candidates(const std::vector<Beam>& live, std::span<const float> logits,
                                  std::size_t nv, std::size_t vocab, int beams) {
  std::vector<Candidate> c;
  for (std::size_t b = 0; b < live.size(); ++b) {
    for (auto [id, lp] : top_logprobs(logits.subspan(b * nv, vocab), beams)) {
      c.push_back(Candidate{live[b].score + lp, b, id});
    }
  }
  std::sort(c.begin(), c.end(), [](const Candidate& x, const Candidate& y) {
    if (x.score != y.score) return x.score > y.score;
    return x.parent != y.parent ? x.parent < y.parent : x.id < y.id;
  });
  return c;
}

// The next generation of beams: a parent chosen k times is forked k - 1
// times and handed to its last successor; parents nobody chose are freed
// when live is replaced.
std::vector<Beam> advance(std::vector<Beam>& live, const std::vector<Candidate>& chosen) {
  std::vector<int> uses(live.size());
  for (const Candidate& c : chosen) ++uses[c.parent];
  std::vector<Beam> next;
  for (const Candidate& c : chosen) {
    Beam& p = live[c.parent];
    std::vector<bpe::TokenId> ids = p.ids;
    ids.push_back(c.id);
    if (--uses[c.parent] > 0) {
      next.push_back(Beam{p.cache.fork(), std::move(ids), c.score});
    } else {
      next.push_back(Beam{std::move(p.cache), std::move(ids), c.score});
    }
  }
  return next;
}

}  // namespace

Result<MultiRun> beam_search(const Model& model, ThreadPool& pool, kv::PagedKvCache& cache,
                             std::span<const bpe::TokenId> prompt, const BeamOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  if (o.beams < 1 || o.beams > Forward::kMaxBatch) {
    return make_error("--beams {}: expected 1 to {}", o.beams, Forward::kMaxBatch);
  }
  const bpe::Tokenizer& tk = model.tokenizer();
  std::size_t nv = static_cast<std::size_t>(model.config().n_vocab);
  std::size_t vocab = std::min(nv, tk.vocab_size());
  Forward fwd(model, pool);
  MultiRun run;
  MultiStats& st = run.stats;
  st.prompt_tokens = st.prefill_tokens = prompt.size();
  std::vector<Beam> live;
  live.push_back(Beam{PagedKvAdapter(cache, fwd.kv_shape(o.ctx)), {}, 0});
  TOK_ASSIGN(std::span<const float> logits, fwd.eval(prompt, live[0].cache));
  std::vector<SampleResult> done;
  auto best_done = [&] {
    double b = -1e300;
    for (const SampleResult& r : done) b = std::max(b, r.score);
    return b;
  };
  Finish live_end = Finish::kMaxTokens;
  bool keep_live = true;
  for (int len = 0; len < o.max_tokens; ++len) {
    std::vector<Candidate> chosen;
    for (const Candidate& c : candidates(live, logits, nv, vocab, o.beams)) {
      if (chosen.size() == static_cast<std::size_t>(o.beams)) break;
      if (tk.eos && c.id == *tk.eos) {
        std::vector<bpe::TokenId> ids = live[c.parent].ids;
        ids.push_back(c.id);
        done.push_back(SampleResult{beam_text(tk, ids), ids, Finish::kEndOfText, c.score});
      } else {
        chosen.push_back(c);
      }
    }
    // Scores only fall: once a finished beam is at least as good as the
    // best live one, no live beam can overtake it.
    if (chosen.empty() || (!done.empty() && best_done() >= chosen[0].score)) {
      keep_live = false;
      break;
    }
    live = advance(live, chosen);
    if (len + 1 == o.max_tokens) break;
    if (live[0].cache.size() >= o.ctx) {
      live_end = Finish::kContextFull;
      break;
    }
    std::vector<bpe::TokenId> tokens;
    std::vector<KvCache*> rows;
    for (Beam& b : live) {
      tokens.push_back(b.ids.back());
      rows.push_back(&b.cache);
    }
    TOK_ASSIGN(logits, fwd.eval_step(tokens, rows));
    ++st.steps;
    note_sharing(cache, st);
  }
  if (keep_live) {
    for (const Beam& b : live)
      done.push_back(SampleResult{beam_text(tk, b.ids), b.ids, live_end, b.score});
  }
  live.clear();
  std::stable_sort(done.begin(), done.end(),
                   [](const SampleResult& a, const SampleResult& b) { return a.score > b.score; });
  if (!done.empty()) st.generated_tokens = done[0].ids.size();  // of the best beam
  run.results = std::move(done);
  finish_stats(cache, t0, st);
  return run;
}

}  // namespace tok::model
