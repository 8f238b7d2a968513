// `tok generate --samples N` and `--beams B` (and the dispatch to --batch):
// the prompt is evaluated once on a paged KV cache and shared by every
// sample or beam; the outputs are printed when all of them are done.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>

#include "cli/command.hpp"
#include "cli/generate_multi.hpp"
#include "cli/input.hpp"
#include "cli/numeric_options.hpp"
#include "core/output.hpp"
#include "model/samples.hpp"
#include "text/escape.hpp"

namespace tok::cli {

int run_generate_batch(const MultiGenerateArgs& a, const GenerateContext& c, const model::Model& m,
                       kv::PagedKvCache& cache, int ctx);

namespace {

nlohmann::json multi_stats_json(const model::MultiStats& s, std::size_t block_bytes,
                                unsigned threads) {
  auto r = [](double v) { return std::round(v * 100) / 100; };
  nlohmann::json j = {{"prompt_tokens", s.prompt_tokens},
                      {"prefill_tokens", s.prefill_tokens},
                      {"generated_tokens", s.generated_tokens},
                      {"steps", s.steps},
                      {"seconds", r(s.seconds)},
                      {"tokens_per_s", r(s.tokens_per_s())},
                      {"threads", threads}};
  j.update(nlohmann::json::parse(s.kv.to_json()));
  j["kv_bytes_peak"] = s.kv.blocks_peak * block_bytes;
  return j;
}

nlohmann::json result_json(const model::SampleResult& r, bool beam) {
  nlohmann::json j = {{"text", r.text},
                      {"ids", r.ids},
                      {"tokens", r.ids.size()},
                      {"finish_reason", std::string(model::finish_name(r.finish))}};
  if (beam) j["score"] = r.score;
  return j;
}

void check_flags(const MultiGenerateArgs& a, const GenerateContext& c) {
  int modes = (a.samples > 0) + (a.beams > 0) + !a.batch.empty();
  if (modes > 1) throw UsageError{"--samples, --beams and --batch exclude each other"};
  if (c.gen.logprobs > 0)
    throw UsageError{"--logprobs works only without --samples, --beams and --batch"};
  if (c.echo && !a.batch.empty()) throw UsageError{"--echo does not apply to --batch"};
  if (!a.batch.empty() && c.prompt_given)
    throw UsageError{"--batch takes its prompts from the file, not PROMPT"};
  if (a.beams > 0 && !c.gen.stops.empty()) throw UsageError{"--stop does not apply to --beams"};
  if (a.no_share && a.samples == 0 && a.batch.empty()) {
    throw UsageError{"--no-share applies to --samples and --batch"};
  }
  if (c.kv.policy != "full") {
    throw UsageError{"--kv-policy works only without --samples, --beams and --batch"};
  }
}

int print_multi(const GenerateContext& c, const std::string& prompt, const model::MultiRun& run,
                const std::vector<bpe::TokenId>& ids, bool beams, std::size_t block_bytes,
                unsigned threads) {
  Output out;
  std::string echo = c.echo ? prompt : std::string();
  if (c.json) {
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      nlohmann::json r = result_json(run.results[i], beams);
      r["text"] = echo + run.results[i].text;
      if (!beams) r["index"] = i;
      list.push_back(r);
    }
    nlohmann::json j = {{"prompt_ids", ids},
                        {beams ? "beams" : "samples", list},
                        {"stats", multi_stats_json(run.stats, block_bytes, threads)}};
    if (beams) j["text"] = echo + (run.results.empty() ? std::string() : run.results[0].text);
    out.write(text::escape_json_controls(
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    out.put('\n');
  } else if (beams) {
    out.write(echo + (run.results.empty() ? std::string() : run.results[0].text));
    out.put('\n');
  } else {
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      out.write(fmt::format("--- sample {} ---\n", i));
      out.write(echo + run.results[i].text);
      out.put('\n');
    }
  }
  out.flush();
  if (c.stats && !c.json) {
    std::fprintf(stderr, "%s\n", multi_stats_json(run.stats, block_bytes, threads).dump().c_str());
  }
  return 0;
}

}  // namespace

void MultiGenerateArgs::add(CLI::App* app) {
  app->add_option("--samples", samples,
                  "N continuations of the prompt, sharing its KV blocks (sample i uses seed + i)")
      ->check(integer_in(1, 64));
  app->add_option("--beams", beams,
                  "Beam search with B beams (sum of log-probabilities); prints the best")
      ->check(integer_in(1, 64));
  app->add_option(
      "--batch", batch,
      "Run the prompts of a JSONL file together (continuous batching under --kv-budget)");
  app->add_flag("--no-share", no_share,
                "Evaluate the prompt once per sample (--samples) or request (--batch) instead of "
                "sharing KV blocks");
  app->add_option("--max-batch", max_batch, "With --batch: most sequences stepped together")
      ->capture_default_str()
      ->check(integer_in(1, 64));
}

int run_generate_multi(const MultiGenerateArgs& a, const GenerateContext& c) {
  check_flags(a, c);
  auto m = c.runtime.load();
  if (!m.ok()) return report(m.error());
  int ctx = c.runtime.ctx > 0 ? c.runtime.ctx : static_cast<int>(m->config().ctx);
  auto config = c.kv.config(*m, ctx);
  if (!config.ok()) return report(config.error());
  auto cache = kv::PagedKvCache::create(*config);
  if (!cache.ok()) return report(cache.error());
  if (!a.batch.empty()) return run_generate_batch(a, c, *m, *cache, ctx);

  std::string prompt;  // the argument, or stdin
  auto prompt_res = prompt_ids(*m, c.prompt, c.prompt_given, &prompt);
  if (!prompt_res.ok()) return report(prompt_res.error());
  std::vector<bpe::TokenId> ids = std::move(*prompt_res);
  if (ids.empty())
    return report(make_error("the prompt is empty (and the model adds no BOS token)"));
  if (ids.size() > static_cast<std::size_t>(ctx)) {
    return report(make_error("the prompt has {} tokens, more than the context of {} (see --ctx)",
                             ids.size(), ctx));
  }
  unsigned threads = c.runtime.thread_count();
  ThreadPool pool(threads);
  Result<model::MultiRun> run = make_error("no --samples or --beams");
  if (a.samples > 0) {
    model::SamplesOptions o;
    o.samples = a.samples;
    o.share = !a.no_share;
    o.ctx = ctx;
    o.max_tokens = c.gen.max_tokens;
    o.stops = c.gen.stops;
    o.sampling = c.gen.sampling;
    o.sampling.seed = c.seed ? *c.seed : std::random_device{}();
    run = model::generate_samples(*m, pool, *cache, ids, o);
  } else {
    run = model::beam_search(*m, pool, *cache, ids,
                             model::BeamOptions{a.beams, ctx, c.gen.max_tokens});
  }
  if (!run.ok()) return report(make_error("{}: {}", m->path(), run.error().message));
  return print_multi(c, prompt, *run, ids, a.beams > 0, cache->pool().block_bytes(), threads);
}

}  // namespace tok::cli
