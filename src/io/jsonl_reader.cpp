#include "io/jsonl_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/cpu_features.hpp"
#include "core/utf8.hpp"
#include "formats/json_error.hpp"
#include "text/pretokenizer.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TOK_JSONL_X86 1
#endif

namespace tok::io {
namespace {

// Where a JSON string's plain run ends: the offset in [p, p + n) of the
// first '"', '\\' or control byte (< 0x20), or, with none there, an offset
// fewer than 8 bytes before n (the caller takes those a byte at a time).
// Every string of every line goes through here, and a document's text is
// most of its line: 32 bytes a step (AVX2), else 16 (SSE2, in the x86-64
// base), else a word. In `perf record` of a one-thread `tok encode --jsonl`
// on scripts/bench/jsonl's corpus the scanner's own code went from about 6%
// of the samples (words) to 5%: the first pass over a line's bytes waits on
// memory more than it computes.
std::size_t plain_run_words(const unsigned char* p, std::size_t n) {
  constexpr std::uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t v;
    std::memcpy(&v, p + i, 8);
    const std::uint64_t quote = v ^ (kOnes * '"'), slash = v ^ (kOnes * '\\');
    std::uint64_t hits =
        ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) | ((v - kOnes * 0x20) & ~v);
    hits &= kHigh;
    // The lowest flagged byte is a true hit (a borrow only runs upward).
    if (hits) return i + static_cast<std::size_t>(std::countr_zero(hits) / 8);
  }
  return i;
}

#if defined(TOK_JSONL_X86)
std::size_t plain_run_sse2(const unsigned char* p, std::size_t n) {
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
  const __m128i ctl = _mm_set1_epi8(0x1f);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                     _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));  // v <= 0x1f
    if (const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(hit))) {
      return i + static_cast<std::size_t>(std::countr_zero(m));
    }
  }
  return i + plain_run_words(p + i, n - i);
}

__attribute__((target("avx2"))) std::size_t plain_run_avx2(const unsigned char* p, std::size_t n) {
  const __m256i quote = _mm256_set1_epi8('"'), slash = _mm256_set1_epi8('\\');
  const __m256i ctl = _mm256_set1_epi8(0x1f);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i hit =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, slash)),
                        _mm256_cmpeq_epi8(_mm256_min_epu8(v, ctl), v));
    if (const auto m = static_cast<std::uint32_t>(_mm256_movemask_epi8(hit))) {
      return i + static_cast<std::size_t>(std::countr_zero(m));
    }
  }
  return i + plain_run_sse2(p + i, n - i);
}
#endif

using PlainRun = std::size_t (*)(const unsigned char*, std::size_t);
PlainRun choose_plain_run() {
#if defined(TOK_JSONL_X86)
  return cpu_features().avx2 ? plain_run_avx2 : plain_run_sse2;
#else
  return plain_run_words;
#endif
}
const PlainRun plain_run = choose_plain_run();

using json = nlohmann::json;

// Follows the field path through a line's SAX events. Each open container
// records how many path keys lead to it (-1: off the path); `pending_` is
// the match depth of the value the next event starts.
class FieldFinder : public nlohmann::json_sax<json> {
 public:
  FieldFinder(const JsonlField& f, std::string& text) : f_(f), text_(text) {}

  bool null() override { return value("null"); }
  bool boolean(bool) override { return value("a boolean"); }
  bool number_integer(number_integer_t) override { return value("a number"); }
  bool number_unsigned(number_unsigned_t) override { return value("a number"); }
  bool number_float(number_float_t, const string_t&) override { return value("a number"); }
  bool binary(binary_t&) override { return value("binary"); }
  bool string(string_t& s) override {
    if (stack_.empty()) root_scalar_ = true;
    if (pending_ == target()) {
      text_ = std::move(s);
      found_ = nullptr;
      have_ = true;
    }
    pending_ = -1;
    return true;
  }
  bool start_object(std::size_t) override {
    return open(pending_ == target() ? "an object" : nullptr, true);
  }
  bool key(string_t& k) override {
    int m = stack_.back();
    pending_ = m >= 0 && k == f_.keys[static_cast<std::size_t>(m)] ? m + 1 : -1;
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    if (stack_.empty()) root_array_ = true;
    return open(pending_ == target() ? "an array" : nullptr, false);
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t pos, const std::string&,
                   const nlohmann::detail::exception& e) override {
    syntax_ = fmt::format("not JSON (byte {}: {})", pos, formats::json_exception_text(e.what()));
    return false;
  }

  // After parsing: the reason the line holds no document, or "".
  std::string reason(bool parsed) const {
    if (!syntax_.empty()) return syntax_;
    if (too_deep_) return fmt::format("nested deeper than {} levels", kJsonlMaxDepth);
    if (!parsed) return "not JSON";
    if (root_array_ || root_scalar_) return "not a JSON object";
    if (found_) return fmt::format("field '{}' holds {}, not a string", f_.dotted, found_);
    if (!have_) return fmt::format("no field '{}'", f_.dotted);
    return "";
  }

 private:
  int target() const { return static_cast<int>(f_.keys.size()); }
  bool value(const char* kind) {
    if (stack_.empty()) root_scalar_ = true;
    if (pending_ == target()) {
      found_ = kind;
      have_ = false;
    }
    pending_ = -1;
    return true;
  }
  // A container opens: an object on the path keeps its match depth (keys
  // inside it may continue the path); anything else is off the path.
  bool open(const char* kind_if_target, bool object) {
    if (kind_if_target) {
      found_ = kind_if_target;
      have_ = false;
    }
    if (stack_.size() >= kJsonlMaxDepth) {
      too_deep_ = true;
      return false;
    }
    stack_.push_back(object && pending_ >= 0 && pending_ < target() ? pending_ : -1);
    pending_ = -1;
    return true;
  }

  const JsonlField& f_;
  std::string& text_;
  std::vector<int> stack_;
  int pending_ = 0;              // the root value is at match depth 0
  const char* found_ = nullptr;  // the target's kind when it is not a string
  bool have_ = false;
  bool too_deep_ = false, root_array_ = false, root_scalar_ = false;
  std::string syntax_;
};

int hex_digit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The scanner of read_document's fast path: one pass over a line that
// accepts only strict JSON (RFC 8259, as nlohmann reads it: valid UTF-8 as
// core/utf8.hpp defines it, \u escapes in valid surrogate pairs, no raw
// control bytes in strings) and follows the field path as FieldFinder does, the last
// occurrence of the path deciding. It answers "the line's document" or
// "not sure": an error, and the rare valid forms it leaves to nlohmann
// (escaped keys, numbers that might overflow a double, a UTF-8 byte order
// mark, nesting past kJsonlMaxDepth), all go to the SAX reader.
// Measured on scripts/bench/jsonl's corpus: the SAX reader took about a
// fifth of `tok encode --jsonl`'s time, copying every string it met; this
// scanner copies nothing but an escaped target string, which it decodes as
// it checks it (a second pass, finding each backslash again, was about 2%).
class FieldScanner {
 public:
  // scratch receives the target string's text when it holds escapes.
  FieldScanner(std::string_view line, const JsonlField& f, std::string& scratch)
      : p_(reinterpret_cast<const unsigned char*>(line.data())),
        end_(p_ + line.size()),
        f_(f),
        scratch_(scratch) {}

  // The target string's text (a view of the line, or of scratch when it
  // holds escapes), or false.
  bool scan(std::string_view& text) {
    // The whole line's UTF-8 at once (vector code): outside strings any
    // byte past ASCII is a syntax error anyway, so this checks exactly the
    // strings, which the scan below then takes as they are.
    const std::size_t size = static_cast<std::size_t>(end_ - p_);
    if (text::valid_utf8_prefix({reinterpret_cast<const char*>(p_), size}) != size) return false;
    skip_space();
    if (p_ == end_ || *p_ != '{') return false;  // not an object, or a byte order mark
    if (!object(0, 0)) return false;
    skip_space();
    if (p_ != end_ || !have_) return false;
    text = target_escaped_ ? std::string_view(scratch_) : target_;
    return true;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }
  int target() const { return static_cast<int>(f_.keys.size()); }

  // A value at match depth `pending` (-1: off the path), nested `depth` deep.
  bool value(int pending, std::size_t depth) {
    if (p_ == end_) return false;
    const bool at_target = pending == target();
    switch (*p_) {
      case '"': {
        ++p_;
        const unsigned char* begin = p_;
        bool escaped = false;
        if (!string(escaped, at_target ? &scratch_ : nullptr)) return false;
        if (at_target) {
          target_ = {reinterpret_cast<const char*>(begin),
                     static_cast<std::size_t>(p_ - 1 - begin)};
          target_escaped_ = escaped;
          have_ = true;
        }
        return true;
      }
      case '{':
        if (at_target) have_ = false;
        return object(pending >= 0 && pending < target() ? pending : -1, depth);
      case '[':
        if (at_target) have_ = false;
        return array(depth);
      case 't':
        if (at_target) have_ = false;
        return literal("true");
      case 'f':
        if (at_target) have_ = false;
        return literal("false");
      case 'n':
        if (at_target) have_ = false;
        return literal("null");
      default:
        if (at_target) have_ = false;
        return number();
    }
  }

  // At '{': keys at match depth m lead to depth m + 1 when they name keys[m].
  bool object(int m, std::size_t depth) {
    if (depth >= kJsonlMaxDepth) return false;
    ++p_;
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    for (;;) {
      if (p_ == end_ || *p_ != '"') return false;
      ++p_;
      const unsigned char* begin = p_;
      bool escaped = false;
      if (!string(escaped, nullptr) || escaped) return false;  // escaped keys: left to nlohmann
      std::string_view key(reinterpret_cast<const char*>(begin),
                           static_cast<std::size_t>(p_ - 1 - begin));
      int pending = m >= 0 && key == f_.keys[static_cast<std::size_t>(m)] ? m + 1 : -1;
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skip_space();
      if (!value(pending, depth + 1)) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      skip_space();
    }
  }

  bool array(std::size_t depth) {
    if (depth >= kJsonlMaxDepth) return false;
    ++p_;
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      if (!value(-1, depth + 1)) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
      skip_space();
    }
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, and finite as a double
  // for sure: nlohmann refuses one that overflows ("number overflow"), so
  // a long one, or one with a three-digit exponent, is left to it.
  bool number() {
    const unsigned char* begin = p_;
    auto digits = [this] {
      const unsigned char* d = p_;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      return static_cast<std::size_t>(p_ - d);
    };
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ == end_) return false;
    if (*p_ == '0') {
      ++p_;
    } else if (digits() == 0) {
      return false;
    }
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (digits() == 0) return false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      std::size_t n = digits();
      if (n == 0 || n > 2) return false;
    }
    return p_ - begin <= 200;  // under 10^201 * 10^99: finite
  }

  // After the opening quote: to after the closing one. Vectors of bytes
  // at a time while none is a quote, a backslash or a control byte (the
  // line's UTF-8 is already checked), then byte by byte. With `out`, a
  // string that holds escapes is decoded into it.
  bool string(bool& escaped, std::string* out) {
    const unsigned char* run = p_;  // the bytes not yet copied to out start here
    if (out) out->clear();
    for (;;) {
      p_ += plain_run(p_, static_cast<std::size_t>(end_ - p_));
      if (p_ == end_) return false;
      const unsigned char c = *p_;
      if (c == '"') {
        if (out && escaped) append(*out, run);
        ++p_;
        return true;
      }
      if (c == '\\') {
        if (out) append(*out, run);
        escaped = true;
        if (!escape(out)) return false;
        run = p_;
      } else if (c < 0x20) {
        return false;
      } else {
        ++p_;
      }
    }
  }

  void append(std::string& out, const unsigned char* from) const {
    out.append(reinterpret_cast<const char*>(from), static_cast<std::size_t>(p_ - from));
  }

  // At '\\': one escape, decoded into out if given; \u escapes of UTF-16
  // surrogates only as a pair.
  bool escape(std::string* out) {
    if (end_ - p_ < 2) return false;
    const unsigned char c = p_[1];
    if (c != 'u') {
      char d;
      switch (c) {
        case '"':
        case '\\':
        case '/': d = static_cast<char>(c); break;
        case 'b': d = '\b'; break;
        case 'f': d = '\f'; break;
        case 'n': d = '\n'; break;
        case 'r': d = '\r'; break;
        case 't': d = '\t'; break;
        default: return false;
      }
      p_ += 2;
      if (out) out->push_back(d);
      return true;
    }
    int u = hex4(p_ + 2);
    if (u < 0) return false;
    p_ += 6;
    if (u >= 0xDC00 && u <= 0xDFFF) return false;
    auto cp = static_cast<std::uint32_t>(u);
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (end_ - p_ < 6 || p_[0] != '\\' || p_[1] != 'u') return false;
      int low = hex4(p_ + 2);
      if (low < 0xDC00 || low > 0xDFFF) return false;
      p_ += 6;
      cp = 0x10000 + ((cp - 0xD800) << 10) + static_cast<std::uint32_t>(low - 0xDC00);
    }
    if (out) utf8::append(*out, cp);  // never a surrogate: they come in pairs
    return true;
  }
  int hex4(const unsigned char* h) const {
    if (end_ - h < 4) return -1;
    int u = 0;
    for (int i = 0; i < 4; ++i) {
      int d = hex_digit(h[i]);
      if (d < 0) return -1;
      u = u * 16 + d;
    }
    return u;
  }

  const unsigned char* p_;
  const unsigned char* end_;
  const JsonlField& f_;
  std::string& scratch_;
  std::string_view target_;      // the last string at the path, raw
  bool target_escaped_ = false;  // then its text is in scratch_
  bool have_ = false;            // the last value at the path is a string
};

}  // namespace

std::optional<std::size_t> string_step(StringStep isa, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  switch (isa) {
    case StringStep::kWords: return plain_run_words(p, s.size());
#if defined(TOK_JSONL_X86)
    case StringStep::kSse2: return plain_run_sse2(p, s.size());
    case StringStep::kAvx2:
      if (cpu_features().avx2) return plain_run_avx2(p, s.size());
      break;
#endif
    default: break;
  }
  return std::nullopt;
}

Result<JsonlField> parse_jsonl_field(std::string_view dotted) {
  JsonlField f;
  f.dotted = std::string(dotted);
  std::size_t pos = 0;
  for (;;) {
    std::size_t dot = dotted.find('.', pos);
    std::string_view key =
        dotted.substr(pos, dot == std::string_view::npos ? dotted.npos : dot - pos);
    if (key.empty()) {
      return make_error(
          "--jsonl '{}': empty key in the field path (write it as 'text' or 'meta.text')", dotted);
    }
    f.keys.emplace_back(key);
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return f;
}

bool scan_document(std::string_view line, const JsonlField& field, std::string_view& text,
                   std::string& scratch) {
  return FieldScanner(line, field, scratch).scan(text);
}

LineKind read_document(std::string_view line, const JsonlField& field, std::string_view& text,
                       std::string& scratch, std::string& reason) {
  if (scan_document(line, field, text, scratch)) return LineKind::kDocument;
  LineKind kind = read_document_sax(line, field, scratch, reason);
  text = scratch;
  return kind;
}

LineKind read_document(std::string_view line, const JsonlField& field, std::string& text,
                       std::string& reason) {
  std::string_view view;
  LineKind kind = read_document(line, field, view, text, reason);
  if (kind == LineKind::kDocument && view.data() != text.data()) text = view;
  return kind;
}

LineKind read_document_sax(std::string_view line, const JsonlField& field, std::string& text,
                           std::string& reason) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return LineKind::kBlank;
  // nlohmann's lexer reads a NUL byte as the end of its input, so the bytes
  // after one would be dropped silently. JSON has no raw NUL anywhere (in a
  // string it must be written \u0000): the line is not JSON.
  if (std::size_t nul = line.find('\0'); nul != std::string_view::npos) {
    reason = fmt::format("not JSON (byte {}: a NUL byte)", nul + 1);
    return LineKind::kBad;
  }
  FieldFinder finder(field, text);
  bool parsed = json::sax_parse(line.begin(), line.end(), &finder,
                                nlohmann::detail::input_format_t::json, true);
  reason = finder.reason(parsed);
  return reason.empty() ? LineKind::kDocument : LineKind::kBad;
}

JsonlReader::JsonlReader(int fd, std::string name, std::size_t block, std::size_t max_line)
    : fd_(fd), name_(std::move(name)), block_(block), max_line_(max_line) {}

JsonlReader::JsonlReader(std::string_view data, std::string name, std::size_t block,
                         std::size_t max_line)
    : data_(data), name_(std::move(name)), block_(block), max_line_(max_line) {}

Result<bool> JsonlReader::next(JsonlBatch& batch) {
  batch.lines.clear();
  batch.bytes = 0;
  if (fd_ < 0) return next_in_memory(batch);
  std::memmove(buf_.data(), buf_.data() + used_, size_ - used_);
  size_ -= used_;
  used_ = 0;
  // Read until the buffer holds a newline past one block, or the input ends.
  std::size_t last_nl = std::string_view(buf_.data(), size_).rfind('\n');
  while (!eof_ && (size_ < block_ || last_nl == std::string::npos)) {
    const std::size_t old = size_;
    // Grown (and zero-filled) only when too small, not before every read.
    if (buf_.size() < old + block_) buf_.resize(old + block_);
    ssize_t n;
    do {
      n = ::read(fd_, buf_.data() + old, block_);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return make_error("{}: cannot read: {}", name_, std::strerror(errno));
    size_ = old + static_cast<std::size_t>(n);
    if (n == 0) eof_ = true;
    // Only the new bytes are searched: a long line costs one pass, not one per block.
    std::size_t nl = std::string_view(buf_.data() + old, size_ - old).rfind('\n');
    if (nl != std::string_view::npos) last_nl = old + nl;
    // With no newline in the buffer, all of it is one line (line_): past the
    // limit it is refused instead of growing without bound (/dev/zero).
    if (last_nl == std::string::npos && size_ > max_line_) return line_too_long(line_);
  }
  std::size_t end = eof_ ? size_ : last_nl + 1;
  if (end == 0) return false;
  TOK_TRY(cut_lines({buf_.data(), end}, batch));
  used_ = end;
  return true;
}

// The batches the stream reader would give: the whole lines of the next
// block, or the one line that is longer than a block. So a line that is too
// long is refused only after the lines before it were handed out, as from a
// stream, and a file with no newline is refused after max_line_ bytes
// instead of searched to its end.
Result<bool> JsonlReader::next_in_memory(JsonlBatch& batch) {
  const std::size_t left = data_.size() - pos_;
  if (left == 0) return false;
  std::string_view rest = data_.substr(pos_);
  std::size_t end = rest.size();
  if (left > block_) {
    std::size_t nl = rest.substr(0, block_).rfind('\n');
    if (nl == std::string_view::npos) {
      nl = rest.substr(0, max_line_ + 1).find('\n', block_);
      if (nl == std::string_view::npos && left > max_line_) return line_too_long(line_);
    }
    if (nl != std::string_view::npos) end = nl + 1;
  }
  TOK_TRY(cut_lines(rest.substr(0, end), batch));
  pos_ += end;
  return true;
}

Status JsonlReader::cut_lines(std::string_view all, JsonlBatch& batch) {
  std::size_t pos = 0;
  while (pos < all.size()) {
    std::size_t nl = all.find('\n', pos);
    if (nl == std::string_view::npos) nl = all.size();
    // A long line read whole in one block is held to the same limit.
    if (nl - pos > max_line_) return line_too_long(line_ + batch.lines.size());
    batch.lines.push_back(all.substr(pos, nl - pos));
    pos = nl + 1;
  }
  batch.first_line = line_;
  batch.bytes = all.size();
  line_ += batch.lines.size();
  return {};
}

Error JsonlReader::line_too_long(std::uint64_t line) const {
  return make_error("{}:{}: a line longer than {} MiB (the longest JSONL line tok reads)", name_,
                    line, max_line_ >> 20);
}

Result<int> open_jsonl(const std::string& path) {
  if (path == "-" || path.empty()) return 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("{}: cannot open: {}", path, std::strerror(errno));
  return fd;
}

MappedFile map_jsonl(int fd, const std::string& path) {
  struct stat st {};
  if (path == "-" || path.empty() || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size <= 0) {
    return {};
  }
  Result<MappedFile> m = MappedFile::open(path);
  if (!m.ok()) return {};
  return std::move(m).value();
}

}  // namespace tok::io
