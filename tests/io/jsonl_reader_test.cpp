// JSONL documents (encode/count/train --jsonl): field extraction along a
// dotted path, the reasons a line is refused, the fast scanner against the
// SAX reader, and batches of whole lines that cover the input exactly
// whatever the block size.
#include "io/jsonl_reader.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <random>
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
    // A stream and the same bytes in memory (a mapped file), read alike.
    const bool memory = block == 3 || block == 64;
    JsonlReader reader =
        memory ? JsonlReader(input, "<pipe>", block) : JsonlReader(fds[0], "<pipe>", block);
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

// Reads `input` through a pipe (or from memory, as a mapped file is read)
// with the given block and line limit: the lines handed out joined by '|',
// each batch ended by '/', or the error.
std::string read_lines_from(const std::string& input, std::size_t block, std::size_t max_line,
                            bool memory) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], input.data(), input.size()) == static_cast<ssize_t>(input.size()));
  ::close(fds[1]);
  JsonlReader reader = memory ? JsonlReader(input, "<pipe>", block, max_line)
                              : JsonlReader(fds[0], "<pipe>", block, max_line);
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
    joined += "/";
  }
  ::close(fds[0]);
  return joined;
}

// The lines without the batch marks; the stream and memory readers must
// hand out the same lines and errors (their batches may be cut apart
// differently, never an error's place among the lines).
std::string read_lines(const std::string& input, std::size_t block, std::size_t max_line) {
  auto lines = [](std::string s) {
    std::erase(s, '/');
    return s;
  };
  std::string stream = read_lines_from(input, block, max_line, false);
  std::string memory = read_lines_from(input, block, max_line, true);
  CHECK_MESSAGE(lines(stream) == lines(memory), "block ", block, ": ", stream, " against ", memory);
  return lines(stream);
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

// The scanner against nlohmann's SAX reader (read_document_sax): on random
// valid lines, on the same lines mutated a byte at a time, and on hostile
// ones, read_document must give the same kind, text and reason, and the
// scanner must take the plain forms itself (else the speed is gone while
// every answer stays right).
namespace {

class LineMaker {
 public:
  explicit LineMaker(unsigned seed) : rng_(seed) {}
  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }

  std::string space() {
    static const char* const kSpace[] = {"", "", "", " ", "\t", " \r ", "  "};
    return kSpace[pick(std::size(kSpace))];
  }
  std::string string() {
    static const char* const kParts[] = {"plain",
                                         " ",
                                         "a",
                                         "\\n",
                                         "\\\"",
                                         "\\\\",
                                         "\\/",
                                         "\\t\\r\\b\\f",
                                         "\\u00e9",
                                         "\\u0000",
                                         "\\ud83d\\ude00",
                                         "\\uD83D\\uDE00",
                                         "caf\xc3\xa9",
                                         "\xe6\x97\xa5\xe6\x9c\xac",
                                         "\xf0\x9f\x98\x80",
                                         "\xef\xbf\xbf",
                                         "\xf4\x8f\xbf\xbf",
                                         "<|endoftext|>",
                                         "0123456789abcdef",
                                         "{\\\"text\\\":1}",
                                         "text",
                                         "\\u20AC",
                                         "\\u007f",
                                         "\x7f"};
    std::string s = "\"";
    for (std::size_t n = pick(12); n > 0; --n) s += kParts[pick(std::size(kParts))];
    return s + "\"";
  }
  std::string key() {
    static const char* const kKeys[] = {"\"text\"", "\"meta\"",  "\"a\"",          "\"t\\u0065xt\"",
                                        "\"\"",     "\"text \"", "\"m\xc3\xa9ta\""};
    return kKeys[pick(std::size(kKeys))];
  }
  std::string value(int depth) {
    static const char* const kScalars[] = {"0",
                                           "-1",
                                           "12",
                                           "1.5",
                                           "-0.0",
                                           "1e5",
                                           "1E+2",
                                           "2.5e-3",
                                           "1e99",
                                           "1e400",
                                           "-1e400",
                                           "123456789012345678901234567890",
                                           "18446744073709551616",
                                           "true",
                                           "false",
                                           "null"};
    std::size_t k = pick(depth > 4 ? 2 : 4);
    if (k == 0) return string();
    if (k == 1) return kScalars[pick(std::size(kScalars))];
    if (k == 2) return object(depth + 1);
    std::string s = "[";
    s += space();
    for (std::size_t n = pick(4), i = 0; i < n; ++i) {
      if (i) s += ',';
      s += space();
      s += value(depth + 1);
      s += space();
    }
    return s + "]";
  }
  std::string object(int depth) {
    std::string s = "{";
    s += space();
    for (std::size_t n = pick(5), i = 0; i < n; ++i) {
      if (i) s += ',';
      s += space();
      s += key();
      s += space();
      s += ':';
      s += space();
      s += value(depth);
      s += space();
    }
    return s + "}";
  }
  // A line's object: random members, mostly with a string at "text" and
  // at "meta.text" among them, in any order.
  std::string line() {
    std::vector<std::string> members;
    for (std::size_t n = pick(4); n > 0; --n) members.push_back(key() + ":" + value(1));
    if (pick(10) != 0) members.push_back("\"text\":" + space() + (pick(5) ? string() : value(1)));
    if (pick(10) != 0) {
      members.push_back("\"meta\":{\"n\":" + value(2) +
                        ",\"text\":" + (pick(5) ? string() : value(2)) + "}");
    }
    std::shuffle(members.begin(), members.end(), rng_);
    std::string s = space();
    s += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i) s += ',';
      s += space();
      s += members[i];
    }
    s += '}';
    s += space();
    return s;
  }
  std::string mutate(std::string s) {
    static const char kBytes[] = {'"',    '\\',   '{',    '}',    '[',    ']',    ',',
                                  ':',    'u',    'e',    '0',    '-',    '.',    ' ',
                                  '\0',   '\x1f', '\x80', '\xbf', '\xc0', '\xc3', '\xed',
                                  '\xf0', '\xf4', '\xff', 'd',    '8'};
    if (s.empty()) return s;
    std::size_t at = pick(s.size());
    switch (pick(4)) {
      case 0: s.erase(at, 1); break;
      case 1: s.insert(at, 1, kBytes[pick(sizeof kBytes)]); break;
      case 2: s[at] = kBytes[pick(sizeof kBytes)]; break;
      default: s.resize(at); break;
    }
    return s;
  }

 private:
  std::mt19937 rng_;
};

struct Outcome {
  LineKind kind;
  std::string text, reason;
  bool operator==(const Outcome&) const = default;
};

Outcome through_reader(std::string_view line, const JsonlField& f) {
  std::string_view text;
  std::string scratch, reason;
  LineKind k = read_document(line, f, text, scratch, reason);
  return {k, k == LineKind::kDocument ? std::string(text) : "", reason};
}

Outcome through_sax(std::string_view line, const JsonlField& f) {
  std::string text, reason;
  LineKind k = read_document_sax(line, f, text, reason);
  return {k, k == LineKind::kDocument ? text : "", reason};
}

}  // namespace

TEST_CASE("jsonl: the scanner and the SAX reader agree on random and mutated lines") {
  LineMaker make(46);
  std::size_t documents = 0, scanned = 0, mutants = 0;
  for (const char* path : {"text", "meta.text"}) {
    auto f = parse_jsonl_field(path);
    REQUIRE(f.ok());
    for (int i = 0; i < 4000; ++i) {
      std::string line = i % 4 ? make.line() : make.object(0);
      Outcome want = through_sax(line, *f);
      CHECK_MESSAGE(through_reader(line, *f) == want, line);
      std::string_view text;
      std::string scratch;
      if (want.kind == LineKind::kDocument) {
        ++documents;
        scanned += scan_document(line, *f, text, scratch);
      }
      for (int m = 0; m < 4; ++m) {
        line = make.mutate(line);
        Outcome mutant = through_sax(line, *f);
        mutants += mutant.kind == LineKind::kBad;
        CHECK_MESSAGE(through_reader(line, *f) == mutant, line);
      }
    }
  }
  // The generator's lines hold escaped keys and overflowing numbers, which
  // the scanner leaves to nlohmann; most documents are its own.
  CHECK(documents > 1000);
  CHECK(scanned * 2 > documents);
  CHECK(mutants > 1000);
}

TEST_CASE("jsonl: the scanner's string step stops where the definition says, in every set") {
  std::mt19937 rng(46);
  const unsigned char bytes[] = {'"',  '\\',     0x00, 0x01, 0x1f, 0x20,
                                 0x21, 0x5c - 1, 0x7f, 0x80, 0xff, 'a'};
  auto stop = [](unsigned char c) { return c == '"' || c == '\\' || c < 0x20; };
  std::size_t sets = 0;
  for (StringStep isa : {StringStep::kWords, StringStep::kSse2, StringStep::kAvx2}) {
    if (!string_step(isa, "").has_value()) continue;
    ++sets;
    for (int i = 0; i < 20000; ++i) {
      std::string s(std::uniform_int_distribution<std::size_t>(0, 100)(rng), 'a');
      // Stops rare or common, so runs are long and short.
      const unsigned odds = 1u << std::uniform_int_distribution<unsigned>(0, 7)(rng);
      for (char& c : s) {
        if (std::uniform_int_distribution<unsigned>(0, odds)(rng) == 0) {
          c = static_cast<char>(bytes[std::uniform_int_distribution<std::size_t>(0, 11)(rng)]);
        }
      }
      const std::size_t k = *string_step(isa, s);
      std::size_t first = 0;
      while (first < s.size() && !stop(static_cast<unsigned char>(s[first]))) ++first;
      REQUIRE(k <= s.size());
      if (first < s.size() && first + 8 <= s.size()) {
        CHECK_MESSAGE(k == first, static_cast<int>(isa), ": ", s.size(), " bytes");
      } else {
        // No stop, or one among the last 7 bytes: stopped at it or before
        // it, fewer than 8 bytes from the end.
        CHECK(k <= first);
        CHECK(s.size() - k < 8);
      }
    }
  }
#if defined(__x86_64__)
  CHECK(sets >= 2);  // SSE2 is in the x86-64 base
#endif
}

TEST_CASE("jsonl: the scanner and the SAX reader agree on hostile lines") {
  using namespace std::string_literals;
  const std::string cases[] = {R"({"text":"\ud800"})",
                               R"({"text":"\udc00"})",
                               R"({"text":"\ud800\u0041"})",
                               R"({"text":"\ud800\ud800"})",
                               R"({"text":"\ud83d\ude00"})",
                               R"({"text":"\u12"})",
                               R"({"text":"\x"})",
                               R"({"text":"\u00E9\u00e9"})",
                               "{\"text\":\"\xc0\xaf\"}",
                               "{\"text\":\"\xed\xa0\x80\"}",
                               "{\"text\":\"\xf4\x90\x80\x80\"}",
                               "{\"text\":\"\xe6\x97\"}",
                               "{\"text\":\"\xff\"}",
                               "{\"text\":\"a\tb\"}",
                               "{\"text\":\"a\x7f\"}",
                               "\xef\xbb\xbf{\"text\":\"bom\"}",
                               "{\"text\":\"crlf\"}\r",
                               " {\"text\":\"x\"} \t",
                               "{\"text\":\"a\"}\0"s,
                               R"({"text":"a",})",
                               R"({"text":"a" "b"})",
                               R"({,"text":"a"})",
                               R"({"text":01})",
                               R"({"text":-})",
                               R"({"text":1.})",
                               R"({"text":.5})",
                               R"({"text":1e})",
                               R"({"text":tru})",
                               R"({"text":nul})",
                               R"({"text":"a","n":1e400})",
                               R"({"text":"a","n":-0})",
                               R"({"text":"a","n":1e-400})",
                               R"({"text":"a","n":)" + std::string(400, '9') + "}",
                               R"({"text":"a","n":0.)" + std::string(400, '1') + "}",
                               R"({"text":1,"text":"b"})",
                               R"({"text":"b","text":1})",
                               R"({"te\u0078t":"esc key"})",
                               R"({"text":"a"}{})",
                               "{}",
                               "[]",
                               R"("text")",
                               "  ",
                               "",
                               R"({"text":"a"]})",
                               R"({"text":["a"]})",
                               R"({"text":{"text":"a"}})",
                               "{\"text\":\"" + std::string(3, '\\') + "\"}",
                               "{\"" + std::string(1000, 'k') + "\":1,\"text\":\"long key\"}"};
  for (const char* path : {"text", "meta.text"}) {
    auto f = parse_jsonl_field(path);
    REQUIRE(f.ok());
    for (const std::string& line : cases)
      CHECK_MESSAGE(through_reader(line, *f) == through_sax(line, *f), line);
    for (std::size_t depth : {62u, 63u, 64u, 65u, 200u}) {
      std::string deep =
          "{\"text\":\"x\",\"a\":" + std::string(depth, '[') + std::string(depth, ']') + "}";
      CHECK_MESSAGE(through_reader(deep, *f) == through_sax(deep, *f), depth);
      std::string objs = "{\"meta\":";
      for (std::size_t i = 0; i < depth; ++i) objs += "{\"meta\":";
      objs += '1';
      objs.append(depth + 1, '}');
      CHECK_MESSAGE(through_reader(objs, *f) == through_sax(objs, *f), depth);
    }
  }
  // The forms of real datasets are the scanner's own.
  auto f = parse_jsonl_field("text");
  REQUIRE(f.ok());
  std::string_view text;
  std::string scratch;
  CHECK(scan_document(R"({"id":12,"text":"a\nb \u00e9 \ud83d\ude00","score":-1.5e3,"ok":true})", *f,
                      text, scratch));
  CHECK(text == "a\nb \xc3\xa9 \xf0\x9f\x98\x80");
  CHECK(scan_document("{\"text\":\"caf\xc3\xa9 plain\"}\r", *f, text, scratch));
  CHECK(text == "caf\xc3\xa9 plain");
}
