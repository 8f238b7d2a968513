// tok quantize's conversion: every type round-trips a model's matrices, and
// an _M mix puts Q6_K where llama-quantize does.
#include <doctest/doctest.h>

#include <unistd.h>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "formats/gguf.hpp"
#include "model/quantize.hpp"

using namespace tok;

namespace {

// A stand-in model: 8 layers of attn_v / attn_q / ffn_down (256 x 2, F32),
// an output matrix and a norm vector.
std::string write_model(const std::filesystem::path& dir, std::uint64_t cols = 256) {
  formats::GgufWriter w;
  w.set_u32("llama.block_count", 8);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0, 1);
  auto add = [&](const std::string& name, std::vector<std::uint64_t> dims) {
    std::uint64_t n = dims[0] * (dims.size() > 1 ? dims[1] : 1);
    std::string data(n * 4, '\0');
    for (std::uint64_t i = 0; i < n; ++i) {
      float v = nd(rng);
      std::memcpy(data.data() + i * 4, &v, 4);
    }
    REQUIRE(w.add_tensor(name, ggml::Type::kF32, dims, std::move(data)).ok());
  };
  for (int l = 0; l < 8; ++l) {
    for (const char* t : {"attn_v", "attn_q", "ffn_down"})
      add("blk." + std::to_string(l) + "." + t + ".weight", {cols, 2});
  }
  add("output.weight", {cols, 2});
  add("output_norm.weight", {cols});
  std::string path = (dir / "in.gguf").string();
  REQUIRE(w.write(path).ok());
  return path;
}

std::map<std::string, ggml::Type> tensor_types(const std::string& path) {
  auto f = formats::GgufFile::open(path);
  REQUIRE(f.ok());
  std::map<std::string, ggml::Type> types;
  for (const auto& t : f->tensors()) types[t.name] = t.type;
  return types;
}

}  // namespace

TEST_CASE(
    "quantize: q4_K_M gives output, and attn_v / ffn_down of llama.cpp's chosen layers, Q6_K") {
  auto dir =
      std::filesystem::temp_directory_path() / ("tok_quantize_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string in = write_model(dir), out = (dir / "out.gguf").string();
  auto rep = model::quantize_file(in, out, ggml::Type::kQ4_K, {.mixed = true});
  REQUIRE(rep.ok());
  CHECK(rep->quantized == 25);
  CHECK(rep->kept == 1);  // the norm vector
  auto types = tensor_types(out);
  // use_more_bits(i, 8): i < 1, i >= 7, (i - 1) % 3 == 2 -> layers 0, 3, 6, 7.
  for (int l = 0; l < 8; ++l) {
    CAPTURE(l);
    bool more = l == 0 || l == 3 || l == 6 || l == 7;
    std::string b = "blk." + std::to_string(l) + ".";
    CHECK(types[b + "attn_v.weight"] == (more ? ggml::Type::kQ6_K : ggml::Type::kQ4_K));
    CHECK(types[b + "ffn_down.weight"] == (more ? ggml::Type::kQ6_K : ggml::Type::kQ4_K));
    CHECK(types[b + "attn_q.weight"] == ggml::Type::kQ4_K);
  }
  CHECK(types["output.weight"] == ggml::Type::kQ6_K);
  CHECK(types["output_norm.weight"] == ggml::Type::kF32);
  auto q8 = model::quantize_file(in, out, ggml::Type::kQ8_0, {.mixed = true});
  REQUIRE_FALSE(q8.ok());
  CHECK(q8.error().message == "an _M mix is made of q4_K or q5_K, not q8_0");
  for (ggml::Type t : {ggml::Type::kQ4_1, ggml::Type::kQ5_0, ggml::Type::kQ5_1, ggml::Type::kQ2_K,
                       ggml::Type::kQ3_K, ggml::Type::kQ5_K}) {
    CAPTURE(ggml::type_name(t));
    REQUIRE(model::quantize_file(in, out, t).ok());
    CHECK(tensor_types(out)["blk.2.attn_q.weight"] == t);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE(
    "quantize: rows that are not whole K-quant blocks get llama-quantize's fallback type, each "
    "reported") {
  using ggml::Type;
  CHECK(model::fallback_type(Type::kQ4_K, 256) == Type::kQ4_K);
  CHECK(model::fallback_type(Type::kQ4_K, 128) == Type::kQ5_0);
  CHECK(model::fallback_type(Type::kQ5_K, 128) == Type::kQ5_1);
  CHECK(model::fallback_type(Type::kQ6_K, 128) == Type::kQ8_0);
  CHECK(model::fallback_type(Type::kQ2_K, 128) == Type::kQ4_0);
  CHECK(model::fallback_type(Type::kQ3_K, 96) == Type::kQ4_0);
  CHECK(model::fallback_type(Type::kQ4_K, 100) == Type::kF16);  // not whole Q5_0 blocks either
  CHECK(model::fallback_type(Type::kQ8_0, 100) == Type::kF16);
  auto dir =
      std::filesystem::temp_directory_path() / ("tok_quantize_fb_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string in = write_model(dir, 128), out = (dir / "out.gguf").string();
  auto rep = model::quantize_file(in, out, Type::kQ4_K, {.mixed = true});
  REQUIRE(rep.ok());
  CHECK(rep->quantized == 25);
  CHECK(rep->kept == 1);
  CHECK(rep->fallbacks.size() == 25);
  auto types = tensor_types(out);
  CHECK(types["blk.2.attn_q.weight"] == Type::kQ5_0);
  CHECK(types["blk.0.attn_v.weight"] == Type::kQ8_0);  // Q6_K in the mix
  CHECK(types["output.weight"] == Type::kQ8_0);
  for (const auto& fb : rep->fallbacks) {
    CAPTURE(fb.tensor);
    CHECK(fb.cols == 128);
    CHECK(fb.used == types[fb.tensor]);
    CHECK((fb.wanted == Type::kQ4_K || fb.wanted == Type::kQ6_K));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("quantize: a quantized input is converted again only with allow_requantize") {
  auto dir =
      std::filesystem::temp_directory_path() / ("tok_quantize_rq_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string in = write_model(dir), q8 = (dir / "q8.gguf").string(),
              out = (dir / "out.gguf").string();
  REQUIRE(model::quantize_file(in, q8, ggml::Type::kQ8_0).ok());
  auto again = model::quantize_file(q8, out, ggml::Type::kQ4_0);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("is already q8_0") != std::string::npos);
  CHECK(again.error().message.find("--allow-requantize") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  auto same = model::quantize_file(q8, out, ggml::Type::kQ8_0);  // nothing to convert: a copy
  REQUIRE(same.ok());
  CHECK(same->quantized == 0);
  auto allowed = model::quantize_file(q8, out, ggml::Type::kQ4_0, {.allow_requantize = true});
  REQUIRE(allowed.ok());
  CHECK(tensor_types(out)["blk.2.attn_q.weight"] == ggml::Type::kQ4_0);
  std::filesystem::remove_all(dir);
}
