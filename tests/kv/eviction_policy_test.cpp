#include "kv/eviction_policy.hpp"

#include <doctest/doctest.h>

#include <numeric>
#include <vector>

using namespace tok::kv;

namespace {

std::vector<int> select(const char* spec, int n, std::vector<float> att = {}) {
  EvictionPolicy p = parse_eviction_policy(spec).value();
  std::vector<int> pos(static_cast<std::size_t>(n));
  std::iota(pos.begin(), pos.end(), 0);
  if (att.empty()) att.assign(static_cast<std::size_t>(n), 0.0f);
  return p.select(pos, att);
}

}  // namespace

TEST_CASE("policy: the four forms parse and print back") {
  for (const char* s : {"full", "window:4", "sinks:4,window:1024", "h2o:64,window:256"}) {
    auto p = parse_eviction_policy(s);
    REQUIRE(p.ok());
    CHECK(p->to_string() == s);
  }
  EvictionPolicy p = parse_eviction_policy("sinks:4,window:16").value();
  CHECK(p.kind == EvictionPolicy::Kind::kSinks);
  CHECK(p.capacity() == 20);
  CHECK(parse_eviction_policy("full")->capacity() == 0);
}

TEST_CASE("policy: clear errors") {
  auto msg = [](const char* s) { return parse_eviction_policy(s).error().message; };
  CHECK(msg("lru") ==
        "KV policy 'lru': expected full, window:W, sinks:S,window:W or h2o:H,window:W");
  CHECK(msg("window:0") == "KV policy 'window:0': window must be a positive integer, got '0'");
  CHECK(msg("window:abc") ==
        "KV policy 'window:abc': window must be a positive integer, got 'abc'");
  CHECK(msg("window:8x") == "KV policy 'window:8x': window must be a positive integer, got '8x'");
  CHECK(msg("sinks:4") ==
        "KV policy 'sinks:4': expected full, window:W, sinks:S,window:W or h2o:H,window:W");
  CHECK(msg("sinks:4,win:8") ==
        "KV policy 'sinks:4,win:8': expected 'window:N' at 'win:8' (expected full, window:W, "
        "sinks:S,window:W or "
        "h2o:H,window:W)");
  CHECK(msg("h2o:-1,window:8") ==
        "KV policy 'h2o:-1,window:8': h2o must be a positive integer, got '-1'");
  CHECK(
      msg("window:4,sinks:2") ==
      "KV policy 'window:4,sinks:2': expected full, window:W, sinks:S,window:W or h2o:H,window:W");
  CHECK_FALSE(parse_eviction_policy("full,window:4").ok());
  CHECK_FALSE(parse_eviction_policy("").ok());
}

TEST_CASE("policy: selections keep exactly the intended slots") {
  CHECK(select("full", 5) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(select("window:3", 3) == std::vector<int>{0, 1, 2});
  CHECK(select("window:3", 7) == std::vector<int>{4, 5, 6});
  CHECK(select("sinks:2,window:3", 5) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(select("sinks:2,window:3", 9) == std::vector<int>{0, 1, 6, 7, 8});
  // H2O: the 2 largest masses among slots 0..5 (ties -> earlier), then the last 3.
  std::vector<float> att{0.5f, 3.0f, 1.0f, 3.0f, 3.0f, 9.0f, 0.0f, 0.0f, 0.0f};
  CHECK(select("h2o:2,window:3", 9, att) == std::vector<int>{1, 5, 6, 7, 8});
  std::vector<float> tie{1.0f, 2.0f, 2.0f, 2.0f, 0.0f, 0.0f};
  CHECK(select("h2o:2,window:2", 6, tie) == std::vector<int>{1, 2, 4, 5});
}
