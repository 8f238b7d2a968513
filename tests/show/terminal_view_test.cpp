#include <doctest/doctest.h>

#include <regex>
#include <sstream>

#include "show/terminal_view.hpp"
#include "show/visible_text.hpp"

using namespace tok::show;

namespace {

// A tokenization of `text` cut at the given lengths (ids count up from 0).
Tokenization cut(std::string name, std::string text, std::vector<std::size_t> lengths) {
  Tokenization t{std::move(name), std::move(text), {}};
  std::size_t off = 0;
  for (std::size_t len : lengths) {
    t.spans.push_back({static_cast<tok::bpe::TokenId>(t.spans.size()), off, len, false});
    off += len;
  }
  REQUIRE(off == t.text.size());
  return t;
}

std::string strip_escapes(const std::string& s) {
  return std::regex_replace(s, std::regex("\x1b\\[[0-9;]*m"), "");
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("single stream without colour separates tokens") {
  auto t = cut("A", "hello world\nab", {5, 6, 1, 2});
  TerminalOptions o;
  CHECK(render_tokens(t, 4, o) == "hello│·world│↵\nab\n");
  CHECK(render_tokens(t, 2, o) == "hello│·world\n");
  o.ids = true;
  CHECK(render_tokens(t, 2, o) == "hello₀│·world₁\n");
}

TEST_CASE("two tokenizations align on the text") {
  auto a = cut("A", "hello world\nab", {5, 6, 1, 2});
  auto b = cut("B", "hello world\nab", {2, 3, 4, 2, 1, 1, 1});
  TerminalOptions o;
  CHECK(render_aligned(a, b, 14, o) ==
        "A hello │·world │↵\n"
        "B he│llo│·wor│ld│↵\n"
        "\n"
        "A ab \n"
        "B a│b\n");
  // Stopping early (at a common boundary) draws only that much.
  CHECK(render_aligned(a, b, 5, o) == "A hello \nB he│llo\n");
}

TEST_CASE("aligned rows have equal widths with colour, ids and split characters") {
  // "你" is e4 bd a0: B cuts it after one byte, so B draws ⟨e4⟩⟨bd a0⟩.
  std::string text = "x\xe4\xbd\xa0y z";
  auto a = cut("long_name", text, {1, 3, 1, 2});
  auto b = cut("b", text, {2, 2, 3});
  for (auto palette : {Palette::kNone, Palette::kBasic, Palette::k256}) {
    for (bool ids : {false, true}) {
      TerminalOptions o{palette, ids, 0};
      auto rows = lines_of(strip_escapes(render_aligned(a, b, text.size(), o)));
      REQUIRE(rows.size() == 2);
      CHECK(display_width(rows[0]) == display_width(rows[1]));
    }
  }
}

TEST_CASE("aligned rows wrap at sync points") {
  auto a = cut("A", "aaaa bbbb cccc", {4, 5, 5});
  auto b = cut("B", "aaaa bbbb cccc", {2, 2, 5, 5});
  TerminalOptions o{Palette::kNone, false, 14};
  CHECK(render_aligned(a, b, 14, o) ==
        "A aaaa │·bbbb\n"
        "B aa│aa│·bbbb\n"
        "\n"
        "A ·cccc\n"
        "B ·cccc\n");
}

TEST_CASE("colour escapes only with a palette") {
  auto t = cut("A", "ab", {1, 1});
  CHECK(render_tokens(t, 2, {Palette::kNone, false, 0}).find('\x1b') == std::string::npos);
  CHECK(render_tokens(t, 2, {Palette::kBasic, false, 0}).find("\x1b[30;43m") != std::string::npos);
  CHECK(render_tokens(t, 2, {Palette::k256, false, 0}).find("48;5;") != std::string::npos);
}

TEST_CASE("palette choice: --color, NO_COLOR, tty, TERM") {
  CHECK(choose_palette("never", true, "xterm-256color", nullptr, nullptr) == Palette::kNone);
  CHECK(choose_palette("auto", true, "xterm-256color", nullptr, nullptr) == Palette::k256);
  CHECK(choose_palette("auto", true, "xterm", nullptr, nullptr) == Palette::kBasic);
  CHECK(choose_palette("auto", true, "xterm", "truecolor", nullptr) == Palette::k256);
  CHECK(choose_palette("auto", false, "xterm-256color", nullptr, nullptr) == Palette::kNone);
  CHECK(choose_palette("auto", true, "xterm-256color", nullptr, "1") == Palette::kNone);
  CHECK(choose_palette("auto", true, "xterm-256color", nullptr, "") == Palette::k256);
  CHECK(choose_palette("auto", true, "dumb", nullptr, nullptr) == Palette::kNone);
  CHECK(choose_palette("always", false, "xterm-256color", nullptr, "1") == Palette::k256);
  CHECK(choose_palette("always", false, nullptr, nullptr, nullptr) == Palette::kBasic);
}
