// JSONL documents (encode/count/train --jsonl): field extraction along a
// dotted path, the reasons a line is refused, and batches of whole lines
// that cover the input exactly whatever the block size.
#include "io/jsonl_reader.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "io/jsonl_documents.hpp"

using namespace tok::io;

namespace {

std::string doc(std::string_view line, const char* field, LineKind want = LineKind::kDocument) {
  auto f = parse_jsonl_field(field);
  REQUIRE(f.ok());
  std::string text, reason;
  LineKind k = read_document(line, *f, text, reason);
  CHECK_MESSAGE(k == want, reason);
  return k == LineKind::kDocument ? text : reason;
}

}  // namespace

TEST_CASE("jsonl: the field's string, escapes decoded, along a dotted path") {
  CHECK(doc(R"({"text":"a\nb \u00e9"})", "text") == "a\nb \xc3\xa9");
  CHECK(doc(R"({"meta":{"x":[{"text":"no"}],"text":"yes"},"text":"top"})", "meta.text") == "yes");
  CHECK(doc(R"({"text":"first","text":"last"})", "text") == "last");
  CHECK(doc(R"({"a":{"text":"inner"},"text":"outer"})", "text") == "outer");
  CHECK(doc("  \t\r", "text", LineKind::kBlank) == "");
}

TEST_CASE("jsonl: refused lines say why") {
  CHECK(doc(R"({"text":12})", "text", LineKind::kBad) ==
        "field 'text' holds a number, not a string");
  CHECK(doc(R"({"text":null})", "text", LineKind::kBad) == "field 'text' holds null, not a string");
  CHECK(doc(R"({"text":{"a":"b"}})", "text", LineKind::kBad) ==
        "field 'text' holds an object, not a string");
  CHECK(doc(R"({"other":"x","t":{"text":"y"}})", "text", LineKind::kBad) == "no field 'text'");
  CHECK(doc(R"({"meta":"flat"})", "meta.text", LineKind::kBad) == "no field 'meta.text'");
  CHECK(doc(R"(["text"])", "text", LineKind::kBad) == "not a JSON object");
  CHECK(doc(R"("text")", "text", LineKind::kBad) == "not a JSON object");
  CHECK(doc(R"({"text":"a"} x)", "text", LineKind::kBad).starts_with("not JSON"));
  CHECK(doc(R"({"text":"a)", "text", LineKind::kBad).starts_with("not JSON"));
  CHECK(doc(std::string(100, '[') + std::string(100, ']'), "text", LineKind::kBad) ==
        "nested deeper than 64 levels");
  // nlohmann stops at a NUL byte as at the end of input: without the
  // check, the object before it would be read and the rest dropped.
  using namespace std::string_literals;
  CHECK(doc("{\"text\":\"a\"}\0{\"text\":\"lost\"}"s, "text", LineKind::kBad) ==
        "not JSON (byte 13: a NUL byte)");
  CHECK(doc("{\"text\":\"a\"}\0"s, "text", LineKind::kBad) == "not JSON (byte 13: a NUL byte)");
  CHECK(doc("\0"s, "text", LineKind::kBad) == "not JSON (byte 1: a NUL byte)");
  CHECK(doc(R"({"text":"a\u0000b"})", "text") == "a\0b"s);
  CHECK(!parse_jsonl_field("a..b").ok());
  CHECK(!parse_jsonl_field("").ok());
}

TEST_CASE("jsonl: batches hold whole lines, numbered, at any block size") {
  const std::string input =
      "{\"t\":\"1\"}\n\n{\"t\":\"22\"}\r\n{\"t\":\"333\"}";  // no final newline
  for (std::size_t block : {1u, 3u, 7u, 64u}) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    REQUIRE(::write(fds[1], input.data(), input.size()) == static_cast<ssize_t>(input.size()));
    ::close(fds[1]);
    JsonlReader reader(fds[0], "<pipe>", block);
    JsonlBatch batch;
    std::string joined;
    std::uint64_t next_line = 1, bytes = 0;
    for (;;) {
      auto more = reader.next(batch);
      REQUIRE(more.ok());
      if (!*more) break;
      CHECK(batch.first_line == next_line);
      next_line += batch.lines.size();
      bytes += batch.bytes;
      for (auto l : batch.lines) joined += std::string(l) + "|";
    }
    ::close(fds[0]);
    CHECK(joined == "{\"t\":\"1\"}||{\"t\":\"22\"}\r|{\"t\":\"333\"}|");
    CHECK(next_line == 5);
    CHECK(bytes == input.size());
  }
}

TEST_CASE("jsonl: split_batch gives every slot a contiguous share") {
  JsonlBatch b;
  b.lines = {"aaaa", "b", "cccccccc", "d"};
  b.bytes = 4 + 1 + 1 + 1 + 8 + 1 + 1 + 1;
  auto cuts = split_batch(b, 3);
  REQUIRE(cuts.size() == 4);
  CHECK(cuts.front() == 0);
  CHECK(cuts.back() == 4);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) CHECK(cuts[i] <= cuts[i + 1]);
  CHECK(split_batch(b, 1) == std::vector<std::size_t>{0, 4});
}

namespace {

// Reads `input` through a pipe with the given block and line limit: the
// lines handed out joined by '|', or the error.
std::string read_lines(const std::string& input, std::size_t block, std::size_t max_line) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], input.data(), input.size()) == static_cast<ssize_t>(input.size()));
  ::close(fds[1]);
  JsonlReader reader(fds[0], "<pipe>", block, max_line);
  JsonlBatch batch;
  std::string joined;
  for (;;) {
    auto more = reader.next(batch);
    if (!more.ok()) {
      joined = more.error().message;
      break;
    }
    if (!*more) break;
    for (auto l : batch.lines) joined += std::string(l) + "|";
  }
  ::close(fds[0]);
  return joined;
}

}  // namespace

TEST_CASE("jsonl: a line longer than the limit is an error naming it, not a bigger buffer") {
  const std::string ok = "{\"t\":\"1\"}\n" + std::string(20, 'x') + "\n";
  for (std::size_t block : {1u, 4u, 64u}) {
    CHECK(read_lines(ok, block, 20) == "{\"t\":\"1\"}|" + std::string(20, 'x') + "|");
    CHECK(read_lines(ok + std::string(21, 'y') + "\nz\n", block, 20 << 20).ends_with("|z|"));
  }
  // Line 3 has 21 bytes (no newline yet when the limit is passed); the
  // limit is given in MiB in the message, here 0.
  for (std::size_t block : {1u, 4u, 64u}) {
    CHECK(read_lines(ok + std::string(21, 'y') + "\nz\n", block, 20) ==
          "<pipe>:3: a line longer than 0 MiB (the longest JSONL line tok reads)");
    CHECK(read_lines(ok + std::string(30, 'y'), block, 20) ==
          "<pipe>:3: a line longer than 0 MiB (the longest JSONL line tok reads)");
  }
}
