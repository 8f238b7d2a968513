// GgufFile: a GGUF (v2/v3) file opened read-only through MappedFile. The
// tokenizer loader reads its metadata; the model runtime its tensors, whose
// data pointers point straight into the mapping (no copies).
//
// The file is untrusted: every count, length, dimension and offset is checked
// against the bytes that remain before anything is allocated or read, so a
// corrupt or hostile file gives one error line, never a crash or a huge
// allocation. Errors read "FILE: GGUF: what is wrong (at byte N)".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/huge_buffer.hpp"
#include "core/mapped_file.hpp"
#include "core/result.hpp"
#include "formats/gguf_types.hpp"

namespace tok::formats {

struct TensorInfo {
  std::string name;
  ggml::Type type = ggml::Type::kF32;
  std::vector<std::uint64_t> dims;  // (n_dims <= 4) ne[0] is the fastest-varying
  std::uint64_t offset = 0;         // relative to the start of the data section
  std::uint64_t nbytes = 0;
  const void* data = nullptr;  // into the mapping; valid while the GgufFile lives
};

struct KeyValue {
  std::string_view key;
  Value value;
};

class GgufFile {
 public:
  static Result<GgufFile> open(const std::string& path);
  // The same, with the whole file copied into anonymous memory in 2 MiB huge
  // pages (core/huge_buffer.hpp) instead of mapped: for the model runtime,
  // which streams every weight once per token. Through a file mapping's
  // 4 KiB pages decode paid a TLB miss and a prefetcher restart every 4 KiB
  // (100M-parameter F32 model, 1 thread: 20.8 tokens/s mapped, 38 copied).
  static Result<GgufFile> read(const std::string& path);
  // Parses bytes already in memory (tests; `name` stands for the path).
  static Result<GgufFile> parse(std::string bytes, const std::string& name);

  const std::string& path() const { return path_; }
  std::uint32_t version() const { return version_; }
  std::uint32_t alignment() const { return alignment_; }
  std::uint64_t data_offset() const { return data_offset_; }
  std::uint64_t file_size() const { return bytes_.size(); }

  // Metadata in file order.
  const std::vector<KeyValue>& metadata() const { return kv_; }
  const Value* find(std::string_view key) const;

  // Typed accessors: a missing key or a value of the wrong type (or out of
  // range) is an error naming the file, the key and what was found.
  Result<std::string_view> get_string(std::string_view key) const;
  Result<std::uint32_t> get_u32(std::string_view key) const;
  Result<std::uint64_t> get_u64(std::string_view key) const;
  Result<std::int64_t> get_i64(std::string_view key) const;
  Result<double> get_float(std::string_view key) const;
  Result<bool> get_bool(std::string_view key) const;
  // An array; with `elem` given, its elements must have that type.
  Result<const Value*> get_array(std::string_view key) const;
  Result<const Value*> get_array(std::string_view key, ValueType elem) const;

  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  // Whether the tensor data is this object's own copy (read), which the
  // model runtime may rearrange in place (model/repack.hpp); not a mapping.
  bool owns_data() const { return copy_ != nullptr; }
  const TensorInfo* find_tensor(std::string_view name) const;

 private:
  class Parser;
  friend class Parser;
  // Parses f's bytes_ (set by open, read or parse) into f.
  static Result<GgufFile> parsed(GgufFile f);
  Error key_error(std::string_view key, std::string_view want, const Value* got) const;

  std::string path_;
  std::unique_ptr<MappedFile> file_;  // stable address: values view into it (open, parse)
  std::unique_ptr<HugeBuffer> copy_;  // or into this (read)
  std::string_view bytes_;            // the file's bytes, in whichever of the two
  std::uint32_t version_ = 0;
  std::uint32_t alignment_ = kDefaultAlignment;
  std::uint64_t data_offset_ = 0;
  std::vector<KeyValue> kv_;
  std::unordered_map<std::string_view, std::size_t> kv_index_;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string_view, std::size_t> tensor_index_;
};

// Integer value of any integer type if it fits in [lo, hi]; else nullopt.
bool value_to_int(const Value& v, std::int64_t lo, std::uint64_t hi, std::uint64_t& out);

}  // namespace tok::formats
