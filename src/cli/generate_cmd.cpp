// tok generate [-m MODEL] [PROMPT]: text generation with a GGUF model,
// streamed to stdout one token at a time (whole UTF-8 characters only).
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <random>

#include "cli/attn_options.hpp"
#include "cli/command.hpp"
#include "cli/generate_chat.hpp"
#include "cli/generate_multi.hpp"
#include "cli/input.hpp"
#include "cli/kv_options.hpp"
#include "cli/numeric_options.hpp"
#include "cli/runtime_options.hpp"
#include "core/output.hpp"
#include "model/end_of_generation.hpp"
#include "model/generator.hpp"
#include "model/kernels.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

struct GenerateArgs {
  RuntimeOptions model;
  KvOptions kv;
  std::string prompt;
  bool prompt_given = false;
  model::GenerateOptions gen;
  std::optional<std::uint64_t> seed;
  bool echo = false, stats = false, json = false;
  MultiGenerateArgs multi;  // --samples, --beams, --batch (generate_multi.cpp)
  AttnOptions attn;
  ChatOptions chat;  // --chat, --system, --print-prompt (generate_chat.cpp)
};

nlohmann::json stats_json(const model::GenerateStats& s, unsigned threads) {
  auto r = [](double v) { return std::round(v * 100) / 100; };
  nlohmann::json j = {{"prompt_tokens", s.prompt_tokens},
                      {"generated_tokens", s.generated_tokens},
                      {"ttft_ms", r(s.ttft_ms)},
                      {"prefill_ms", r(s.prefill_ms)},
                      {"prefill_tokens_per_s", r(s.prefill_tokens_per_s())},
                      {"decode_ms", r(s.decode_ms)},
                      {"decode_tokens_per_s", r(s.decode_tokens_per_s())},
                      {"model_bytes", s.model_bytes},
                      {"kv_bytes", s.kv_bytes},
                      {"threads", threads},
                      {"kernels", model::isa_name(model::best_kernels().isa)},
                      {"stop", std::string(model::stop_reason_name(s.stop))}};
  j.update(nlohmann::json::parse(s.kv.to_json()));  // kv_* keys: docs/kv.md
  return j;
}

// Are stdout and stderr the same terminal? Then a line stderr writes (stats,
// warnings, --logprobs) would continue the text's open line: it is started
// on a line of its own by a newline on stderr, leaving stdout's bytes as
// generated.
bool same_terminal() {
  struct stat a {
  }, b{};
  return isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1 &&
         fstat(STDOUT_FILENO, &a) == 0 && fstat(STDERR_FILENO, &b) == 0 && a.st_rdev == b.st_rdev;
}

nlohmann::json token_json(const bpe::Tokenizer& tk, const model::TokenInfo& t) {
  nlohmann::json top = nlohmann::json::array();
  for (auto [id, lp] : t.top)
    top.push_back({{"id", id}, {"token", escape_bytes(tk.token_bytes(id))}, {"logprob", lp}});
  return {{"id", t.id},
          {"token", escape_bytes(tk.token_bytes(t.id))},
          {"logprob", t.logprob},
          {"top", top}};
}

int run_generate(GenerateArgs& a) {
  for (std::string& stop : a.gen.stops) {
    auto bytes = text::unescape_c(stop);
    if (!bytes.ok()) throw UsageError{"--stop '" + stop + "': " + bytes.error().message};
    stop = std::move(*bytes);
  }
  if (a.multi.active()) {
    if (a.chat.active() || a.chat.print_prompt) {
      throw UsageError{
          "--chat, --system and --print-prompt work only without --samples, --beams and --batch"};
    }
    if (a.attn.enabled()) {
      throw UsageError{
          "--attn-report and --attn-svg work only without --samples, --beams and --batch"};
    }
    return run_generate_multi(a.multi, GenerateContext{a.model, a.kv, a.gen, a.seed, a.prompt,
                                                       a.prompt_given, a.json, a.stats, a.echo});
  }
  auto m = a.model.load();
  if (!m.ok()) return report(m.error());
  const bpe::Tokenizer& tk = m->tokenizer();
  std::string prompt;
  std::vector<bpe::TokenId> ids;
  if (a.chat.active()) {
    auto chat = chat_prompt(a.chat, *m, a.prompt, a.prompt_given);
    if (!chat.ok()) return report(chat.error());
    prompt = std::move(chat->text);
    ids = std::move(chat->ids);
  } else {
    auto prompt_res = prompt_ids(*m, a.prompt, a.prompt_given, &prompt);
    if (!prompt_res.ok()) return report(prompt_res.error());
    ids = std::move(*prompt_res);
  }
  if (a.chat.print_prompt) {
    Output out;
    out.write(prompt);
    out.flush();
    return 0;
  }
  a.gen.end_ids = model::end_of_generation_ids(tk, &m->file());
  a.gen.ctx = a.model.ctx;
  const int ctx = a.model.ctx > 0 ? a.model.ctx : static_cast<int>(m->config().ctx);
  auto kv = a.kv.config(*m, ctx);
  if (!kv.ok()) return report(make_error("{}: {}", m->path(), kv.error().message));
  a.gen.kv = *kv;
  a.gen.sampling.seed = a.seed ? *a.seed : std::random_device{}();
  if (a.attn.enabled()) {
    auto begun = a.attn.begin(*m, ids, a.gen.max_tokens, ctx);
    if (!begun.ok()) return report(begun.error());
    a.gen.observer = a.attn.observer();
  }
  unsigned threads = a.model.thread_count();
  ThreadPool pool(threads);
  Output out;
  nlohmann::json tokens = nlohmann::json::array();
  std::vector<bpe::TokenId> generated;
  const bool shared = same_terminal();
  bool line_open = false;  // stdout's last byte is not a newline
  auto own_line = [&] {
    if (shared && line_open) std::fputc('\n', stderr);
    line_open = false;
  };
  model::GenerateCallbacks cb;
  cb.token = [&](const model::TokenInfo& t) {
    generated.push_back(t.id);
    if (a.gen.logprobs > 0) {
      if (a.json) {
        tokens.push_back(token_json(tk, t));
      } else {
        own_line();
        std::fprintf(stderr, "%s\n", token_json(tk, t).dump().c_str());
      }
    }
  };
  std::string text;
  if (a.json) {
    cb.text = [&](std::string_view s) { text += s; };
  } else {
    // One flush per token: `tok generate | head -1` sees each line at once
    // and a closed pipe ends generation quietly (BrokenPipe -> exit 0).
    cb.text = [&](std::string_view s) {
      out.write(s);
      out.flush();
      if (!s.empty()) line_open = s.back() != '\n';
    };
    if (a.echo) {
      out.write(prompt);
      out.flush();
      if (!prompt.empty()) line_open = prompt.back() != '\n';
    }
  }
  auto st = model::generate(*m, pool, ids, a.gen, cb);
  if (!st.ok()) return report(make_error("{}: {}", m->path(), st.error().message));
  if (a.attn.enabled()) {
    auto done = a.attn.finish(*m, ids);
    if (!done.ok()) return report(done.error());
  }
  if (a.json) {
    nlohmann::json j = {{"text", (a.echo ? prompt : std::string()) + text},
                        {"prompt_ids", ids},
                        {"ids", generated},
                        {"stats", stats_json(*st, threads)}};
    if (a.gen.logprobs > 0) j["logprobs"] = tokens;
    out.write(text::escape_json_controls(
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    out.put('\n');
  } else if (!text.empty() || st->generated_tokens > 0) {
    out.put('\n');
    line_open = false;
  }
  out.flush();
  own_line();
  if (st->stop == model::StopReason::kContextFull) {
    // The numbers of --stats: the last generated token is printed but never
    // evaluated, so prompt + generated is one more than the context holds.
    warn(fmt::format(
        "context full: stopped after {} generated tokens ({} prompt tokens; "
        "context {}; see --ctx)",
        st->generated_tokens, st->prompt_tokens, a.model.ctx > 0 ? a.model.ctx : m->config().ctx));
  }
  if (a.stats && !a.json) std::fprintf(stderr, "%s\n", stats_json(*st, threads).dump().c_str());
  return 0;
}

}  // namespace

void add_generate(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<GenerateArgs>();
  CLI::App* sub =
      app.add_subcommand("generate", "Generate text with a GGUF model (streams to stdout)");
  a->model.add(sub);
  a->kv.add(sub);
  auto* positional = sub->add_option("PROMPT", a->prompt, "Prompt text (default: read from stdin)")
                         ->each([a](const std::string&) { a->prompt_given = true; });
  sub->add_option("-p,--prompt", a->prompt, "Prompt text, as llama-cli takes it (same as PROMPT)")
      ->each([a](const std::string&) { a->prompt_given = true; })
      ->excludes(positional);
  auto& g = a->gen;
  auto& s = g.sampling;
  sub->add_option("-n,--max-tokens", g.max_tokens, "Most tokens to generate")
      ->capture_default_str()
      ->check(integer_in(0, 1 << 24));
  sub->add_option("--temperature,--temp", s.temperature, "Sampling temperature (0: greedy)")
      ->capture_default_str()
      ->check(real_in(0, 100));
  sub->add_option("--top-k", s.top_k, "Sample among the K most likely tokens (0: all)")
      ->capture_default_str()
      ->check(integer_in(0, max_of<int>()));
  sub->add_option("--top-p", s.top_p,
                  "Nucleus sampling: smallest set with this probability (1: off)")
      ->capture_default_str()
      ->check(real_in(0, 1));
  sub->add_option("--min-p", s.min_p,
                  "Drop tokens less likely than this times the most likely (0: off)")
      ->capture_default_str()
      ->check(real_in(0, 1));
  sub->add_option("--repeat-penalty", s.repeat_penalty,
                  "Penalty for tokens among the last 64 (1: off)")
      ->capture_default_str()
      ->check(real_in(0, 100));
  sub->add_option("--seed", a->seed,
                  "Random seed: the same seed gives the same text (default: random)")
      ->check(integer_in(0, max_of<std::uint64_t>()));
  sub->add_flag("--greedy", s.greedy, "Always take the most likely token");
  // One value per flag, as llama.cpp's --reverse-prompt: `--stop . PROMPT`
  // keeps PROMPT the prompt.
  sub->add_option(
         "--stop", g.stops,
         "Stop before this string; C escapes \\n \\t \\r \\\\ \\xHH (repeat the flag for more)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_flag("--echo", a->echo, "Print the prompt before the generated text");
  sub->add_flag("--stats", a->stats,
                "Print one JSON line of timing statistics to stderr at the end");
  sub->add_option(
         "--logprobs", g.logprobs,
         "Report the K most likely tokens of each step (JSON lines on stderr, or in --json)")
      ->check(integer_in(0, 100));
  sub->add_flag("--json", a->json, "Print one JSON object (text, ids, stats) instead of streaming");
  a->multi.add(sub);
  a->attn.add(sub);
  a->chat.add(sub);
  commands.add(sub, [a] { return run_generate(*a); });
}

}  // namespace tok::cli
