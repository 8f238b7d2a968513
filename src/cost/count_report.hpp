// The results of counting inputs for some models (or bare encodings), their
// bills, and the one JSON value that reports them: `tok count --json` prints
// it and Python's tok.count_files returns it as a dict (schema in
// docs/cost.md), so the two cannot drift apart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bpe/tokenizer.hpp"
#include "cost/catalog.hpp"
#include "cost/chat.hpp"
#include "cost/pricing.hpp"

namespace tok::cost {

// One counting column: a catalog model, or (no -m) a bare encoding.
struct CountColumn {
  std::string label;                 // model id or encoding name
  const ModelInfo* model = nullptr;  // null for a bare encoding
  const bpe::Tokenizer* tokenizer = nullptr;
  std::size_t tokenizer_index = 0;  // columns sharing a tokenizer count once
  ChatRules chat;
};

struct CountRow {
  std::string path;
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> tokens;  // (columns)
  std::uint64_t output = 0;           // a batch request's output tokens (per_request)
};

struct CountReport {
  std::vector<CountColumn> columns;
  std::vector<CountRow> rows;
  CountRow total{"total", 0, {}};
  std::vector<std::string> skipped;  // binary files left out of a walk
  std::uint64_t output_tokens = 0;
  std::uint64_t cached_tokens = 0;
  bool output_is_max = false;  // output tokens are max_tokens sums (--batch)
  // The total is billed request by request, each at its own tier: every row
  // is one request (a file, a text, a chat, a batch line) with
  // cached_tokens and its output. per_request: the rows carry their own
  // output (CountRow::output, a batch file); else each has output_tokens.
  // one_request (--total, not for a batch file): the total is billed as one
  // request holding every input instead.
  bool per_request = false;
  bool one_request = false;
  bool batch_rates = false;  // bill at the models' Batch API rates
  bool kv = false;
  std::size_t top = 0;

  // Sets `total` to the sum of the rows.
  void sum_rows();
};

// One row as one request, and the total (the sum of the rows' requests, or
// one request with one_request) for a model column.
CostLine row_cost(const CountReport& r, std::size_t column, const CountRow& row);
CostLine total_cost(const CountReport& r, std::size_t column);
// The total is billed as one request (--total, not a batch file).
bool total_is_one_request(const CountReport& r);
// Inputs that alone overflow the model's context window.
std::size_t inputs_over_window(const CountReport& r, std::size_t column);

// The report as JSON: {"models": [...], "encodings": [...]} (an encoding
// only where a bare encoding is counted beside models), or with `legacy`
// (no model, one encoding) {"encoding", "files", "total"}; "skipped" lists
// the binary files a walk left out.
nlohmann::ordered_json count_json(const CountReport& r, bool legacy);

}  // namespace tok::cost
