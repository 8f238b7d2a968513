#include "kv/kv_type.hpp"

namespace tok::kv {

Result<KvType> parse_kv_type(std::string_view s) {
  for (KvType t : {KvType::kF32, KvType::kF16, KvType::kQ8_0, KvType::kQ4_0}) {
    if (s == ggml::type_name(t)) return t;
  }
  return make_error("unknown KV type '{}': expected f32, f16, q8_0 or q4_0", s);
}

Result<std::size_t> row_bytes(KvType t, int n) {
  if (n <= 0) return make_error("KV row of {} values: must be positive", n);
  std::uint32_t block = ggml::traits(t).block_size;
  if (n % block != 0) {
    return make_error("KV type {} needs a row (kv_heads * head_dim = {}) that is a multiple of {}",
                      kv_type_name(t), n, block);
  }
  return ggml::row_bytes(t, n);
}

}  // namespace tok::kv
