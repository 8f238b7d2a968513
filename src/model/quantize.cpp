#include "model/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "formats/gguf.hpp"

namespace tok::model {

namespace {

// llama.cpp's general.file_type (enum llama_ftype): a file whose weights are
// all of one K-quant is its "_S" type, a mix its "_M".
std::uint32_t file_type(DType type, bool mixed) {
  switch (type) {
    case DType::kF32: return 0;
    case DType::kF16: return 1;
    case DType::kQ4_0: return 2;
    case DType::kQ4_1: return 3;
    case DType::kQ8_0: return 7;
    case DType::kQ5_0: return 8;
    case DType::kQ5_1: return 9;
    case DType::kQ2_K: return 10;
    case DType::kQ3_K: return 11;               // Q3_K_S
    case DType::kQ4_K: return mixed ? 15 : 14;  // Q4_K_M, Q4_K_S
    case DType::kQ5_K: return mixed ? 17 : 16;  // Q5_K_M, Q5_K_S
    case DType::kQ6_K: return 18;
    case DType::kBF16: return 32;
    default: return 0;
  }
}

// llama.cpp's use_more_bits (llama-quant.cpp): the first and last eighth of
// the layers, and every third one between, get the finer type in an "_M" mix.
bool use_more_bits(int layer, int layers) {
  return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

// The type of one tensor in an "_M" mix of `base` (Q4_K_M, Q5_K_M).
DType mixed_type(std::string_view name, DType base, int layers) {
  if (name == "output.weight") return DType::kQ6_K;
  int layer = 0;
  if (std::sscanf(std::string(name).c_str(), "blk.%d.", &layer) != 1) return base;
  bool more = name.ends_with(".attn_v.weight") || name.ends_with(".ffn_down.weight");
  return more && use_more_bits(layer, layers) ? DType::kQ6_K : base;
}

// Layers of a model: one more than the highest blk.N in the tensor names.
int count_layers(const formats::GgufFile& f) {
  int layers = 0;
  for (const auto& t : f.tensors()) {
    int layer = 0;
    if (std::sscanf(t.name.c_str(), "blk.%d.", &layer) == 1) layers = std::max(layers, layer + 1);
  }
  return layers;
}

// NaN or infinity in a weight: the quantizers derive a block's scale from
// its largest value, so one such value would turn the whole block into
// garbage (and its codes into float-to-int conversions of NaN). Refused,
// naming where it is, as generate refuses such a model.
Status check_finite(const std::string& in, const std::string& tensor, std::int64_t r,
                    const std::vector<float>& row) {
  auto bad = std::find_if(row.begin(), row.end(), [](float v) { return !std::isfinite(v); });
  if (bad == row.end()) return {};
  return make_error("{}: weights {} hold {} (row {}, value {} of {}): they cannot be quantized", in,
                    tensor, std::isnan(*bad) ? "NaN" : "an infinity", r, bad - row.begin(),
                    row.size());
}

}  // namespace

DType fallback_type(DType type, std::int64_t cols) {
  auto whole_blocks = [cols](DType t) {
    return cols % static_cast<std::int64_t>(ggml::traits(t).block_size) == 0;
  };
  if (whole_blocks(type)) return type;
  DType next = DType::kF16;
  switch (type) {
    case DType::kQ4_K: next = DType::kQ5_0; break;
    case DType::kQ5_K: next = DType::kQ5_1; break;
    case DType::kQ6_K: next = DType::kQ8_0; break;
    case DType::kQ2_K:
    case DType::kQ3_K: next = DType::kQ4_0; break;
    default: break;
  }
  return whole_blocks(next) ? next : DType::kF16;
}

Result<QuantizeReport> quantize_file(const std::string& in, const std::string& out, DType type,
                                     const QuantizeOptions& options) {
  const bool mixed = options.mixed;
  if (!ggml::is_computable(type)) {
    return make_error("quantizing to {} is not supported ({})", ggml::type_name(type),
                      ggml::computable_type_names());
  }
  if (mixed && type != DType::kQ4_K && type != DType::kQ5_K) {
    return make_error("an _M mix is made of q4_K or q5_K, not {}", ggml::type_name(type));
  }
  TOK_ASSIGN(formats::GgufFile f, formats::GgufFile::open(in));
  formats::GgufWriter w;
  for (const auto& kv : f.metadata()) {
    if (kv.key == "general.alignment") continue;
    w.set(kv.key, kv.value);
  }
  TOK_TRY(w.set_alignment(f.alignment()));
  w.set_u32("general.file_type", file_type(type, mixed));
  const int layers = count_layers(f);
  QuantizeReport rep;
  std::vector<float> row;
  for (const auto& t : f.tensors()) {
    DType asked = mixed ? mixed_type(t.name, type, layers) : type;
    const std::int64_t cols = t.dims.empty() ? 0 : static_cast<std::int64_t>(t.dims[0]);
    DType want = fallback_type(asked, cols);
    const ggml::TypeTraits& to = ggml::traits(want);
    bool convert = t.dims.size() == 2 && ggml::is_computable(t.type) && t.type != want;
    if (convert && ggml::traits(t.type).is_quantized && !options.allow_requantize) {
      return make_error(
          "{}: tensor {} is already {}: quantizing it again adds a second rounding error to "
          "the first; quantize the f32, f16 or bf16 original, or pass --allow-requantize",
          in, t.name, ggml::type_name(t.type));
    }
    if (convert && want != asked) rep.fallbacks.push_back({t.name, cols, asked, want});
    if (!convert) {
      TOK_TRY(w.add_tensor_view(t.name, t.type, t.dims,
                                std::string_view(static_cast<const char*>(t.data), t.nbytes)));
      ++rep.kept;
      continue;
    }
    TensorView v{t.type, static_cast<std::int64_t>(t.dims[1]), static_cast<std::int64_t>(t.dims[0]),
                 t.data};
    TensorView o{want, v.rows, v.cols, nullptr};
    std::string data(o.bytes(), '\0');
    row.resize(static_cast<std::size_t>(v.cols));
    for (std::int64_t r = 0; r < v.rows; ++r) {
      ggml::traits(v.type).to_float(v.row(r), row.data(), v.cols);
      TOK_TRY(check_finite(in, t.name, r, row));
      to.from_float(row.data(), data.data() + static_cast<std::size_t>(r) * o.row_bytes(), v.cols);
    }
    TOK_TRY(w.add_tensor(t.name, want, t.dims, std::move(data)));
    ++rep.quantized;
  }
  TOK_TRY(w.write(out));
  rep.in_bytes = f.file_size();
  std::error_code ec;
  rep.out_bytes = std::filesystem::file_size(out, ec);
  return rep;
}

}  // namespace tok::model
