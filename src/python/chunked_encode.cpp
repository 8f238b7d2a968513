#include "python/chunked_encode.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "python/batch.hpp"
#include "python/py_convert.hpp"
#include "python/py_error.hpp"

namespace tok::python {

namespace {

// About how much text one step reads: its UTF-8 and ids stay in L2.
constexpr std::size_t kStep = std::size_t{1} << 20;
// A cut is only taken this far before the end of what has been read, so
// that it never depends on bytes not read yet (a lookahead, a special
// token's rest), as io::StreamChunks keeps back.
constexpr std::size_t kMargin = std::size_t{1} << 12;
// Where the search for a cut starts, before the margin: the part carried
// over to the next step is short.
constexpr std::size_t kBack = std::size_t{1} << 14;

// The text from the first byte not yet encoded on, as much as has been
// read: in place (bytes, an ASCII str) or transcoded into a buffer that is
// reused from step to step.
class Window {
 public:
  explicit Window(const TextRef& ref) : ref_(ref) {}

  std::string_view text() const {
    return ref_.is_utf8() ? ref_.in_place().substr(pos_, end_ - pos_)
                          : std::string_view(buf_.get(), have_);
  }
  bool at_end() const {
    return ref_.is_utf8() ? end_ == ref_.in_place().size() : unit_ == ref_.units();
  }
  // Reads about kStep more bytes (code units); false at a lone surrogate.
  bool read_more() {
    if (ref_.is_utf8()) {
      end_ = std::min(ref_.in_place().size(), end_ + kStep);
      return true;
    }
    std::size_t n = std::min(ref_.units() - unit_, kStep);
    std::size_t room = have_ + n * ref_.max_utf8();
    if (room > capacity_) {
      std::size_t capacity = std::max(room, 2 * capacity_);
      std::unique_ptr<char[]> grown(new char[capacity]);  // uninitialised
      if (have_) std::memcpy(grown.get(), buf_.get(), have_);
      buf_ = std::move(grown);
      capacity_ = capacity;
    }
    std::optional<std::size_t> written = ref_.utf8_range(unit_, n, buf_.get() + have_);
    if (!written) return false;
    have_ += *written;
    unit_ += n;
    return true;
  }
  // Drops the first `bytes` bytes (encoded).
  void consume(std::size_t bytes) {
    if (ref_.is_utf8()) {
      pos_ += bytes;
      return;
    }
    std::memmove(buf_.get(), buf_.get() + bytes, have_ - bytes);
    have_ -= bytes;
  }

 private:
  const TextRef& ref_;
  std::size_t pos_ = 0, end_ = 0;  // in place: the window is [pos_, end_)
  std::unique_ptr<char[]> buf_;    // transcoded: the window is buf_[0, have_)
  std::size_t capacity_ = 0, have_ = 0;
  std::size_t unit_ = 0;  // the next code unit to transcode
};

// The last cut at or after `from` that does not depend on unread bytes, or
// 0 if there is none.
std::size_t cut_in(const bpe::Tokenizer& tk, std::string_view text, std::size_t from,
                   bpe::SpecialMode mode) {
  if (text.size() <= kMargin || from >= text.size() - kMargin) return 0;
  std::size_t p = tk.next_boundary(text, from, text.size() - from, mode);
  return p > 0 && p <= text.size() - kMargin ? p : 0;
}

}  // namespace

namespace {

// Where the parts' ids go: appended to `all` as they are encoded (no GIL
// needed), or handed to `list` part by part under the GIL.
struct PartSink {
  std::vector<bpe::TokenId>* all = nullptr;
  IdList* list = nullptr;
};

std::size_t longest_special(const bpe::Tokenizer& tk) {
  std::size_t n = 0;
  for (const auto& s : tk.specials()) n = std::max(n, s.text.size());
  return n;
}

// Is the text long enough to be read in parts, and can it be cut?
bool in_parts(const Engine& engine, const TextRef& ref) {
  const bpe::Tokenizer& tk = engine.tokenizer();
  return ref.cost() >= kChunkedText && tk.can_cut() && longest_special(tk) <= kMargin;
}

void encode_parts(const Engine& engine, py::handle text, const TextRef& ref,
                  const SpecialSet& allowed, const SpecialSet& refused,
                  const std::function<void(std::size_t)>& raise_special, const PartSink& sink) {
  const bpe::Tokenizer& tk = engine.tokenizer();
  std::size_t max_special = longest_special(tk);
  // Cuts never inside a special token that is split off.
  bpe::SpecialMode mode = allowed.none() ? bpe::SpecialMode::kText : bpe::SpecialMode::kAllow;

  Engine::Lease scratch(engine);
  Window window(ref);
  std::vector<bpe::TokenId> part;
  std::vector<bpe::TokenId>& ids = sink.all ? *sink.all : part;
  bool surrogate = false;
  std::optional<std::size_t> special;
  Status st;
  {
    py::gil_scoped_release release;
    // The caches sized once for the whole text, as `tok encode` sizes them.
    (*scratch).expect_bytes(ref.cost());
    if (sink.all) reserve_ids(ids, ref.cost());
  }
  while (true) {
    {
      py::gil_scoped_release release;
      // Read until a cut is found (one piece may run past a step) or the
      // text ends; a cut is searched for only among bytes not searched yet.
      std::size_t cut = 0, searched = 1;
      std::string_view w;
      while (cut == 0) {
        if (!window.read_more()) {
          surrogate = true;
          break;
        }
        w = window.text();
        if (window.at_end()) {
          cut = w.size();
          break;
        }
        std::size_t from = w.size() > kMargin + kBack ? w.size() - kMargin - kBack : 1;
        cut = cut_in(tk, w, std::max(from, searched), mode);
        if (cut == 0 && from > searched) cut = cut_in(tk, w, searched, mode);
        if (cut == 0) searched = std::max(searched, w.size() > kMargin ? w.size() - kMargin : 1);
      }
      if (!surrogate) {
        // A refused special starting before the cut lies whole in the
        // window (the margin is longer than any special).
        if (!refused.none() && max_special > 0) {
          special =
              engine.first_special(w.substr(0, std::min(w.size(), cut + max_special - 1)), refused);
        }
        if (!special) {
          if (!sink.all) ids.clear();
          st = engine.encode(w.substr(0, cut), allowed, ids, *scratch);
          if (st.ok()) window.consume(cut);
        }
      }
    }
    if (surrogate) TextRef::raise_unicode_error(text.ptr());
    if (special) raise_special(*special);
    if (!st.ok()) raise_error(st.error().message);
    if (sink.list) sink.list->append(ids);
    if (window.at_end() && window.text().empty()) return;
  }
}

}  // namespace

std::optional<py::list> encode_chunked(const Engine& engine, py::handle text,
                                       const SpecialSet& allowed, const SpecialSet& refused,
                                       const std::function<void(std::size_t)>& raise_special) {
  TextRef ref(text.ptr());
  if (!in_parts(engine, ref)) return std::nullopt;
  IdList list(ref.cost() / 3);
  encode_parts(engine, text, ref, allowed, refused, raise_special, {nullptr, &list});
  return list.finish();
}

std::optional<std::vector<bpe::TokenId>> encode_chunked_ids(
    const Engine& engine, py::handle text, const SpecialSet& allowed, const SpecialSet& refused,
    const std::function<void(std::size_t)>& raise_special) {
  TextRef ref(text.ptr());
  if (!in_parts(engine, ref)) return std::nullopt;
  std::vector<bpe::TokenId> ids;
  encode_parts(engine, text, ref, allowed, refused, raise_special, {&ids, nullptr});
  return ids;
}

}  // namespace tok::python
