#include "model/quantize.hpp"

#include <cstring>
#include <filesystem>

#include "formats/gguf.hpp"
#include "model/quant.hpp"

namespace tok::model {

Result<QuantizeReport> quantize_file(const std::string& in, const std::string& out, DType type) {
  if (type != DType::kQ8_0 && type != DType::kQ4_0 && type != DType::kF16 && type != DType::kF32 &&
      type != DType::kBF16) {
    return make_error("quantizing to {} is not supported (q8_0, q4_0, f16, bf16, f32)", dtype_name(type));
  }
  TOK_ASSIGN(formats::GgufFile f, formats::GgufFile::open(in));
  formats::GgufWriter w;
  for (const auto& kv : f.metadata()) {
    if (kv.key == "general.alignment") continue;
    w.set(kv.key, kv.value);
  }
  TOK_TRY(w.set_alignment(f.alignment()));
  w.set_u32("general.file_type", type == DType::kQ8_0 ? 7 : type == DType::kQ4_0 ? 2 : type == DType::kF16 ? 1 : type == DType::kBF16 ? 32 : 0);
  QuantizeReport rep;
  std::vector<float> row;
  for (const auto& t : f.tensors()) {
    BlockLayout src;
    bool convert = t.dims.size() == 2 && block_layout(static_cast<std::uint32_t>(t.type), src) &&
                   static_cast<DType>(t.type) != type && t.dims[0] % layout_of(type).elems == 0;
    if (!convert) {
      TOK_TRY(w.add_tensor_view(t.name, t.type, t.dims,
                                std::string_view(static_cast<const char*>(t.data), t.nbytes)));
      ++rep.kept;
      continue;
    }
    TensorView v{static_cast<DType>(t.type), static_cast<std::int64_t>(t.dims[1]),
                 static_cast<std::int64_t>(t.dims[0]), t.data};
    TensorView o{type, v.rows, v.cols, nullptr};
    std::string data(o.bytes(), '\0');
    row.resize(static_cast<std::size_t>(v.cols));
    for (std::int64_t r = 0; r < v.rows; ++r) {
      dequantize_row(v.type, v.row(r), row.data(), v.cols);
      char* dst = data.data() + static_cast<std::size_t>(r) * o.row_bytes();
      if (type == DType::kQ8_0) {
        quantize_row_q8_0(row.data(), reinterpret_cast<BlockQ8_0*>(dst), v.cols);
      } else if (type == DType::kQ4_0) {
        quantize_row_q4_0(row.data(), reinterpret_cast<BlockQ4_0*>(dst), v.cols);
      } else {
        auto* h = reinterpret_cast<std::uint16_t*>(dst);
        for (std::int64_t i = 0; i < v.cols; ++i) {
          if (type == DType::kF32) std::memcpy(dst + i * 4, &row[static_cast<std::size_t>(i)], 4);
          else h[i] = type == DType::kF16 ? f32_to_fp16(row[static_cast<std::size_t>(i)]) : f32_to_bf16(row[static_cast<std::size_t>(i)]);
        }
      }
    }
    TOK_TRY(w.add_tensor(t.name, static_cast<formats::GgmlType>(type), t.dims, std::move(data)));
    ++rep.quantized;
  }
  TOK_TRY(w.write(out));
  rep.in_bytes = f.file_size();
  std::error_code ec;
  rep.out_bytes = std::filesystem::file_size(out, ec);
  return rep;
}

}  // namespace tok::model
