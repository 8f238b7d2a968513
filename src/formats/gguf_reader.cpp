#include "formats/gguf_reader.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_set>

namespace tok::formats {

static_assert(std::endian::native == std::endian::little,
              "GGUF files are little-endian; tok reads them natively");

namespace {
constexpr char kMagic[4] = {'G', 'G', 'U', 'F'};
// Smallest possible encodings, for bounding counts before allocating.
constexpr std::uint64_t kMinKvBytes = 8 + 4 + 1;  // key length, type, 1-byte value
constexpr std::uint64_t kMaxArrayElements = 1ull << 23;
constexpr std::uint64_t kMinTensorBytes =
    8 + 4 + 8 + 4 + 8;  // name len, n_dims, 1 dim, type, offset
}  // namespace

// Reads the file front to back; each read checks the bytes left first.
class GgufFile::Parser {
 public:
  Parser(GgufFile& f) : f_(f), bytes_(f.bytes_) {}

  Status run() {
    TOK_TRY(header());
    TOK_TRY(metadata());
    TOK_TRY(alignment());
    TOK_TRY(tensor_infos());
    return tensor_data();
  }

 private:
  template <class... Args>
  Error fail(std::size_t at, fmt::format_string<Args...> fmt_str, Args&&... args) const {
    return make_error("{}: GGUF: {} (at byte {})", f_.path_,
                      fmt::format(fmt_str, std::forward<Args>(args)...), at);
  }
  std::uint64_t left() const { return bytes_.size() - pos_; }

  template <class T>
  Result<T> read(std::string_view what) {
    if (left() < sizeof(T)) {
      return fail(pos_, "truncated: {} needs {} bytes, {} left", what, sizeof(T), left());
    }
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  Result<std::string_view> string(std::string_view what) {
    std::size_t at = pos_;
    TOK_ASSIGN(std::uint64_t n, read<std::uint64_t>(what));
    if (n > left()) {
      return fail(at, "{} claims {} bytes but only {} remain", what, n, left());
    }
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  Status header() {
    if (bytes_.size() < 4 || std::memcmp(bytes_.data(), kMagic, 4) != 0) {
      return fail(0, "not a GGUF file (the first 4 bytes are not \"GGUF\")");
    }
    pos_ = 4;
    TOK_ASSIGN(f_.version_, read<std::uint32_t>("version"));
    if (f_.version_ == 1) return fail(4, "version 1 is not supported (only 2 and 3)");
    if (f_.version_ != 2 && f_.version_ != 3) {
      return fail(4, "unsupported version {} (expected 2 or 3)", f_.version_);
    }
    TOK_ASSIGN(n_tensors_, read<std::uint64_t>("tensor count"));
    TOK_ASSIGN(n_kv_, read<std::uint64_t>("metadata count"));
    if (n_kv_ > left() / kMinKvBytes) {
      return fail(16, "metadata count {} is impossible for {} remaining bytes", n_kv_, left());
    }
    if (n_tensors_ > (left() - n_kv_ * kMinKvBytes) / kMinTensorBytes) {
      return fail(8, "tensor count {} is impossible for {} remaining bytes", n_tensors_, left());
    }
    return {};
  }

  Status metadata() {
    f_.kv_.reserve(n_kv_);
    for (std::uint64_t k = 0; k < n_kv_; ++k) {
      std::size_t at = pos_;
      TOK_ASSIGN(std::string_view key, string(fmt::format("key of metadata entry {}", k)));
      if (f_.kv_index_.count(key)) return fail(at, "duplicate metadata key '{}'", key);
      std::size_t type_at = pos_;
      TOK_ASSIGN(std::uint32_t type, read<std::uint32_t>(fmt::format("type of '{}'", key)));
      if (type >= kValueTypeCount)
        return fail(type_at, "'{}' has unknown value type {}", key, type);
      KeyValue kv{key, {}};
      TOK_TRY(value(static_cast<ValueType>(type), key, 0, kv.value));
      f_.kv_index_.emplace(key, f_.kv_.size());
      f_.kv_.push_back(std::move(kv));
    }
    return {};
  }

  Status value(ValueType type, std::string_view key, std::size_t depth, Value& out) {
    out.type = type;
    switch (type) {
      case ValueType::kUint8: return unsigned_int<std::uint8_t>(key, out);
      case ValueType::kUint16: return unsigned_int<std::uint16_t>(key, out);
      case ValueType::kUint32: return unsigned_int<std::uint32_t>(key, out);
      case ValueType::kUint64: return unsigned_int<std::uint64_t>(key, out);
      case ValueType::kBool: return unsigned_int<std::uint8_t>(key, out);
      case ValueType::kInt8: return signed_int<std::int8_t>(key, out);
      case ValueType::kInt16: return signed_int<std::int16_t>(key, out);
      case ValueType::kInt32: return signed_int<std::int32_t>(key, out);
      case ValueType::kInt64: return signed_int<std::int64_t>(key, out);
      case ValueType::kFloat32: {
        TOK_ASSIGN(float v, read<float>(key));
        out.f = v;
        return {};
      }
      case ValueType::kFloat64: {
        TOK_ASSIGN(out.f, read<double>(key));
        return {};
      }
      case ValueType::kString: {
        TOK_ASSIGN(out.str, string(key));
        return {};
      }
      case ValueType::kArray: return array(key, depth, out);
    }
    return fail(pos_, "'{}' has unknown value type", key);
  }

  template <class T>
  Status unsigned_int(std::string_view key, Value& out) {
    TOK_ASSIGN(T v, read<T>(key));
    out.u = v;
    out.i = static_cast<std::int64_t>(v);
    return {};
  }
  template <class T>
  Status signed_int(std::string_view key, Value& out) {
    TOK_ASSIGN(T v, read<T>(key));
    out.i = v;
    out.u = static_cast<std::uint64_t>(out.i);
    return {};
  }

  Status array(std::string_view key, std::size_t depth, Value& out) {
    std::size_t at = pos_;
    if (depth >= kMaxArrayDepth)
      return fail(at, "'{}' nests arrays deeper than {}", key, kMaxArrayDepth);
    TOK_ASSIGN(std::uint32_t elem, read<std::uint32_t>(key));
    if (elem >= kValueTypeCount)
      return fail(at, "array '{}' has unknown element type {}", key, elem);
    out.elem = static_cast<ValueType>(elem);
    std::size_t count_at = pos_;
    TOK_ASSIGN(std::uint64_t n, read<std::uint64_t>(key));
    if (n > left() / min_encoded_size(out.elem)) {
      return fail(count_at, "array '{}' claims {} {} elements but only {} bytes remain", key, n,
                  value_type_name(out.elem), left());
    }
    // Each element costs a Value (~80 bytes) in memory for 1 to 9 bytes of
    // file: a cap on the total bounds what a hostile file can make tok allocate.
    elements_ += n;
    if (elements_ > kMaxArrayElements) {
      return fail(count_at,
                  "metadata arrays hold more than {} elements in all (real vocabularies "
                  "have about 1 million)",
                  kMaxArrayElements);
    }
    out.array.resize(n);
    for (auto& item : out.array) TOK_TRY(value(out.elem, key, depth + 1, item));
    return {};
  }

  Status alignment() {
    const Value* a = f_.find("general.alignment");
    if (!a) return {};
    std::uint64_t v = 0;
    if (!value_to_int(*a, 1, UINT32_MAX, v) || !std::has_single_bit(v)) {
      return fail(0, "general.alignment must be a power of two, got {}",
                  a->is_integer() ? std::to_string(a->i) : a->type_name());
    }
    f_.alignment_ = static_cast<std::uint32_t>(v);
    return {};
  }

  Status tensor_infos() {
    f_.tensors_.reserve(n_tensors_);
    std::unordered_set<std::string_view> names;  // views into the mapping
    for (std::uint64_t t = 0; t < n_tensors_; ++t) {
      TensorInfo info;
      std::size_t at = pos_;
      TOK_ASSIGN(std::string_view name, string(fmt::format("name of tensor {}", t)));
      info.name = std::string(name);
      // A set, not a scan of the tensors so far: a file of a million tensors
      // would take hours quadratically.
      if (!names.insert(name).second) return fail(at, "duplicate tensor name '{}'", name);
      std::size_t dims_at = pos_;
      TOK_ASSIGN(std::uint32_t n_dims, read<std::uint32_t>(info.name));
      if (n_dims == 0 || n_dims > kMaxDims) {
        return fail(dims_at, "tensor '{}' has {} dimensions (expected 1 to {})", name, n_dims,
                    kMaxDims);
      }
      for (std::uint32_t d = 0; d < n_dims; ++d) {
        TOK_ASSIGN(std::uint64_t dim, read<std::uint64_t>(info.name));
        info.dims.push_back(dim);
      }
      std::size_t type_at = pos_;
      TOK_ASSIGN(std::uint32_t type, read<std::uint32_t>(info.name));
      if (!ggml::traits(type)) {
        return fail(type_at, "tensor '{}' has unknown ggml type {}", name, type);
      }
      info.type = static_cast<ggml::Type>(type);
      auto nbytes = ggml::tensor_bytes(info.type, info.dims);
      if (!nbytes.ok()) return fail(dims_at, "tensor '{}': {}", name, nbytes.error().message);
      info.nbytes = *nbytes;
      std::size_t off_at = pos_;
      TOK_ASSIGN(info.offset, read<std::uint64_t>(info.name));
      if (info.offset % f_.alignment_ != 0) {
        return fail(off_at, "tensor '{}' offset {} is not a multiple of the alignment {}", name,
                    info.offset, f_.alignment_);
      }
      offset_at_.push_back(off_at);
      f_.tensors_.push_back(std::move(info));
    }
    return {};
  }

  Status tensor_data() {
    std::uint64_t a = f_.alignment_;
    f_.data_offset_ = (pos_ + a - 1) / a * a;
    std::uint64_t size = bytes_.size();
    std::uint64_t data_size = f_.data_offset_ <= size ? size - f_.data_offset_ : 0;
    for (std::size_t t = 0; t < f_.tensors_.size(); ++t) {
      auto& info = f_.tensors_[t];
      if (info.offset > data_size || info.nbytes > data_size - info.offset) {
        return fail(offset_at_[t],
                    "tensor '{}' data [{}, +{}) lies outside the {} bytes of the data section "
                    "(file truncated?)",
                    info.name, info.offset, info.nbytes, data_size);
      }
      info.data = bytes_.data() + f_.data_offset_ + info.offset;
    }
    std::vector<std::size_t> order(f_.tensors_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return f_.tensors_[x].offset < f_.tensors_[y].offset;
    });
    for (std::size_t k = 1; k < order.size(); ++k) {
      const auto& prev = f_.tensors_[order[k - 1]];
      const auto& cur = f_.tensors_[order[k]];
      if (prev.offset + prev.nbytes > cur.offset) {
        return fail(offset_at_[order[k]], "tensor '{}' overlaps tensor '{}'", cur.name, prev.name);
      }
    }
    for (std::size_t t = 0; t < f_.tensors_.size(); ++t) {
      f_.tensor_index_.emplace(f_.tensors_[t].name, t);
    }
    return {};
  }

  GgufFile& f_;
  std::string_view bytes_;
  std::size_t pos_ = 0;
  std::uint64_t n_tensors_ = 0, n_kv_ = 0;
  std::uint64_t elements_ = 0;          // array elements read so far (all arrays)
  std::vector<std::size_t> offset_at_;  // (n_tensors) byte position of each offset field
};

Result<GgufFile> GgufFile::open(const std::string& path) {
  TOK_ASSIGN(MappedFile m, MappedFile::open(path));
  GgufFile f;
  f.path_ = path;
  f.file_ = std::make_unique<MappedFile>(std::move(m));
  f.bytes_ = f.file_->bytes();
  return parsed(std::move(f));
}

Result<GgufFile> GgufFile::read(const std::string& path) {
  // Opened through MappedFile first (a mapping costs nothing until read):
  // the same errors as open() for a missing file or a directory. Then read
  // with pread straight into the huge pages; standard input is copied.
  TOK_ASSIGN(MappedFile m, MappedFile::open(path));
  TOK_ASSIGN(HugeBuffer copy,
             path == "-" ? HugeBuffer::copy_of(m.bytes(), path) : HugeBuffer::read_file(path));
  GgufFile f;
  f.path_ = path;
  f.copy_ = std::make_unique<HugeBuffer>(std::move(copy));
  f.bytes_ = f.copy_->bytes();
  return parsed(std::move(f));
}

Result<GgufFile> GgufFile::parsed(GgufFile f) {
  Parser p(f);
  TOK_TRY(p.run());
  return f;
}

Result<GgufFile> GgufFile::parse(std::string bytes, const std::string& name) {
  GgufFile f;
  f.path_ = name;
  f.file_ = std::make_unique<MappedFile>(MappedFile::from_string(std::move(bytes)));
  f.bytes_ = f.file_->bytes();
  return parsed(std::move(f));
}

const Value* GgufFile::find(std::string_view key) const {
  auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kv_[it->second].value;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

Error GgufFile::key_error(std::string_view key, std::string_view want, const Value* got) const {
  if (!got) return make_error("{}: GGUF: metadata key '{}' is missing", path_, key);
  return make_error("{}: GGUF: metadata key '{}' should be {}, found {}", path_, key, want,
                    got->type_name());
}

bool value_to_int(const Value& v, std::int64_t lo, std::uint64_t hi, std::uint64_t& out) {
  if (!v.is_integer()) return false;
  bool is_signed = v.type == ValueType::kInt8 || v.type == ValueType::kInt16 ||
                   v.type == ValueType::kInt32 || v.type == ValueType::kInt64;
  if (is_signed && v.i < lo) return false;
  if (is_signed && v.i < 0) {
    out = static_cast<std::uint64_t>(v.i);  // caller's lo < 0 allowed it
    return true;
  }
  if (v.u > hi) return false;
  out = v.u;
  return true;
}

Result<std::string_view> GgufFile::get_string(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type != ValueType::kString) return key_error(key, "a string", v);
  return v->str;
}

Result<std::uint32_t> GgufFile::get_u32(std::string_view key) const {
  const Value* v = find(key);
  std::uint64_t out = 0;
  if (!v || !value_to_int(*v, 0, UINT32_MAX, out)) {
    if (v && v->is_integer()) {
      return make_error(
          "{}: GGUF: metadata key '{}' = {} is out of range for uint32", path_, key,
          v->type == ValueType::kUint64 ? std::to_string(v->u) : std::to_string(v->i));
    }
    return key_error(key, "an unsigned integer", v);
  }
  return static_cast<std::uint32_t>(out);
}

Result<std::uint64_t> GgufFile::get_u64(std::string_view key) const {
  const Value* v = find(key);
  std::uint64_t out = 0;
  if (!v || !value_to_int(*v, 0, UINT64_MAX, out))
    return key_error(key, "a non-negative integer", v);
  return out;
}

Result<std::int64_t> GgufFile::get_i64(std::string_view key) const {
  const Value* v = find(key);
  std::uint64_t out = 0;
  auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (!v || !value_to_int(*v, std::numeric_limits<std::int64_t>::min(), max, out)) {
    return key_error(key, "an integer", v);
  }
  return static_cast<std::int64_t>(out);
}

Result<double> GgufFile::get_float(std::string_view key) const {
  const Value* v = find(key);
  if (!v || !v->is_float()) return key_error(key, "a float", v);
  return v->f;
}

Result<bool> GgufFile::get_bool(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type != ValueType::kBool) return key_error(key, "a bool", v);
  return v->u != 0;
}

Result<const Value*> GgufFile::get_array(std::string_view key) const {
  const Value* v = find(key);
  if (!v || v->type != ValueType::kArray) return key_error(key, "an array", v);
  return v;
}

Result<const Value*> GgufFile::get_array(std::string_view key, ValueType elem) const {
  const Value* v = find(key);
  if (!v || v->type != ValueType::kArray || v->elem != elem) {
    return key_error(key, fmt::format("an array of {}", value_type_name(elem)), v);
  }
  return v;
}

}  // namespace tok::formats
