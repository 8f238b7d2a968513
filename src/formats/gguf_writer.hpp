// GgufWriter: builds a GGUF v3 file (metadata + tensors) and writes it
// atomically (AtomicFile), so a reader never sees half a file. Metadata keeps
// insertion order; setting a key again replaces its value in place.
// Tensors are laid out in insertion order, each aligned to general.alignment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "formats/gguf_types.hpp"

namespace tok::formats {

class GgufWriter {
 public:
  // Values are encoded at once: strings in `v` need only live for the call.
  void set(std::string_view key, const Value& v);
  void set_string(std::string_view key, std::string_view v) { set(key, Value::string(v)); }
  void set_u32(std::string_view key, std::uint32_t v) { set(key, Value::u32(v)); }
  void set_i32(std::string_view key, std::int32_t v) { set(key, Value::i32(v)); }
  void set_u64(std::string_view key, std::uint64_t v) { set(key, Value::u64(v)); }
  void set_f32(std::string_view key, float v) { set(key, Value::f32(v)); }
  void set_bool(std::string_view key, bool v) { set(key, Value::boolean(v)); }
  void set_strings(std::string_view key, const std::vector<std::string>& v);
  void set_f32s(std::string_view key, const std::vector<float>& v);
  void set_i32s(std::string_view key, const std::vector<std::int32_t>& v);
  // Also sets general.alignment (must be a power of two).
  Status set_alignment(std::uint32_t alignment);
  bool remove(std::string_view key);

  // `data` must be exactly ggml::tensor_bytes(type, dims) bytes. add_tensor copies
  // it; add_tensor_view keeps a view that must stay valid until write().
  Status add_tensor(std::string name, ggml::Type type, std::vector<std::uint64_t> dims,
                    std::string data);
  Status add_tensor_view(std::string name, ggml::Type type, std::vector<std::uint64_t> dims,
                         std::string_view data);

  // The whole file in memory (tests, small files).
  std::string serialize() const;
  // Writes to path atomically, streaming tensor data from where it lies.
  Status write(const std::string& path) const;

 private:
  struct Tensor {
    std::string name;
    ggml::Type type;
    std::vector<std::uint64_t> dims;
    bool owns = false;
    std::string owned;      // when owns
    std::string_view view;  // otherwise
    std::string_view data() const { return owns ? std::string_view(owned) : view; }
    std::uint64_t offset = 0;
  };
  Status check_tensor(const std::string& name, ggml::Type type,
                      const std::vector<std::uint64_t>& dims, std::size_t size) const;
  // Header, metadata and tensor infos, padded to the alignment.
  std::string head() const;

  std::vector<std::pair<std::string, std::string>> kv_;  // key -> encoded type + value
  std::vector<Tensor> tensors_;
  std::uint32_t alignment_ = kDefaultAlignment;
  std::uint64_t data_size_ = 0;  // bytes of the data section so far
};

}  // namespace tok::formats
