// tok quantize IN OUT --type TYPE: a converted copy of a GGUF model (any type
// tok computes with: f32, f16, bf16, q4_0 ... q8_0, q2_K ... q6_K).
#include <fmt/format.h>

#include "cli/command.hpp"
#include "model/quantize.hpp"

namespace tok::cli {
namespace {

struct QuantizeArgs {
  std::string in, out, type = "q8_0";
  bool allow_requantize = false;
};

int run_quantize(const QuantizeArgs& a) {
  // "q4_k_m": the base type and an _M mix (model/quantize.hpp).
  std::string_view name = a.type;
  bool mixed = name.size() > 2 && (name.ends_with("_m") || name.ends_with("_M"));
  if (mixed) name.remove_suffix(2);
  model::DType t;
  if (!ggml::parse_type(name, t)) throw UsageError{"--type: unknown type '" + a.type + "'"};
  require_distinct_outputs({a.in}, {a.out});
  auto rep = model::quantize_file(a.in, a.out, t,
                                  {.mixed = mixed, .allow_requantize = a.allow_requantize});
  if (!rep.ok()) return report(rep.error());
  // Each fallback, as llama-quantize reports it: the file holds another type
  // than asked for there.
  for (const auto& fb : rep->fallbacks) {
    warn(fmt::format("{}: rows of {} values are not a multiple of {}'s {}: written as {}",
                     fb.tensor, fb.cols, ggml::type_name(fb.wanted),
                     ggml::traits(fb.wanted).block_size, ggml::type_name(fb.used)));
  }
  std::string fallbacks;
  if (!rep->fallbacks.empty())
    fallbacks = fmt::format(" ({} as a fallback type)", rep->fallbacks.size());
  std::fprintf(stderr, "%s: %zu tensors converted to %s%s, %zu kept; %llu -> %llu bytes\n",
               one_line(a.out).c_str(), rep->quantized, a.type.c_str(), fallbacks.c_str(),
               rep->kept, static_cast<unsigned long long>(rep->in_bytes),
               static_cast<unsigned long long>(rep->out_bytes));
  return 0;
}

}  // namespace

void add_quantize(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<QuantizeArgs>();
  CLI::App* sub =
      app.add_subcommand("quantize", "Write a copy of a GGUF model with quantized weights");
  sub->add_option("IN", a->in, "Input model (GGUF)")->required();
  sub->add_option("OUT", a->out, "Output model (written atomically)")->required();
  sub->add_option(
         "--type", a->type,
         "Weight type: q8_0, q6_K, q5_K, q5_1, q5_0, q4_K, q4_1, q4_0, q3_K, q2_K, f16, bf16 or "
         "f32; q4_K_M or q5_K_M for llama.cpp's mix (q6_K for output, and attn_v and ffn_down in "
         "some layers)")
      ->capture_default_str()
      ->check(CLI::IsMember({"q8_0", "q6_k", "q5_k", "q5_k_m", "q5_1", "q5_0", "q4_k", "q4_k_m",
                             "q4_1", "q4_0", "q3_k", "q2_k", "f16", "bf16", "f32"},
                            CLI::ignore_case));
  sub->add_flag(
      "--allow-requantize", a->allow_requantize,
      "Convert tensors that are already quantized (refused by default, as llama-quantize refuses "
      "it: the second rounding adds to the first)");
  commands.add(sub, [a] { return run_quantize(*a); });
}

}  // namespace tok::cli
