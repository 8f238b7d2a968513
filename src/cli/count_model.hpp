// Shared by the parts of `tok count`: the columns being counted (one per
// model, or one bare encoding), the per-input rows, and the rendering of the
// results as a table, JSON or CSV.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "cost/catalog.hpp"
#include "cost/chat.hpp"
#include "cost/pricing.hpp"

namespace tok::cli {

// One counting column: a catalog model, or (no -m) the bare -e encoding.
struct Column {
  std::string label;                         // model id or encoding name
  const cost::ModelInfo* model = nullptr;    // null for a bare encoding
  const bpe::Tokenizer* tokenizer = nullptr;
  std::size_t tokenizer_index = 0;           // columns sharing a tokenizer count once
  cost::ChatRules chat;
};

struct Row {
  std::string path;
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> tokens;  // (columns)
  std::uint64_t output = 0;  // a batch request's output tokens (per_request)
};

struct CountReport {
  std::vector<Column> columns;
  std::vector<Row> rows;
  Row total{"total", 0, {}};
  std::vector<std::string> skipped;  // binary files left out of a walk
  std::uint64_t output_tokens = 0;
  std::uint64_t cached_tokens = 0;
  bool output_is_max = false;  // output tokens are max_tokens sums (--batch)
  // The total is billed request by request, each at its own tier: every row
  // is one request (a file, a text, a chat, a batch line) with
  // cached_tokens and its output. per_request: the rows carry their own
  // output (Row::output, a batch file); else each has output_tokens.
  // one_request (--total, not for a batch file): the total is billed as one
  // request holding every input instead.
  bool per_request = false;
  bool one_request = false;
  bool batch_rates = false;  // bill at the models' Batch API rates
  bool kv = false;
  std::size_t top = 0;
};

// Costs (count_output.cpp): one row as one request, and the total (the sum
// of the rows' requests, or one request with one_request).
cost::CostLine row_cost(const CountReport& r, std::size_t column, const Row& row);
cost::CostLine total_cost(const CountReport& r, std::size_t column);

// Renderers (count_output.cpp). Each writes to stdout through Output.
void print_table(const CountReport& r);
// legacy: no -m and one encoding, {"encoding", "files", "total"}.
void print_json(const CountReport& r, bool legacy);
void print_csv(const CountReport& r);
// Warnings on stderr: windows exceeded, estimates, output limits.
void warn_limits(const CountReport& r);

}  // namespace tok::cli
