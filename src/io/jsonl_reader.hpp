// Reading datasets as they come: JSON Lines whose every line is one object
// holding the document's text in a field (a dotted path such as
// "meta.text"). The one reader of `tok encode/count/train --jsonl`.
//
// JsonlReader hands out batches of whole lines, about one block each. A
// regular file is mapped (map_jsonl), as plain `tok encode` maps its input,
// and the batches are views of the mapping: read(2) into a buffer had cost
// about 5% of `tok encode --jsonl` (the copy, and the buffer's page faults).
// Stdin and other streams are read in blocks, so memory is about one block
// plus the longest line, whatever the stream's length. A line longer than
// kJsonlMaxLine is an error naming it in both, so a stream with no newline
// (/dev/zero, a binary file) stops after that much instead of growing the
// buffer until memory runs out.
// read_document() extracts one line's field in one pass of a scanner written
// for this one question (jsonl_reader.cpp): it validates the whole line as
// strict JSON, follows the field path and hands out the string as a view of
// the line unless it holds escapes. Any line the scanner does not accept
// (every error, and a few rare valid forms it leaves alone) is read again
// by nlohmann's SAX parser, which gives every refusal its message; so the
// messages are the SAX reader's by construction, and the scanner only has
// to be right about the lines it accepts (tests/io/jsonl_reader_test.cpp
// checks both agree on random and hostile lines). Nesting is bounded
// (kJsonlMaxDepth) in both, so a hostile line cannot exhaust the stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/mapped_file.hpp"
#include "core/result.hpp"

namespace tok::io {

inline constexpr std::size_t kJsonlBlock = 8u << 20;
inline constexpr std::size_t kJsonlMaxDepth = 64;
// The longest line (one document): four times the longest piece the encoder
// takes (bpe::kMaxPieceBytes, 16 MiB), which leaves room for JSON escapes,
// and far more than any model's context. A batch then holds at most about
// one block plus this; a plain-text stream with no piece boundary stops at
// about half of it.
inline constexpr std::size_t kJsonlMaxLine = 64u << 20;

// The field path: "text" or "meta.text" (keys split at every dot).
struct JsonlField {
  std::string dotted;
  std::vector<std::string> keys;
};
Result<JsonlField> parse_jsonl_field(std::string_view dotted);

enum class LineKind { kDocument, kBlank, kBad };

// The document of one line: kDocument with `text` set to the field's string;
// kBlank for an empty or all-whitespace line (not a document); kBad with
// `reason` for a line that is not JSON, lacks the field or holds something
// other than a string there. With a key given twice, the last one counts
// (as in Python's json module).
// `text` views `line`, or `scratch` when the string holds escapes.
LineKind read_document(std::string_view line, const JsonlField& field, std::string_view& text,
                       std::string& scratch, std::string& reason);
// The same, copying the text.
LineKind read_document(std::string_view line, const JsonlField& field, std::string& text,
                       std::string& reason);
// The scanner alone: true with the document's text (as above) for a line it
// accepts, false for one it leaves to the SAX reader.
bool scan_document(std::string_view line, const JsonlField& field, std::string_view& text,
                   std::string& scratch);
// The same read by nlohmann's SAX parser alone: the reference the scanner
// must agree with, and the path that words every refusal.
LineKind read_document_sax(std::string_view line, const JsonlField& field, std::string& text,
                           std::string& reason);

// The scanner's string step (jsonl_reader.cpp) in one instruction set, for
// the test that holds each to the definition: the offset of the first '"',
// '\\' or byte below 0x20 of s, or, with none there, an offset fewer than 8
// bytes before s's end (the scanner takes those a byte at a time); nullopt
// for a set this CPU or build lacks.
enum class StringStep { kWords, kSse2, kAvx2 };
std::optional<std::size_t> string_step(StringStep isa, std::string_view s);

// Lines [0, lines.size()) are lines first_line, first_line + 1, ... (1-based)
// of the input; each view excludes its '\n'.
struct JsonlBatch {
  std::vector<std::string_view> lines;
  std::uint64_t first_line = 1;
  std::uint64_t bytes = 0;  // input bytes the batch covers, newlines included
};

class JsonlReader {
 public:
  // Reads fd (not owned) in blocks of `block` bytes; `name` is for errors;
  // a line longer than max_line bytes is an error.
  JsonlReader(int fd, std::string name, std::size_t block = kJsonlBlock,
              std::size_t max_line = kJsonlMaxLine);
  // Reads bytes already in memory (a mapped file), which must outlive the
  // reader; batches are views of them, cut as the stream reader cuts.
  JsonlReader(std::string_view data, std::string name, std::size_t block = kJsonlBlock,
              std::size_t max_line = kJsonlMaxLine);
  // The next batch: whole lines, about one block; false at the end of input.
  // The batch's views are valid until the next call.
  Result<bool> next(JsonlBatch& batch);
  // Whether a batch's views stay valid after the next call (bytes in
  // memory), so the next batch can be cut while this one is in use.
  bool batches_outlive_next() const { return fd_ < 0; }
  const std::string& name() const { return name_; }

 private:
  Result<bool> next_in_memory(JsonlBatch& batch);
  // Cuts all (whole lines, the last one's '\n' optional) into batch.
  Status cut_lines(std::string_view all, JsonlBatch& batch);
  Error line_too_long(std::uint64_t line) const;
  int fd_ = -1;            // the stream, or -1 for bytes in memory
  std::string_view data_;  // the bytes in memory
  std::size_t pos_ = 0;    // of data_: the start of the next batch
  std::string name_;
  std::size_t block_;
  std::size_t max_line_;
  std::string buf_;         // (capacity) the first size_ bytes read, not yet handed out
  std::size_t size_ = 0;    // bytes of buf_ that hold input
  std::size_t used_ = 0;    // bytes of buf_ handed out by the last next()
  std::uint64_t line_ = 1;  // number of the next line to hand out
  bool eof_ = false;
};

// Opens a JSONL input ("-" is stdin): an fd the caller closes (0 for stdin
// is returned as is and must not be closed).
Result<int> open_jsonl(const std::string& path);
// The input open at fd mapped whole when it is a regular, non-empty file
// (path names it again for the mapping, which guards against the file
// shrinking: core/mapped_file.hpp); an empty MappedFile for a stream, or
// when it cannot be mapped, which is then read from fd instead.
MappedFile map_jsonl(int fd, const std::string& path);

}  // namespace tok::io
