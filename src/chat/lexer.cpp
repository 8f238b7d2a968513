#include "chat/lexer.hpp"

#include <algorithm>
#include <utility>

#include "chat/js_text.hpp"
#include "core/utf8.hpp"

namespace tok::chat {

namespace {

bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Is src[pos] at the start of a line in JavaScript's multiline sense?
bool line_start(std::string_view s, std::size_t pos) {
  if (pos == 0) return true;
  char c = s[pos - 1];
  if (c == '\n' || c == '\r') return true;
  // U+2028 / U+2029 (E2 80 A8 / A9) also end lines.
  return pos >= 3 && s.substr(pos - 3, 2) == "\xe2\x80" &&
         (s[pos - 1] == '\xa8' || s[pos - 1] == '\xa9');
}

// Appends in[from, from + n) with the lines it came from.
void append(Source& out, const Source& in, std::size_t from, std::size_t n) {
  out.text.append(in.text, from, n);
  out.line.insert(out.line.end(), in.line.begin() + static_cast<std::ptrdiff_t>(from),
                  in.line.begin() + static_cast<std::ptrdiff_t>(from + n));
}

// lstrip_blocks: /^[ \t]*({[#%-])/gm -> "$1".
Source lstrip_blocks(const Source& in) {
  const std::string& s = in.text;
  Source out;
  for (std::size_t p = 0; p < s.size();) {
    if (line_start(s, p)) {
      std::size_t q = p;
      while (q < s.size() && (s[q] == ' ' || s[q] == '\t')) ++q;
      if (q + 1 < s.size() && s[q] == '{' &&
          (s[q + 1] == '#' || s[q + 1] == '%' || s[q + 1] == '-'))
        p = q;
    }
    append(out, in, p++, 1);
  }
  return out;
}

// trim_blocks: /([#%-]})\n/g -> "$1".
Source trim_blocks(const Source& in) {
  const std::string& s = in.text;
  Source out;
  for (std::size_t p = 0; p < s.size(); ++p) {
    append(out, in, p, 1);
    if (p + 2 < s.size() && (s[p] == '#' || s[p] == '%' || s[p] == '-') && s[p + 1] == '}' &&
        s[p + 2] == '\n') {
      append(out, in, p + 1, 1);
      p += 2;
    }
  }
  return out;
}

std::size_t skip_space(std::string_view s, std::size_t p) {
  std::size_t n;
  while ((n = js_space_at(s, p)) > 0) p += n;
  return p;
}

// /(\s*){%(-?)\s*(?:end)?generation\s*(-?)%}(\s*)/g: the tag goes, and the
// whitespace around it unless the tag's own "-" asks to strip it.
Source drop_generation_tags(const Source& in) {
  std::string_view s = in.text;
  Source out;
  std::size_t p = 0;
  while (true) {
    std::size_t open = s.find("{%", p);
    if (open == std::string_view::npos) break;
    std::size_t q = open + 2;
    bool lstrip = q < s.size() && s[q] == '-';
    if (lstrip) ++q;
    q = skip_space(s, q);
    if (s.substr(q, 3) == "end") q += 3;
    bool tag = s.substr(q, 10) == "generation";
    bool rstrip = false;
    if (tag) {
      q = skip_space(s, q + 10);
      rstrip = q < s.size() && s[q] == '-';
      if (rstrip) ++q;
      tag = s.substr(q, 2) == "%}";
    }
    if (!tag) {
      append(out, in, p, open + 2 - p);
      p = open + 2;
      continue;
    }
    std::size_t before = open, n;
    while (before > p && (n = js_space_before(s, before)) > 0) before -= n;
    std::size_t after = skip_space(s, q + 2);
    append(out, in, p, before - p);
    if (!lstrip) append(out, in, before, open - before);
    if (!rstrip) append(out, in, q + 2, after - q - 2);
    p = after;
  }
  append(out, in, p, s.size() - p);
  return out;
}

struct Mapping {
  const char* seq;
  TokenType type;
};

// Order matters: "**" before "*", "//" before "/", "<=" before "<".
const Mapping kMappings[] = {
    {"{%", TokenType::kOpenStatement},  {"%}", TokenType::kCloseStatement},
    {"{{", TokenType::kOpenExpression}, {"}}", TokenType::kCloseExpression},
    {"(", TokenType::kOpenParen},       {")", TokenType::kCloseParen},
    {"{", TokenType::kOpenBrace},       {"}", TokenType::kCloseBrace},
    {"[", TokenType::kOpenBracket},     {"]", TokenType::kCloseBracket},
    {",", TokenType::kComma},           {".", TokenType::kDot},
    {":", TokenType::kColon},           {"|", TokenType::kPipe},
    {"<=", TokenType::kComparison},     {">=", TokenType::kComparison},
    {"==", TokenType::kComparison},     {"!=", TokenType::kComparison},
    {"<", TokenType::kComparison},      {">", TokenType::kComparison},
    {"+", TokenType::kAdditive},        {"-", TokenType::kAdditive},
    {"~", TokenType::kAdditive},        {"**", TokenType::kPower},
    {"*", TokenType::kMultiplicative},  {"//", TokenType::kMultiplicative},
    {"/", TokenType::kMultiplicative},  {"%", TokenType::kMultiplicative},
    {"=", TokenType::kEquals},
};

class Lexer {
 public:
  explicit Lexer(const Source& src) : src_(src), s_(src.text) {}

  Result<std::vector<Token>> run() {
    while (p_ < s_.size()) {
      if (!step()) return make_error("{} (line {})", err_, src_.line_of(err_pos_));
    }
    return std::move(tokens_);
  }

 private:
  bool fail(std::string msg, std::size_t at) {
    err_ = std::move(msg);
    err_pos_ = at;
    return false;
  }
  char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  void push(TokenType t, std::string v, std::size_t pos) {
    tokens_.push_back(Token{t, std::move(v), pos});
  }
  bool last_is(TokenType t) const { return !tokens_.empty() && tokens_.back().type == t; }

  void strip_trailing_space() {
    if (!last_is(TokenType::kText)) return;
    std::string& v = tokens_.back().value;
    v.resize(js_trim_end(v).size());
    if (v.empty()) tokens_.pop_back();
  }

  // consumeWhile with backslash escapes; the JavaScript lexer refuses a
  // token that runs to the end of the input.
  bool consume_while(bool (*pred)(char, char), char arg, std::string* out) {
    while (p_ < s_.size() && pred(s_[p_], arg)) {
      if (s_[p_] == '\\') {
        std::size_t start = p_++;
        if (p_ >= s_.size()) return fail("unexpected end of input after '\\'", start);
        char e = s_[p_++];
        if (e == 'x' || e == 'u') {
          std::size_t len = e == 'x' ? 2 : 4;
          std::string hex = s_.substr(p_, len);
          if (hex.size() != len ||
              hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
            return fail("invalid escape sequence \\" + std::string(1, e) + hex, start);
          }
          unsigned cp = static_cast<unsigned>(std::stoul(hex, nullptr, 16));
          // A JavaScript string may hold a lone surrogate; UTF-8 cannot, so
          // \ud800 becomes U+FFFD (utf8::append's rule for non-scalars).
          utf8::append(*out, cp);
          p_ += len;
          continue;
        }
        static const std::pair<char, char> kEscapes[] = {{'n', '\n'},  {'t', '\t'}, {'r', '\r'},
                                                         {'b', '\b'},  {'f', '\f'}, {'v', '\v'},
                                                         {'\'', '\''}, {'"', '"'},  {'\\', '\\'}};
        bool found = false;
        for (auto [k, v] : kEscapes) {
          if (k == e) {
            *out += v;
            found = true;
          }
        }
        if (!found) return fail("unknown escape \\" + std::string(1, e), start);
        continue;
      }
      *out += s_[p_++];
      if (p_ >= s_.size()) return fail("unexpected end of input inside a tag", p_ - 1);
    }
    return true;
  }

  bool step();
  bool comment();
  bool sign(char c);

  const Source& src_;
  const std::string& s_;
  std::size_t p_ = 0;
  int brace_depth_ = 0;
  std::vector<Token> tokens_;
  std::string err_;
  std::size_t err_pos_ = 0;
};

bool Lexer::comment() {
  std::size_t start = p_;
  p_ += 2;
  bool strip_before = at(p_) == '-';
  if (strip_before) ++p_;
  std::string text;
  while (at(p_) != '#' || at(p_ + 1) != '}') {
    if (p_ + 2 >= s_.size()) return fail("comment {# is never closed", start);
    text += s_[p_++];
  }
  bool strip_after = !text.empty() && text.back() == '-';
  if (strip_after) text.pop_back();
  if (strip_before) strip_trailing_space();
  push(TokenType::kComment, text, start);
  p_ += 2;
  if (strip_after) p_ = skip_space(s_, p_);
  return true;
}

// A '-' or '+' after an operator starts a signed number or a unary sign.
bool Lexer::sign(char c) {
  std::size_t start = p_++;
  std::string num;
  if (!consume_while([](char x, char) { return is_digit(x); }, 0, &num)) return false;
  if (!num.empty() && at(p_) == '.' && is_digit(at(p_ + 1))) {
    ++p_;
    std::string frac;
    if (!consume_while([](char x, char) { return is_digit(x); }, 0, &frac)) return false;
    num += "." + frac;
  }
  push(num.empty() ? TokenType::kUnary : TokenType::kNumber, std::string(1, c) + num, start);
  return true;
}

bool Lexer::step() {
  if (tokens_.empty() || last_is(TokenType::kCloseStatement) ||
      last_is(TokenType::kCloseExpression) || last_is(TokenType::kComment)) {
    std::size_t start = p_;
    while (p_ < s_.size() &&
           !(s_[p_] == '{' && (at(p_ + 1) == '%' || at(p_ + 1) == '{' || at(p_ + 1) == '#')))
      ++p_;
    if (p_ > start) {
      push(TokenType::kText, s_.substr(start, p_ - start), start);
      return true;
    }
  }
  if (at(p_) == '{' && at(p_ + 1) == '#') return comment();
  if (s_.compare(p_, 3, "{%-") == 0 || s_.compare(p_, 3, "{{-") == 0) {
    strip_trailing_space();
    bool stmt = s_[p_ + 1] == '%';
    push(stmt ? TokenType::kOpenStatement : TokenType::kOpenExpression, stmt ? "{%" : "{{", p_);
    if (!stmt) brace_depth_ = 0;
    p_ += 3;
    return true;
  }
  p_ = skip_space(s_, p_);
  if (p_ >= s_.size()) return true;
  if (s_.compare(p_, 3, "-%}") == 0 || s_.compare(p_, 3, "-}}") == 0) {
    bool stmt = s_[p_ + 1] == '%';
    push(stmt ? TokenType::kCloseStatement : TokenType::kCloseExpression, stmt ? "%}" : "}}", p_);
    p_ = skip_space(s_, p_ + 3);
    return true;
  }
  char c = s_[p_];
  if (c == '-' || c == '+') {
    if (tokens_.empty() || last_is(TokenType::kText))
      return fail(std::string("unexpected character '") + c + "'", p_);
    TokenType t = tokens_.back().type;
    if (t != TokenType::kIdentifier && t != TokenType::kNumber && t != TokenType::kString &&
        t != TokenType::kCloseParen && t != TokenType::kCloseBracket) {
      return sign(c);
    }
  }
  for (const auto& m : kMappings) {
    if (m.type == TokenType::kCloseExpression && brace_depth_ > 0) continue;
    std::size_t n = std::char_traits<char>::length(m.seq);
    if (s_.compare(p_, n, m.seq) != 0) continue;
    push(m.type, m.seq, p_);
    if (m.type == TokenType::kOpenExpression) brace_depth_ = 0;
    if (m.type == TokenType::kOpenBrace) ++brace_depth_;
    if (m.type == TokenType::kCloseBrace) --brace_depth_;
    p_ += n;
    return true;
  }
  if (c == '\'' || c == '"') {
    std::size_t start = p_++;
    std::string str;
    if (!consume_while([](char x, char q) { return x != q; }, c, &str)) return false;
    if (p_ >= s_.size()) return fail("string literal is never closed", start);
    push(TokenType::kString, std::move(str), start);
    ++p_;
    return true;
  }
  if (is_digit(c)) {
    std::size_t start = p_;
    std::string num;
    if (!consume_while([](char x, char) { return is_digit(x); }, 0, &num)) return false;
    if (!last_is(TokenType::kDot) && at(p_) == '.' && is_digit(at(p_ + 1))) {
      ++p_;
      std::string frac;
      if (!consume_while([](char x, char) { return is_digit(x); }, 0, &frac)) return false;
      num += "." + frac;
    }
    push(TokenType::kNumber, std::move(num), start);
    return true;
  }
  if (is_word(c)) {
    std::size_t start = p_;
    std::string word;
    if (!consume_while([](char x, char) { return is_word(x); }, 0, &word)) return false;
    push(TokenType::kIdentifier, std::move(word), start);
    return true;
  }
  std::string shown = static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f
                          ? fmt::format("\\x{:02x}", static_cast<unsigned char>(c))
                          : std::string(1, c);
  return fail("unexpected character '" + shown + "' inside a tag", p_);
}

}  // namespace

Source preprocess_template(std::string_view source) {
  Source in;
  in.text = source;
  if (!in.text.empty() && in.text.back() == '\n') in.text.pop_back();
  std::uint32_t line = 1;
  in.line.reserve(in.text.size());
  for (char c : in.text) {
    in.line.push_back(line);
    line += c == '\n';
  }
  Source out = drop_generation_tags(trim_blocks(lstrip_blocks(in)));
  out.line.push_back(line);  // the end of the template
  return out;
}

Result<std::vector<Token>> tokenize(const Source& src) { return Lexer(src).run(); }

std::size_t Source::line_of(std::size_t pos) const {
  return line.empty() ? 1 : line[std::min(pos, line.size() - 1)];
}

}  // namespace tok::chat
