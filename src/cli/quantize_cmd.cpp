// tok quantize IN OUT --type q8_0|q4_0|f16|bf16|f32: a converted copy of a GGUF model.
#include "cli/command.hpp"
#include "model/quantize.hpp"

namespace tok::cli {
namespace {

struct QuantizeArgs {
  std::string in, out, type = "q8_0";
};

int run_quantize(const QuantizeArgs& a) {
  model::DType t;
  if (!model::parse_dtype(a.type, t)) throw UsageError{"--type: unknown type '" + a.type + "'"};
  auto rep = model::quantize_file(a.in, a.out, t);
  if (!rep.ok()) return report(rep.error());
  std::fprintf(stderr, "%s: %zu tensors converted to %s, %zu kept; %llu -> %llu bytes\n", a.out.c_str(),
               rep->quantized, a.type.c_str(), rep->kept, static_cast<unsigned long long>(rep->in_bytes),
               static_cast<unsigned long long>(rep->out_bytes));
  return 0;
}

}  // namespace

void add_quantize(CLI::App& app, Registry& r) {
  auto a = std::make_shared<QuantizeArgs>();
  CLI::App* sub = app.add_subcommand("quantize", "Write a copy of a GGUF model with quantized weights");
  sub->add_option("IN", a->in, "Input model (GGUF)")->required();
  sub->add_option("OUT", a->out, "Output model (written atomically)")->required();
  sub->add_option("--type", a->type, "Weight type: q8_0, q4_0, f16, bf16 or f32")
      ->capture_default_str()->check(CLI::IsMember({"q8_0", "q4_0", "f16", "bf16", "f32"}, CLI::ignore_case));
  r.add(sub, [a] { return run_quantize(*a); });
}

}  // namespace tok::cli
