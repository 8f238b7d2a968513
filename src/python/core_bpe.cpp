// CoreBPE: the native half of tok.tiktoken.Encoding, shaped like tiktoken's
// own Rust CoreBPE so the Python layer (python/tok/tiktoken/core.py) keeps
// tiktoken's argument handling and error messages. The encode calls read a
// str as the batch calls do (with_utf8: a long one is transcoded without the
// GIL); the others convert theirs under the GIL. All release it for the
// encoding itself.
#include "python/core_bpe.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>

#include "formats/registry.hpp"
#include "formats/tiktoken_file.hpp"
#include "python/batch.hpp"
#include "python/bindings.hpp"
#include "python/chunked_encode.hpp"
#include "python/py_convert.hpp"
#include "python/py_error.hpp"
#include "text/pretokenizer.hpp"

namespace tok::python {

using bpe::TokenId;
using OptNames = std::optional<std::vector<std::string>>;

namespace {

std::vector<bpe::SpecialToken> specials_of(const py::dict& special_tokens) {
  std::vector<bpe::SpecialToken> out;
  for (auto [k, v] : special_tokens) {
    out.push_back({std::string(utf8_view(k)), v.cast<TokenId>()});
  }
  return out;
}

// tiktoken's message for a disallowed special token, word for word.
[[noreturn]] void raise_disallowed(const std::string& token) {
  std::string r = py::repr(py::str(token));
  throw py::value_error(
      "Encountered text corresponding to disallowed special token " + r +
      ".\nIf you want this text to be encoded as a special token, pass it to `allowed_special`, "
      "e.g. `allowed_special={" +
      r +
      ", ...}`.\nIf you want this text to be encoded as normal "
      "text, disable the check for this token by passing `disallowed_special=(enc.special_tokens_"
      "set - {" +
      r +
      "})`.\nTo disable this check for all special tokens, pass "
      "`disallowed_special=()`.\n");
}

// Encoding(...)'s checks after the ranks are read: every byte a token, no
// special on an ordinary rank, a pattern tok can run.
Result<bpe::Tokenizer> tokenizer_of_ranks(const std::string& name,
                                          std::vector<std::optional<std::string>> tokens,
                                          std::vector<bpe::SpecialToken> specials,
                                          const std::string& pat_str) {
  std::vector<std::uint32_t> priority(tokens.size());
  for (std::size_t i = 0; i < priority.size(); ++i) priority[i] = static_cast<std::uint32_t>(i);
  TOK_ASSIGN(bpe::MergeTable table,
             bpe::MergeTable::from_priorities(std::move(tokens), std::move(priority), {}));
  // As for a .tiktoken file: text with a byte that has no token could not
  // be encoded.
  for (unsigned b = 0; b < 256; ++b) {
    if (table.byte_token(static_cast<unsigned char>(b)) == bpe::kNoToken) {
      return make_error(
          "mergeable_ranks has no token for byte {}; a byte-level vocabulary needs all 256", b);
    }
  }
  for (const auto& sp : specials) {
    if (table.has(sp.id)) {
      return make_error("special token {} has id {}, which is an ordinary token's rank", sp.text,
                        sp.id);
    }
  }
  // A pattern equal to a built-in one's source runs on its hand scanner.
  auto pre = text::PreTokenizer::from_regex(pat_str);
  if (!pre.ok()) return make_error("pat_str: {}", pre.error().message);
  return bpe::Tokenizer(name, std::move(table), {std::move(pre).value()}, std::move(specials));
}

// fn() run with the GIL released.
template <class Fn>
auto without_gil(Fn&& fn) {
  py::gil_scoped_release release;
  return fn();
}

// The value, or the error raised as ValueError.
template <class T>
T or_raise(Result<T> r) {
  if (!r.ok()) raise_error(r.error().message);
  return std::move(r).value();
}

py::bytes to_bytes(std::string_view s) { return py::bytes(s.data(), s.size()); }

// The bytes of an id, ordinary tokens first: Tokenizer::token_bytes scans
// the specials first, which o200k_harmony has 1,088 of.
std::optional<std::string_view> bytes_of(const bpe::Tokenizer& t, TokenId id) {
  if (t.table().has(id)) return t.table().bytes(id);
  if (t.is_special(id)) return t.token_bytes(id);
  return std::nullopt;
}

}  // namespace

CoreBPE CoreBPE::from_spec(const std::string& spec, const std::string& name,
                           std::optional<py::dict> special_tokens) {
  std::optional<std::vector<bpe::SpecialToken>> specials;
  if (special_tokens) specials = specials_of(*special_tokens);
  Result<bpe::Tokenizer> r = [&]() -> Result<bpe::Tokenizer> {
    py::gil_scoped_release release;
    TOK_ASSIGN(bpe::Tokenizer t, formats::load_tokenizer(spec));
    if (!specials) return t;
    return bpe::Tokenizer(name, t.table(), t.pretokenizers(), std::move(*specials));
  }();
  if (!r.ok()) raise_error(r.error().message);
  return CoreBPE{std::make_shared<Engine>(std::move(r).value())};
}

CoreBPE CoreBPE::from_ranks(const std::string& name, const py::dict& mergeable_ranks,
                            const py::dict& special_tokens, const std::string& pat_str) {
  // The CLI's bound on ranks (a .tiktoken file's), before the table is sized
  // by the largest one.
  std::uint64_t max_rank = 0;
  for (auto [k, v] : mergeable_ranks) {
    max_rank = std::max<std::uint64_t>(max_rank, v.cast<std::uint32_t>());
  }
  if (Status s =
          formats::check_rank_bound(max_rank, mergeable_ranks.size(), "mergeable_ranks", "entries");
      !s.ok()) {
    throw py::value_error(s.error().message);
  }
  std::vector<std::optional<std::string>> tokens;
  for (auto [k, v] : mergeable_ranks) {
    auto rank = v.cast<std::uint32_t>();
    if (rank >= tokens.size()) tokens.resize(std::size_t{rank} + 1);
    if (tokens[rank]) throw py::value_error("rank " + std::to_string(rank) + " appears twice");
    tokens[rank] = std::string(utf8_view(k));
  }
  std::vector<bpe::SpecialToken> specials = specials_of(special_tokens);
  // The rest touches no Python object: the table and the pattern are built
  // without the GIL, their errors raised once it is back.
  std::string error;
  std::shared_ptr<Engine> engine;
  {
    py::gil_scoped_release release;
    Result<bpe::Tokenizer> t =
        tokenizer_of_ranks(name, std::move(tokens), std::move(specials), pat_str);
    if (t.ok()) {
      engine = std::make_shared<Engine>(std::move(t).value());
    } else {
      error = t.error().message;
    }
  }
  if (!engine) raise_error(error);
  return CoreBPE{std::move(engine)};
}

SpecialSet CoreBPE::allowed(const OptNames& names) const {
  return engine->select(names ? &*names : nullptr);
}

SpecialSet CoreBPE::refused(const SpecialSet& allowed_set, const OptNames& disallowed) const {
  return disallowed ? engine->select(&*disallowed) : engine->complement(allowed_set);
}

void CoreBPE::raise_special(std::size_t k) const {
  raise_disallowed(engine->tokenizer().specials()[k].text);
}

void CoreBPE::check(std::string_view text, const SpecialSet& bad) const {
  if (bad.none()) return;
  std::optional<std::size_t> k;
  {
    py::gil_scoped_release release;
    k = engine->first_special(text, bad);
  }
  if (k) raise_special(*k);
}

std::vector<TokenId> CoreBPE::encode_view(std::string_view text,
                                          const SpecialSet& allowed_set) const {
  std::vector<TokenId> out;
  Status st;
  {
    py::gil_scoped_release release;
    reserve_ids(out, text.size());
    Engine::Lease scratch(*engine);
    st = engine->encode(text, allowed_set, out, *scratch);
  }
  if (!st.ok()) raise_error(st.error().message);
  return out;
}

py::list CoreBPE::encode(py::handle text, const OptNames& allowed_names,
                         const OptNames& disallowed) const {
  SpecialSet a = allowed(allowed_names);
  SpecialSet bad = refused(a, disallowed);
  if (auto list =
          encode_chunked(*engine, text, a, bad, [this](std::size_t k) { raise_special(k); })) {
    return std::move(*list);
  }
  return with_utf8(text, [&](std::string_view s) {
    check(s, bad);
    return to_list(encode_view(s, a));
  });
}

py::list CoreBPE::encode_ordinary(py::handle text) const {
  if (auto list = encode_chunked(*engine, text, SpecialSet{}, SpecialSet{}, {})) {
    return std::move(*list);
  }
  return with_utf8(text, [&](std::string_view s) { return to_list(encode_view(s, SpecialSet{})); });
}

py::array CoreBPE::encode_to_numpy(py::handle text, const OptNames& allowed_names,
                                   const OptNames& disallowed) const {
  SpecialSet a = allowed(allowed_names);
  SpecialSet bad = refused(a, disallowed);
  std::vector<TokenId> out;
  if (auto parts =
          encode_chunked_ids(*engine, text, a, bad, [this](std::size_t k) { raise_special(k); })) {
    out = std::move(*parts);
  } else {
    out = with_utf8(text, [&](std::string_view s) {
      check(s, bad);
      return encode_view(s, a);
    });
  }
  // The array borrows the vector's buffer: no copy, no list.
  auto* ids = new std::vector<TokenId>(std::move(out));
  py::capsule owner(ids, [](void* p) { delete static_cast<std::vector<TokenId>*>(p); });
  return py::array_t<std::uint32_t>({static_cast<py::ssize_t>(ids->size())}, ids->data(), owner);
}

py::list CoreBPE::encode_batch(const py::sequence& texts, const OptNames& allowed_names,
                               const OptNames& disallowed, unsigned threads) const {
  TextBatch batch(texts);
  SpecialSet a = allowed(allowed_names);
  SpecialSet bad = refused(a, disallowed);
  // Each text checked, then encoded, on the worker that takes it.
  auto fn = [&](std::size_t, std::string_view text, std::vector<TokenId>& out,
                bpe::EncodeScratch& scratch) -> std::optional<TextFailure> {
    if (std::optional<std::size_t> k = engine->first_special(text, bad)) {
      return TextFailure{TextFailure::Kind::kSpecial, *k, {}};
    }
    if (Status st = engine->encode(text, a, out, scratch); !st.ok()) {
      return TextFailure{TextFailure::Kind::kError, 0, st.error().message};
    }
    return std::nullopt;
  };
  return run_batch(*engine, batch, threads, true, fn, [this](std::size_t k) { raise_special(k); });
}

Result<std::pair<std::vector<TokenId>, std::size_t>> CoreBPE::encode_last_piece(
    std::string_view text, const SpecialSet& allowed_set) const {
  const bpe::Tokenizer& t = engine->tokenizer();
  std::vector<TokenId> ids;
  {
    Engine::Lease scratch(*engine);
    TOK_TRY(engine->encode(text, allowed_set, ids, *scratch));
  }
  // Tokens of the last pre-tokenizer piece (pieces encode independently, so
  // it is that piece's own encoding); none when the text ends with a special
  // token.
  std::size_t last = 0;
  std::string_view segment = engine->last_segment(text, allowed_set);
  if (!segment.empty() && !t.pretokenizers().empty()) {
    std::string_view piece;
    t.pretokenizers().front().split(segment, [&piece](std::string_view p) { piece = p; });
    TOK_ASSIGN(std::vector<TokenId> piece_ids, byte_pair_encode(piece));
    last = std::min(ids.size(), piece_ids.size());
  }
  // As tiktoken: a trailing whitespace piece may merge with the whitespace
  // tokens before it once more text follows, so they count as unstable too.
  auto all_space = [&t](TokenId id) {
    std::string_view b = t.token_bytes(id);
    return !t.is_special(id) && std::all_of(b.begin(), b.end(), [](char c) {
      return c == ' ' || c == '\n' || c == '\t';
    });
  };
  if (last > 0 && all_space(ids[ids.size() - last])) {
    while (last < ids.size() && all_space(ids[ids.size() - last - 1])) ++last;
  }
  return std::pair{std::move(ids), last};
}

Result<std::vector<TokenId>> CoreBPE::byte_pair_encode(std::string_view piece) const {
  std::vector<TokenId> out;
  TOK_TRY(bpe::check_piece_size(piece));
  Engine::Lease scratch(*engine);
  bpe::encode_piece(engine->tokenizer().table(), piece, out, *scratch);
  return out;
}

Result<std::vector<TokenId>> CoreBPE::encode_bytes(std::string_view b) const {
  std::size_t valid = text::valid_utf8_prefix(b);
  if (valid == b.size()) {
    std::vector<TokenId> ids;
    Engine::Lease scratch(*engine);
    TOK_TRY(engine->encode(b, SpecialSet{}, ids, *scratch));
    return ids;
  }
  // tiktoken's rule: encode the valid prefix, then re-encode its last piece
  // together with the invalid tail as one piece.
  TOK_ASSIGN(auto stable, encode_last_piece(b.substr(0, valid), SpecialSet{}));
  auto& [ids, last] = stable;
  std::string unstable;
  for (std::size_t i = ids.size() - last; i < ids.size(); ++i) {
    unstable += engine->tokenizer().token_bytes(ids[i]);
  }
  ids.resize(ids.size() - last);
  unstable += b.substr(valid);
  TOK_ASSIGN(std::vector<TokenId> tail, byte_pair_encode(unstable));
  ids.insert(ids.end(), tail.begin(), tail.end());
  return std::move(ids);
}

TokenId CoreBPE::encode_single_token(py::handle piece) const {
  std::string_view b = utf8_view(piece);
  const bpe::Tokenizer& t = engine->tokenizer();
  TokenId id = t.table().find(b);
  if (id != bpe::kNoToken) return id;
  for (const auto& s : t.specials()) {
    if (s.text == b) return s.id;
  }
  throw py::key_error(py::repr(piece));
}

py::bytes CoreBPE::decode_bytes(py::handle ids) const {
  std::vector<TokenId> v = to_ids(ids);
  const bpe::Tokenizer& t = engine->tokenizer();
  std::string out;
  std::optional<TokenId> unknown;
  {
    py::gil_scoped_release release;
    for (TokenId id : v) {
      auto b = bytes_of(t, id);
      if (!b) {
        unknown = id;
        break;
      }
      out += *b;
    }
  }
  if (unknown) throw py::key_error(std::to_string(*unknown));
  return to_bytes(out);
}

py::bytes CoreBPE::decode_single_token_bytes(std::uint64_t id) const {
  const bpe::Tokenizer& t = engine->tokenizer();
  auto b = id > UINT32_MAX ? std::nullopt : bytes_of(t, static_cast<TokenId>(id));
  if (!b) throw py::key_error(std::to_string(id));
  return to_bytes(*b);
}

py::list CoreBPE::token_byte_values() const {
  const bpe::MergeTable& table = engine->tokenizer().table();
  std::vector<std::string_view> all;
  {
    py::gil_scoped_release release;
    for (TokenId id = 0; id < table.size(); ++id) {
      if (table.has(id)) all.push_back(table.bytes(id));
    }
    std::sort(all.begin(), all.end());
  }
  py::list out(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) out[i] = to_bytes(all[i]);
  return out;
}

py::dict CoreBPE::mergeable_ranks() const {
  const bpe::MergeTable& table = engine->tokenizer().table();
  py::dict out;
  for (TokenId id = 0; id < table.size(); ++id) {
    if (table.has(id)) out[to_bytes(table.bytes(id))] = py::int_(id);
  }
  return out;
}

void bind_core_bpe(py::module_& m) {
  py::class_<CoreBPE>(m, "CoreBPE")
      .def(py::init(&CoreBPE::from_ranks), py::arg("name"), py::arg("mergeable_ranks"),
           py::arg("special_tokens"), py::arg("pat_str"))
      .def_static("from_spec", &CoreBPE::from_spec, py::arg("spec"), py::arg("name"),
                  py::arg("special_tokens") = py::none())
      .def_property_readonly("n_vocab",
                             [](const CoreBPE& c) { return c.engine->tokenizer().vocab_size(); })
      .def("encode", &CoreBPE::encode, py::arg("text"), py::arg("allowed"), py::arg("disallowed"))
      .def("encode_ordinary", &CoreBPE::encode_ordinary)
      .def("encode_to_numpy", &CoreBPE::encode_to_numpy)
      .def("encode_batch", &CoreBPE::encode_batch)
      .def("encode_bytes",
           [](const CoreBPE& c, py::bytes b) {
             std::string_view s = utf8_view(b);
             return to_list(or_raise(without_gil([&] { return c.encode_bytes(s); })));
           })
      .def("encode_last_piece",
           [](const CoreBPE& c, py::handle text, const OptNames& allowed) {
             std::string_view s = utf8_view(text);
             SpecialSet a = c.allowed(allowed);
             auto [ids, last] = or_raise(without_gil([&] { return c.encode_last_piece(s, a); }));
             return py::make_tuple(to_list(ids), last);
           })
      .def("byte_pair_encode",
           [](const CoreBPE& c, py::bytes b) {
             std::string_view s = utf8_view(b);
             return to_list(or_raise(without_gil([&] { return c.byte_pair_encode(s); })));
           })
      .def("encode_single_token", &CoreBPE::encode_single_token)
      .def("decode_bytes", &CoreBPE::decode_bytes)
      .def("decode_single_token_bytes", &CoreBPE::decode_single_token_bytes)
      .def("token_byte_values", &CoreBPE::token_byte_values)
      .def("mergeable_ranks", &CoreBPE::mergeable_ranks);
}

}  // namespace tok::python
