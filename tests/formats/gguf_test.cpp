// GGUF reader/writer: hand-built byte buffers (valid, truncated, corrupt) and
// writer round trips.
#include "formats/gguf.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

using namespace tok::formats;

namespace {

// Little-endian byte builder for hand-made files.
struct Bytes {
  std::string s;
  template <class T>
  Bytes& put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s.append(b, sizeof(T));
    return *this;
  }
  Bytes& str(std::string_view v) {
    put<std::uint64_t>(v.size());
    s.append(v);
    return *this;
  }
  Bytes& header(std::uint64_t n_tensors, std::uint64_t n_kv, std::uint32_t version = 3) {
    s += "GGUF";
    put<std::uint32_t>(version);
    put<std::uint64_t>(n_tensors);
    return put<std::uint64_t>(n_kv);
  }
  Bytes& pad(std::size_t a) {
    s.resize((s.size() + a - 1) / a * a, '\0');
    return *this;
  }
};

// A valid file: 3 kvs (string, u32, array of strings), 2 f32 tensors.
std::string valid_file() {
  Bytes b;
  b.header(2, 3);
  b.str("general.name").put<std::uint32_t>(8).str("tiny");
  b.str("tiny.count").put<std::uint32_t>(4).put<std::uint32_t>(7);
  b.str("tokenizer.ggml.tokens").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(2);
  b.str("a").str("bc");
  b.str("w").put<std::uint32_t>(2).put<std::uint64_t>(2).put<std::uint64_t>(3);
  b.put<std::uint32_t>(0).put<std::uint64_t>(0);
  b.str("v").put<std::uint32_t>(1).put<std::uint64_t>(4);
  b.put<std::uint32_t>(0).put<std::uint64_t>(32);
  b.pad(32);
  for (int i = 0; i < 6; ++i) b.put<float>(static_cast<float>(i));
  b.pad(32);
  for (int i = 0; i < 4; ++i) b.put<float>(10.0f + static_cast<float>(i));
  return b.s;
}

std::string error_of(std::string bytes) {
  auto r = GgufFile::parse(std::move(bytes), "t.gguf");
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("gguf: a valid hand-built file") {
  auto r = GgufFile::parse(valid_file(), "t.gguf");
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  const GgufFile& f = *r;
  CHECK(f.version() == 3);
  CHECK(f.alignment() == 32);
  CHECK(f.metadata().size() == 3);
  CHECK(*f.get_string("general.name") == "tiny");
  CHECK(*f.get_u32("tiny.count") == 7);
  auto arr = f.get_array("tokenizer.ggml.tokens", ValueType::kString);
  REQUIRE(arr.ok());
  REQUIRE((*arr)->array.size() == 2);
  CHECK((*arr)->array[1].str == "bc");
  REQUIRE(f.tensors().size() == 2);
  const TensorInfo* w = f.find_tensor("w");
  REQUIRE(w);
  CHECK(w->dims == std::vector<std::uint64_t>{2, 3});
  CHECK(w->nbytes == 24);
  const float* wd = static_cast<const float*>(w->data);
  CHECK(wd[5] == 5.0f);
  const TensorInfo* v = f.find_tensor("v");
  REQUIRE(v);
  CHECK(static_cast<const float*>(v->data)[3] == 13.0f);
}

TEST_CASE("gguf: accessor errors name the key and the type") {
  auto r = GgufFile::parse(valid_file(), "t.gguf");
  REQUIRE(r.ok());
  CHECK(r->get_u32("general.name").error().message ==
        "t.gguf: GGUF: metadata key 'general.name' should be an unsigned integer, found string");
  CHECK(r->get_string("nope").error().message == "t.gguf: GGUF: metadata key 'nope' is missing");
  CHECK(r->get_array("tokenizer.ggml.tokens", ValueType::kInt32)
            .error()
            .message.find("array of int32, found array[string]") != std::string::npos);
  CHECK_FALSE(r->get_bool("tiny.count").ok());
}

TEST_CASE("gguf: every truncation is an error, never a crash") {
  std::string full = valid_file();
  for (std::size_t n = 0; n < full.size(); ++n) {
    auto r = GgufFile::parse(full.substr(0, n), "t.gguf");
    CHECK_FALSE(r.ok());
    if (!r.ok()) CHECK(r.error().message.rfind("t.gguf: GGUF: ", 0) == 0);
  }
}

TEST_CASE("gguf: corrupt headers and counts") {
  CHECK(error_of("GGUX1234").find("not a GGUF file") != std::string::npos);
  CHECK(error_of(Bytes().header(0, 0, 1).s).find("version 1") != std::string::npos);
  CHECK(error_of(Bytes().header(0, 0, 9).s).find("unsupported version 9") != std::string::npos);
  CHECK(error_of(Bytes().header(0, UINT64_MAX).s).find("metadata count") != std::string::npos);
  CHECK(error_of(Bytes().header(1ull << 60, 0).s).find("tensor count") != std::string::npos);
}

TEST_CASE("gguf: absurd lengths are rejected before allocating") {
  Bytes s;
  s.header(0, 1).put<std::uint64_t>(1ull << 62).s += "key and some more bytes";
  CHECK(error_of(s.s).find("claims 4611686018427387904 bytes") != std::string::npos);

  Bytes a;
  a.header(0, 1).str("arr").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(1ull
                                                                                           << 40);
  std::string e = error_of(a.s);
  CHECK(e.find("array 'arr' claims 1099511627776 string elements") != std::string::npos);
  CHECK(e.find("(at byte ") != std::string::npos);

  Bytes t;
  t.header(0, 1).str("x").put<std::uint32_t>(77).put<std::uint32_t>(0);
  CHECK(error_of(t.s).find("unknown value type 77") != std::string::npos);

  Bytes d;  // arrays nested deeper than the limit
  d.header(0, 1).str("deep");
  d.put<std::uint32_t>(9);
  for (int i = 0; i < 20; ++i) d.put<std::uint32_t>(9).put<std::uint64_t>(1);
  d.put<std::uint32_t>(0).put<std::uint64_t>(0);
  CHECK(error_of(d.s).find("nests arrays deeper") != std::string::npos);

  Bytes dup;
  dup.header(0, 2).str("k").put<std::uint32_t>(0).put<std::uint8_t>(1);
  dup.str("k").put<std::uint32_t>(0).put<std::uint8_t>(2);
  CHECK(error_of(dup.s).find("duplicate metadata key 'k'") != std::string::npos);
}

TEST_CASE("gguf: metadata arrays are capped in total, tensor names checked in linear time") {
  // 9 M one-byte elements (in two arrays) would be ~700 MB of Values.
  Bytes a;
  a.header(0, 2);
  for (const char* key : {"a", "b"}) {
    a.str(key).put<std::uint32_t>(9).put<std::uint32_t>(0).put<std::uint64_t>(4500000);
    a.s.append(4500000, '\1');
  }
  std::string e = error_of(a.s);
  CHECK(e.find("metadata arrays hold more than 8388608 elements in all") != std::string::npos);

  // 200000 tensors whose names are all distinct, then a duplicate: found at
  // once (the old pairwise scan took 2e10 comparisons).
  Bytes t;
  t.header(200001, 0);
  for (int i = 0; i <= 200000; ++i) {
    t.str(fmt::format("t{}", i == 200000 ? 0 : i));
    t.put<std::uint32_t>(1).put<std::uint64_t>(8).put<std::uint32_t>(0).put<std::uint64_t>(0);
  }
  CHECK(error_of(t.s).find("duplicate tensor name 't0'") != std::string::npos);
}

TEST_CASE("gguf: bad tensor infos") {
  auto tensor = [](std::uint32_t n_dims, std::vector<std::uint64_t> dims, std::uint32_t type,
                   std::uint64_t offset, std::size_t data) {
    Bytes b;
    b.header(1, 0).str("t").put<std::uint32_t>(n_dims);
    for (auto d : dims) b.put<std::uint64_t>(d);
    b.put<std::uint32_t>(type).put<std::uint64_t>(offset).pad(32);
    b.s.append(data, '\0');
    return b.s;
  };
  CHECK(GgufFile::parse(tensor(1, {8}, 0, 0, 32), "t").ok());
  CHECK(error_of(tensor(5, {1, 1, 1, 1, 1}, 0, 0, 32)).find("5 dimensions") != std::string::npos);
  CHECK(error_of(tensor(1, {8}, 99, 0, 32)).find("tensor 't' has unknown ggml type 99") !=
        std::string::npos);
  CHECK(error_of(tensor(1, {16}, 2, 0, 32)).find("not a multiple of the q4_0 block size 32") !=
        std::string::npos);
  CHECK(error_of(tensor(2, {1ull << 40, 1ull << 40}, 0, 0, 32)).find("overflows") !=
        std::string::npos);
  CHECK(error_of(tensor(1, {16}, 0, 0, 32)).find("outside") != std::string::npos);
  CHECK(error_of(tensor(1, {8}, 0, 7, 64)).find("not a multiple of the alignment") !=
        std::string::npos);
  CHECK(error_of(tensor(1, {8}, 0, 1ull << 62, 64)).find("outside") != std::string::npos);

  Bytes o;  // two tensors overlapping
  o.header(2, 0);
  o.str("a").put<std::uint32_t>(1).put<std::uint64_t>(16).put<std::uint32_t>(0).put<std::uint64_t>(
      0);
  o.str("b").put<std::uint32_t>(1).put<std::uint64_t>(8).put<std::uint32_t>(0).put<std::uint64_t>(
      32);
  o.pad(32).s.append(128, '\0');
  CHECK(error_of(o.s).find("tensor 'b' overlaps tensor 'a'") != std::string::npos);
}

TEST_CASE("gguf: alignment from metadata") {
  Bytes b;
  b.header(1, 1).str("general.alignment").put<std::uint32_t>(4).put<std::uint32_t>(64);
  b.str("t").put<std::uint32_t>(1).put<std::uint64_t>(4).put<std::uint32_t>(0).put<std::uint64_t>(
      0);
  b.pad(64).s.append(16, '\x01');
  auto r = GgufFile::parse(b.s, "t");
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->alignment() == 64);
  CHECK(r->data_offset() % 64 == 0);

  Bytes bad;
  bad.header(0, 1).str("general.alignment").put<std::uint32_t>(4).put<std::uint32_t>(48);
  CHECK(error_of(bad.s).find("power of two") != std::string::npos);
}

TEST_CASE("gguf: type sizes") {
  CHECK(*tok::ggml::tensor_bytes(tok::ggml::Type::kQ4_K, {256, 2}) == 288);
  CHECK(*tok::ggml::tensor_bytes(tok::ggml::Type::kQ8_0, {64}) == 68);
  CHECK(*tok::ggml::tensor_bytes(tok::ggml::Type::kBF16, {3, 3}) == 18);
  CHECK(*tok::ggml::tensor_bytes(tok::ggml::Type::kQ6_K, {512}) == 420);
  CHECK(tok::ggml::traits(4u) == nullptr);  // Q4_2: removed from ggml
}

TEST_CASE("gguf: writer round trip, atomic write to disk") {
  GgufWriter w;
  REQUIRE(w.set_alignment(64).ok());
  w.set_string("general.architecture", "llama");
  w.set_u32("llama.block_count", 2);
  w.set_u32("llama.block_count", 3);  // replaces
  w.set_strings("tokenizer.ggml.tokens", {"<s>", "a", "▁b"});
  w.set_f32s("tokenizer.ggml.scores", {0.f, -1.f, -2.5f});
  w.set_bool("tokenizer.ggml.add_bos_token", true);
  w.set("nested", Value::make_array(ValueType::kArray,
                                    {Value::make_array(ValueType::kInt64, {Value::i64(-5)})}));
  std::string q8(34 * 2, '\x02');
  REQUIRE(w.add_tensor("q", tok::ggml::Type::kQ8_0, {64}, q8).ok());
  std::string f32(12, '\x03');
  REQUIRE(w.add_tensor_view("f", tok::ggml::Type::kF32, {3}, f32).ok());
  CHECK_FALSE(w.add_tensor("f", tok::ggml::Type::kF32, {3}, f32).ok());
  CHECK(w.add_tensor("g", tok::ggml::Type::kF32, {4}, f32).error().message.find("needs 16 bytes") !=
        std::string::npos);

  auto path = (std::filesystem::temp_directory_path() / "tok_gguf_writer_test.gguf").string();
  REQUIRE(w.write(path).ok());
  auto r = GgufFile::open(path);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->alignment() == 64);
  CHECK(*r->get_u32("llama.block_count") == 3);
  CHECK(*r->get_bool("tokenizer.ggml.add_bos_token"));
  CHECK((*r->get_array("tokenizer.ggml.tokens"))->array[2].str == "▁b");
  CHECK((*r->get_array("tokenizer.ggml.scores"))->array[2].f == -2.5);
  CHECK(r->find("nested")->array[0].array[0].i == -5);
  REQUIRE(r->tensors().size() == 2);
  CHECK(r->tensors()[1].offset % 64 == 0);
  CHECK(std::string_view(static_cast<const char*>(r->find_tensor("q")->data), q8.size()) == q8);
  CHECK(std::string_view(static_cast<const char*>(r->find_tensor("f")->data), 12) == f32);
  CHECK(w.serialize().size() == r->file_size());
  std::filesystem::remove(path);
}

TEST_CASE("gguf: llama.cpp's vocabulary files parse") {
  for (const char* name : {"gpt-2", "deepseek-coder", "deepseek-llm", "falcon", "mpt", "refact",
                           "starcoder", "llama-spm", "phi-3"}) {
    std::string path = std::string(TOK_TEST_DATA) + "/llama.cpp-vocab/ggml-vocab-" + name + ".gguf";
    auto r = GgufFile::open(path);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    CHECK(r->tensors().empty());
    auto tokens = r->get_array("tokenizer.ggml.tokens", ValueType::kString);
    REQUIRE_MESSAGE(tokens.ok(), tokens.error().message);
    CHECK((*tokens)->array.size() > 30000);
    CHECK(r->get_string("tokenizer.ggml.model").ok());
  }
}

TEST_CASE("gguf: read() copies the file into memory and parses it as open() does") {
  auto path =
      (std::filesystem::temp_directory_path() / fmt::format("tok-gguf-read-{}.gguf", ::getpid()))
          .string();
  {
    std::FILE* out = std::fopen(path.c_str(), "wb");
    REQUIRE(out);
    std::string bytes = valid_file();
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size());
    std::fclose(out);
  }
  auto mapped = GgufFile::open(path);
  auto copied = GgufFile::read(path);
  std::filesystem::remove(path);
  REQUIRE_MESSAGE(mapped.ok(), mapped.error().message);
  REQUIRE_MESSAGE(copied.ok(), copied.error().message);
  CHECK(copied->file_size() == mapped->file_size());
  CHECK(*copied->get_string("general.name") == "tiny");
  REQUIRE(copied->tensors().size() == 2);
  const TensorInfo* w = copied->find_tensor("w");
  REQUIRE(w);
  CHECK(std::memcmp(w->data, mapped->find_tensor("w")->data, w->nbytes) == 0);
  // The tensors point into the copy, not into a mapping that is gone.
  GgufFile moved = std::move(*copied);
  CHECK(static_cast<const float*>(moved.find_tensor("v")->data)[3] == 13.0f);
  // The same errors as open().
  auto missing = GgufFile::read(path);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == GgufFile::open(path).error().message);
  auto dir = GgufFile::read(std::filesystem::temp_directory_path().string());
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().message.find("is a directory") != std::string::npos);
}
