// `tok generate --batch FILE.jsonl`: one request per line, run together with
// continuous batching (model/batch.hpp); one JSON object per request on
// stdout, in input order, each written as soon as it and all before it are
// done; a report on stderr at the end. A line may also be an OpenAI Batch
// API request ({"custom_id", "method", "url", "body": {...}}), the format
// `tok count --batch` reads: its body is the request, its custom_id comes
// back in the output line.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>

#include "cli/command.hpp"
#include "cli/generate_multi.hpp"
#include "cli/input.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "model/batch.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

constexpr std::array<std::string_view, 7> kKeys = {"prompt",     "top_k", "top_p", "temperature",
                                                   "max_tokens", "seed",  "stop"};

struct Line {
  std::string where;  // FILE:LINE
  model::BatchRequest request;
  std::optional<nlohmann::json> custom_id;  // from an OpenAI batch envelope
};

// An OpenAI Batch API line wraps the request: {"custom_id", "method", "url",
// "body"}. Returns the body (the request itself) and the custom_id; a bare
// request is returned as it is. A completion body's "model" names a hosted
// model and is ignored: the GGUF file is -m's.
Result<nlohmann::json> unwrap_envelope(nlohmann::json j, std::optional<nlohmann::json>& custom_id) {
  if (!j.is_object() || !j.contains("body")) return j;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "custom_id" && it.key() != "method" && it.key() != "url" &&
        it.key() != "body") {
      return make_error(
          "unknown key \"{}\" in an OpenAI batch line (expected custom_id, method, "
          "url, body)",
          it.key());
    }
  }
  if (j.contains("custom_id")) custom_id = j["custom_id"];
  nlohmann::json body = j["body"];
  if (!body.is_object()) return make_error("\"body\" must be a JSON object");
  if (body.contains("messages")) {
    return make_error(
        "a chat request (\"messages\"): generate --batch runs completion requests, "
        "with \"prompt\"");
  }
  body.erase("model");
  return body;
}

// Checks one key's value and stores it into r; an error says what the key must be.
Status apply_key(const std::string& key, const nlohmann::json& v, model::BatchRequest& r,
                 std::string& prompt) {
  auto bad = [&](const char* what) { return make_error("\"{}\" must be {}", key, what); };
  if (key == "prompt") {
    if (!v.is_string()) return bad("a string");
    prompt = v.get<std::string>();
  } else if (key == "max_tokens") {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > (1 << 24)) {
      return bad("an integer from 0 to 16777216");
    }
    r.max_tokens = v.get<int>();
  } else if (key == "seed") {
    if (!v.is_number_unsigned()) return bad("a non-negative integer");
    r.sampling.seed = v.get<std::uint64_t>();
  } else if (key == "temperature") {
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 100)
      return bad("a number from 0 to 100");
    r.sampling.temperature = v.get<float>();
  } else if (key == "top_p") {
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
      return bad("a number from 0 to 1");
    r.sampling.top_p = v.get<float>();
  } else if (key == "top_k") {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > (1 << 30)) {
      return bad("a non-negative integer");
    }
    r.sampling.top_k = v.get<int>();
  } else if (key == "stop") {
    r.stops.clear();
    if (v.is_string()) {
      r.stops.push_back(v.get<std::string>());
    } else if (v.is_array() &&
               std::all_of(v.begin(), v.end(), [](const auto& s) { return s.is_string(); })) {
      for (const auto& s : v) r.stops.push_back(s.get<std::string>());
    } else {
      return bad("a string or an array of strings");
    }
  }
  return {};
}

// One request from one line; defaults come from the command line.
Result<model::BatchRequest> parse_line(std::string_view line, const model::BatchRequest& defaults,
                                       const bpe::Tokenizer& tk,
                                       std::optional<nlohmann::json>& custom_id) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    return make_error("malformed JSON at byte {}", e.byte);
  }
  TOK_ASSIGN(j, unwrap_envelope(std::move(j), custom_id));
  if (!j.is_object()) return make_error("expected a JSON object with a \"prompt\"");
  model::BatchRequest r = defaults;
  std::optional<std::string> prompt;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& value = it.value();
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      return make_error(
          "unknown key \"{}\" (expected prompt, max_tokens, seed, temperature, top_p, "
          "top_k, stop)",
          key);
    }
    std::string p;
    TOK_TRY(apply_key(key, value, r, p));
    if (key == "prompt") prompt = std::move(p);
  }
  if (!prompt) return make_error("missing \"prompt\"");
  r.prompt.clear();
  if (tk.add_bos && tk.bos) r.prompt.push_back(*tk.bos);
  TOK_ASSIGN(std::vector<bpe::TokenId> ids, tk.encode(*prompt, bpe::SpecialMode::kText));
  r.prompt.insert(r.prompt.end(), ids.begin(), ids.end());
  return r;
}

// Every line parsed and checked before anything runs.
Result<std::vector<Line>> read_requests(const std::string& path,
                                        const model::BatchRequest& defaults, bool seeded,
                                        const model::Model& m, const kv::PagedKvCache& cache,
                                        int ctx) {
  TOK_ASSIGN(MappedFile f, open_input(path));
  std::string source = path == "-" ? "<stdin>" : path;
  std::string_view text = f.bytes();
  std::vector<Line> lines;
  std::random_device rd;
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    std::size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::string where = fmt::format("{}:{}", source, line_no);
    model::BatchRequest d = defaults;
    if (!seeded) d.sampling.seed = (static_cast<std::uint64_t>(rd()) << 32) | rd();
    std::optional<nlohmann::json> custom_id;
    auto r = parse_line(line, d, m.tokenizer(), custom_id);
    if (!r.ok()) return make_error("{}: {}", where, r.error().message);
    Status ok = model::check_batch_request(*r, cache, ctx);
    if (!ok.ok()) return make_error("{}: {}", where, ok.error().message);
    lines.push_back(Line{where, std::move(*r), std::move(custom_id)});
  }
  if (lines.empty())
    return make_error("{}: no requests (expected one JSON object per line)", source);
  return lines;
}

nlohmann::json report_json(const model::BatchStats& s, std::size_t block_bytes, unsigned threads) {
  auto r = [](double v) { return std::round(v * 100) / 100; };
  nlohmann::json j = {{"sequences", s.sequences},
                      {"prompt_tokens", s.prompt_tokens},
                      {"generated_tokens", s.generated_tokens},
                      {"recomputed_tokens", s.recomputed_tokens},
                      {"seconds", r(s.seconds)},
                      {"tokens_per_s", r(s.tokens_per_s())},
                      {"steps", s.steps},
                      {"peak_in_flight", s.peak_in_flight},
                      {"preemptions", s.preemptions},
                      {"prefix_shared_tokens", s.prefix_shared_tokens},
                      {"prefix_shared_blocks_peak", s.prefix_shared_blocks_peak},
                      {"threads", threads}};
  j.update(nlohmann::json::parse(s.kv.to_json()));
  j["kv_bytes_peak"] = s.kv.blocks_peak * block_bytes;
  return j;
}

}  // namespace

int run_generate_batch(const MultiGenerateArgs& a, const GenerateContext& c, const model::Model& m,
                       kv::PagedKvCache& cache, int ctx) {
  model::BatchRequest defaults;
  defaults.max_tokens = c.gen.max_tokens;
  defaults.stops = c.gen.stops;
  defaults.sampling = c.gen.sampling;
  if (c.seed) defaults.sampling.seed = *c.seed;
  auto lines = read_requests(a.batch, defaults, c.seed.has_value(), m, cache, ctx);
  if (!lines.ok()) return report(lines.error());
  std::vector<model::BatchRequest> requests;
  std::vector<std::optional<nlohmann::json>> custom_ids;
  for (Line& l : *lines) {
    requests.push_back(std::move(l.request));
    custom_ids.push_back(std::move(l.custom_id));
  }
  unsigned threads = c.runtime.thread_count();
  ThreadPool pool(threads);
  Output out;
  std::vector<std::optional<std::string>> ready(requests.size());
  std::size_t next = 0;
  auto done = [&](std::size_t i, model::BatchResult&& r) {
    nlohmann::json j = {{"index", i},
                        {"text", r.text},
                        {"tokens", r.ids.size()},
                        {"finish_reason", std::string(model::finish_name(r.finish))},
                        {"prompt_tokens", r.prompt_tokens},
                        {"ids", r.ids}};
    if (custom_ids[i]) j["custom_id"] = *custom_ids[i];
    ready[i] = text::escape_json_controls(
        j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    for (; next < ready.size() && ready[next]; ++next) {
      out.write(*ready[next]);
      out.put('\n');
      ready[next].reset();
    }
    out.flush();
  };
  model::BatchOptions o{ctx, a.max_batch, !a.no_share};
  auto st = model::run_batch(m, pool, cache, requests, o, done);
  if (!st.ok()) return report(make_error("{}: {}", m.path(), st.error().message));
  out.flush();
  if (c.stats) {
    std::fprintf(stderr, "%s\n",
                 report_json(*st, cache.pool().block_bytes(), threads).dump().c_str());
  } else {
    std::fprintf(stderr,
                 "batch: %zu sequences, %zu tokens in %.2f s (%.1f tokens/s), %zu in flight at "
                 "most, KV peak %s (contiguous: %s), %zu preemptions\n",
                 st->sequences, st->generated_tokens, st->seconds, st->tokens_per_s(),
                 st->peak_in_flight,
                 human_bytes(st->kv.blocks_peak * cache.pool().block_bytes()).c_str(),
                 human_bytes(st->kv.bytes_contiguous).c_str(), st->preemptions);
  }
  return 0;
}

}  // namespace tok::cli
