#include "cli/kv_options.hpp"

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/numeric_options.hpp"
#include "core/number_format.hpp"
#include "kv/byte_size.hpp"
#include "model/kv_sequence.hpp"

namespace tok::cli {
namespace {

// A CLI11 check from one of src/kv's parsers: its error message is the usage error.
template <typename Parse>
CLI::Validator parser_check(Parse parse, const char* name) {
  return CLI::Validator(
      [parse](std::string& s) -> std::string {
        auto r = parse(s);
        return r.ok() ? std::string() : r.error().message;
      },
      "", name);
}

}  // namespace

void KvOptions::add(CLI::App* app) {
  app->add_option("--kv-block", block, "KV-cache block size in tokens (paged cache)")
      ->capture_default_str()
      ->check(integer_in(1, 4096));
  app->add_option("--kv-type", type, "KV-cache storage: f32, f16, q8_0 or q4_0")
      ->capture_default_str()
      ->check(parser_check(kv::parse_kv_type, "KV_TYPE"));
  app->add_option("--kv-policy", policy,
                  "Eviction: full, window:W, sinks:S,window:W or h2o:H,window:W")
      ->capture_default_str()
      ->check(parser_check(kv::parse_eviction_policy, "POLICY"));
  app->add_option("--kv-budget", budget, "Cap on KV-cache memory, e.g. 64MiB (default: none)")
      ->check(parser_check(kv::parse_byte_size, "SIZE"));
}

Result<kv::KvConfig> KvOptions::config(const model::Model& m, int ctx) const {
  kv::KvConfig c;
  c.layers = static_cast<int>(m.config().n_layers);
  c.kv_heads = static_cast<int>(m.config().n_kv_heads);
  c.head_dim = static_cast<int>(m.config().head_dim);
  c.block_tokens = block;
  TOK_ASSIGN(c.type, kv::parse_kv_type(type));
  TOK_ASSIGN(c.policy, kv::parse_eviction_policy(policy));
  if (!budget.empty()) {
    TOK_ASSIGN(c.budget_bytes, kv::parse_byte_size(budget));
  }
  c.context = ctx;
  // Surfaces a row/type mismatch, a budget below one block or a policy that
  // leaves no room in the context now, as one error.
  TOK_ASSIGN(kv::PagedKvCache cache, kv::PagedKvCache::create(c));
  TOK_TRY(model::KvSequence::fits(c.policy, ctx));
  // The cache holds whole blocks: a budget between two multiples is rounded
  // down, and says so rather than reporting a smaller figure unexplained.
  std::uint64_t usable = cache.pool().max_blocks() * cache.pool().block_bytes();
  if (c.budget_bytes != 0 && usable != c.budget_bytes) {
    warn(
        fmt::format("--kv-budget {} rounded down to {} ({} bytes: {} blocks of {} bytes, {} tokens "
                    "each)",
                    budget, human_bytes(usable), usable, cache.pool().max_blocks(),
                    cache.pool().block_bytes(), c.block_tokens));
  }
  return c;
}

}  // namespace tok::cli
