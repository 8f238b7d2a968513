#include "formats/gguf_writer.hpp"

#include <bit>
#include <cstring>

#include "core/atomic_file.hpp"

namespace tok::formats {

namespace {

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

void put_string(std::string& out, std::string_view s) {
  put<std::uint64_t>(out, s.size());
  out.append(s);
}

// The value's payload, without its type tag.
void put_value(std::string& out, const Value& v) {
  switch (v.type) {
    case ValueType::kUint8: put<std::uint8_t>(out, static_cast<std::uint8_t>(v.u)); break;
    case ValueType::kInt8: put<std::int8_t>(out, static_cast<std::int8_t>(v.i)); break;
    case ValueType::kUint16: put<std::uint16_t>(out, static_cast<std::uint16_t>(v.u)); break;
    case ValueType::kInt16: put<std::int16_t>(out, static_cast<std::int16_t>(v.i)); break;
    case ValueType::kUint32: put<std::uint32_t>(out, static_cast<std::uint32_t>(v.u)); break;
    case ValueType::kInt32: put<std::int32_t>(out, static_cast<std::int32_t>(v.i)); break;
    case ValueType::kUint64: put<std::uint64_t>(out, v.u); break;
    case ValueType::kInt64: put<std::int64_t>(out, v.i); break;
    case ValueType::kFloat32: put<float>(out, static_cast<float>(v.f)); break;
    case ValueType::kFloat64: put<double>(out, v.f); break;
    case ValueType::kBool: put<std::uint8_t>(out, v.u ? 1 : 0); break;
    case ValueType::kString: put_string(out, v.str); break;
    case ValueType::kArray:
      put<std::uint32_t>(out, static_cast<std::uint32_t>(v.elem));
      put<std::uint64_t>(out, v.array.size());
      for (const auto& item : v.array) {
        TOK_ASSERT(item.type == v.elem);
        put_value(out, item);
      }
      break;
  }
}

std::uint64_t align_up(std::uint64_t n, std::uint64_t a) { return (n + a - 1) / a * a; }

}  // namespace

void GgufWriter::set(std::string_view key, const Value& v) {
  std::string enc;
  put<std::uint32_t>(enc, static_cast<std::uint32_t>(v.type));
  put_value(enc, v);
  for (auto& [k, e] : kv_) {
    if (k == key) {
      e = std::move(enc);
      return;
    }
  }
  kv_.emplace_back(std::string(key), std::move(enc));
}

bool GgufWriter::remove(std::string_view key) {
  for (auto it = kv_.begin(); it != kv_.end(); ++it) {
    if (it->first == key) {
      kv_.erase(it);
      return true;
    }
  }
  return false;
}

void GgufWriter::set_strings(std::string_view key, const std::vector<std::string>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (const auto& s : v) items.push_back(Value::string(s));
  set(key, Value::make_array(ValueType::kString, std::move(items)));
}

void GgufWriter::set_f32s(std::string_view key, const std::vector<float>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (float x : v) items.push_back(Value::f32(x));
  set(key, Value::make_array(ValueType::kFloat32, std::move(items)));
}

void GgufWriter::set_i32s(std::string_view key, const std::vector<std::int32_t>& v) {
  std::vector<Value> items;
  items.reserve(v.size());
  for (auto x : v) items.push_back(Value::i32(x));
  set(key, Value::make_array(ValueType::kInt32, std::move(items)));
}

Status GgufWriter::set_alignment(std::uint32_t alignment) {
  if (!std::has_single_bit(alignment)) {
    return make_error("GGUF alignment must be a power of two, got {}", alignment);
  }
  if (!tensors_.empty()) return make_error("GGUF alignment must be set before adding tensors");
  alignment_ = alignment;
  set_u32("general.alignment", alignment);
  return {};
}

Status GgufWriter::check_tensor(const std::string& name, ggml::Type type,
                                const std::vector<std::uint64_t>& dims, std::size_t size) const {
  for (const auto& t : tensors_) {
    if (t.name == name) return make_error("GGUF writer: duplicate tensor name '{}'", name);
  }
  auto nbytes = ggml::tensor_bytes(type, dims);
  if (!nbytes.ok()) return make_error("GGUF writer: tensor '{}': {}", name, nbytes.error().message);
  if (*nbytes != size) {
    return make_error("GGUF writer: tensor '{}' needs {} bytes of data, got {}", name, *nbytes,
                      size);
  }
  return {};
}

Status GgufWriter::add_tensor(std::string name, ggml::Type type, std::vector<std::uint64_t> dims,
                              std::string data) {
  TOK_TRY(check_tensor(name, type, dims, data.size()));
  Tensor t{std::move(name), type, std::move(dims), true, std::move(data), {}, 0};
  t.offset = align_up(data_size_, alignment_);
  data_size_ = t.offset + t.owned.size();
  tensors_.push_back(std::move(t));
  return {};
}

Status GgufWriter::add_tensor_view(std::string name, ggml::Type type,
                                   std::vector<std::uint64_t> dims, std::string_view data) {
  TOK_TRY(check_tensor(name, type, dims, data.size()));
  Tensor t{std::move(name), type, std::move(dims), false, {}, data, 0};
  t.offset = align_up(data_size_, alignment_);
  data_size_ = t.offset + data.size();
  tensors_.push_back(std::move(t));
  return {};
}

std::string GgufWriter::head() const {
  std::string out("GGUF");
  put<std::uint32_t>(out, 3);
  put<std::uint64_t>(out, tensors_.size());
  put<std::uint64_t>(out, kv_.size());
  for (const auto& [k, enc] : kv_) {
    put_string(out, k);
    out += enc;
  }
  for (const auto& t : tensors_) {
    put_string(out, t.name);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(t.dims.size()));
    for (auto d : t.dims) put<std::uint64_t>(out, d);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(t.type));
    put<std::uint64_t>(out, t.offset);
  }
  out.resize(align_up(out.size(), alignment_), '\0');
  return out;
}

std::string GgufWriter::serialize() const {
  std::string out = head();
  std::size_t base = out.size();
  for (const auto& t : tensors_) {
    out.resize(base + t.offset, '\0');
    out += t.data();
  }
  return out;
}

Status GgufWriter::write(const std::string& path) const {
  TOK_ASSIGN(AtomicFile f, AtomicFile::create(path));
  TOK_TRY(f.write(head()));
  std::uint64_t pos = 0;
  static const std::string kZeros(4096, '\0');
  for (const auto& t : tensors_) {
    while (pos < t.offset) {
      std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(t.offset - pos, kZeros.size()));
      TOK_TRY(f.write(std::string_view(kZeros).substr(0, n)));
      pos += n;
    }
    TOK_TRY(f.write(t.data()));
    pos += t.data().size();
  }
  return f.commit();
}

}  // namespace tok::formats
