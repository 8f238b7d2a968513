#include "kv/eviction_policy.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace tok::kv {
namespace {

constexpr std::string_view kForms = "expected full, window:W, sinks:S,window:W or h2o:H,window:W";

// Parses "name:N" where N is a positive integer.
Result<int> parse_field(std::string_view policy, std::string_view field, std::string_view name) {
  std::string prefix = std::string(name) + ":";
  if (field.substr(0, prefix.size()) != prefix) {
    return make_error("KV policy '{}': expected '{}N' at '{}' ({})", policy, prefix, field, kForms);
  }
  std::string_view num = field.substr(prefix.size());
  int n = 0;
  auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
  if (ec != std::errc() || end != num.data() + num.size() || n <= 0) {
    return make_error("KV policy '{}': {} must be a positive integer, got '{}'", policy, name, num);
  }
  return n;
}

}  // namespace

Result<EvictionPolicy> parse_eviction_policy(std::string_view s) {
  EvictionPolicy p;
  if (s == "full") return p;
  std::size_t comma = s.find(',');
  std::string_view first = s.substr(0, comma);
  if (comma == std::string_view::npos) {
    if (first.substr(0, 7) != "window:") return make_error("KV policy '{}': {}", s, kForms);
    p.kind = EvictionPolicy::Kind::kWindow;
    TOK_ASSIGN(p.window, parse_field(s, first, "window"));
    return p;
  }
  std::string_view second = s.substr(comma + 1);
  if (first.substr(0, 6) == "sinks:") {
    p.kind = EvictionPolicy::Kind::kSinks;
    TOK_ASSIGN(p.sinks, parse_field(s, first, "sinks"));
  } else if (first.substr(0, 4) == "h2o:") {
    p.kind = EvictionPolicy::Kind::kH2O;
    TOK_ASSIGN(p.heavy, parse_field(s, first, "h2o"));
  } else {
    return make_error("KV policy '{}': {}", s, kForms);
  }
  TOK_ASSIGN(p.window, parse_field(s, second, "window"));
  return p;
}

std::string EvictionPolicy::to_string() const {
  switch (kind) {
    case Kind::kFull: return "full";
    case Kind::kWindow: return fmt::format("window:{}", window);
    case Kind::kSinks: return fmt::format("sinks:{},window:{}", sinks, window);
    case Kind::kH2O: return fmt::format("h2o:{},window:{}", heavy, window);
  }
  return "?";
}

std::vector<int> EvictionPolicy::select(std::span<const int> positions,
                                        std::span<const float> attention) const {
  int n = static_cast<int>(positions.size());
  std::vector<int> keep;
  if (kind == Kind::kFull || n <= capacity()) {
    keep.resize(static_cast<std::size_t>(n));
    std::iota(keep.begin(), keep.end(), 0);
    return keep;
  }
  int recent = n - window;  // slots [recent, n) are the window
  if (kind == Kind::kSinks) {
    for (int i = 0; i < sinks; ++i) keep.push_back(i);
  } else if (kind == Kind::kH2O) {
    std::vector<int> older(static_cast<std::size_t>(recent));
    std::iota(older.begin(), older.end(), 0);
    // Largest accumulated mass first; earlier position on ties (stable).
    std::stable_sort(older.begin(), older.end(), [&](int a, int b) {
      return attention[static_cast<std::size_t>(a)] > attention[static_cast<std::size_t>(b)];
    });
    older.resize(static_cast<std::size_t>(heavy));
    std::sort(older.begin(), older.end());
    keep = std::move(older);
  }
  for (int i = recent; i < n; ++i) keep.push_back(i);
  return keep;
}

}  // namespace tok::kv
