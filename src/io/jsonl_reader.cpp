#include "io/jsonl_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "formats/json_error.hpp"

namespace tok::io {
namespace {

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

}  // namespace

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

LineKind read_document(std::string_view line, const JsonlField& field, std::string& text,
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

Result<bool> JsonlReader::next(JsonlBatch& batch) {
  batch.lines.clear();
  batch.bytes = 0;
  buf_.erase(0, used_);
  used_ = 0;
  // Read until the buffer holds a newline past one block, or the input ends.
  std::size_t last_nl = buf_.rfind('\n');
  while (!eof_ && (buf_.size() < block_ || last_nl == std::string::npos)) {
    std::size_t old = buf_.size();
    buf_.resize(old + block_);
    ssize_t n;
    do {
      n = ::read(fd_, buf_.data() + old, block_);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      buf_.resize(old);
      return make_error("{}: cannot read: {}", name_, std::strerror(errno));
    }
    buf_.resize(old + static_cast<std::size_t>(n));
    if (n == 0) eof_ = true;
    // Only the new bytes are searched: a long line costs one pass, not one per block.
    std::size_t nl = std::string_view(buf_).substr(old).rfind('\n');
    if (nl != std::string_view::npos) last_nl = old + nl;
    // With no newline in the buffer, all of it is one line (line_): past the
    // limit it is refused instead of growing without bound (/dev/zero).
    if (last_nl == std::string::npos && buf_.size() > max_line_) return line_too_long(line_);
  }
  std::size_t end = eof_ ? buf_.size() : last_nl + 1;
  if (end == 0) return false;
  std::string_view all(buf_.data(), end);
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
  batch.bytes = end;
  line_ += batch.lines.size();
  used_ = end;
  return true;
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

}  // namespace tok::io
