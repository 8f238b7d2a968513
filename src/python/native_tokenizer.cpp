// tok.Tokenizer: the native API over anything `-e` loads (built-in names,
// tokenizer.json, GGUF, vocab.json + merges.txt, hf:ORG/NAME, trained
// .tiktoken). Text may be str (encoded as UTF-8) or bytes; offsets are byte
// offsets into those bytes, as `tok encode --tokens` prints them. Native work
// runs with the GIL released, so Python threads encode in parallel too.
#include "python/native_tokenizer.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "core/system_cpus.hpp"
#include "formats/registry.hpp"
#include "python/batch.hpp"
#include "python/bindings.hpp"
#include "python/engine.hpp"
#include "python/py_convert.hpp"
#include "python/py_error.hpp"

namespace tok::python {

using bpe::SpecialMode;
using bpe::TokenId;

SpecialMode special_mode(const std::string& special) {
  if (special == "text") return SpecialMode::kText;
  if (special == "allow") return SpecialMode::kAllow;
  if (special == "error") return SpecialMode::kError;
  throw py::value_error("special must be 'text', 'allow' or 'error', not '" + special + "'");
}

unsigned thread_count(unsigned threads) { return threads ? threads : available_cpus(); }

NativeTokenizer NativeTokenizer::load(const std::string& spec, std::optional<std::string> pattern) {
  formats::LoadOptions options;
  options.pattern = std::move(pattern);
  Result<bpe::Tokenizer> r = [&] {
    py::gil_scoped_release release;
    return formats::load_tokenizer(spec, options);
  }();
  if (!r.ok()) raise_error(r.error().message);
  return NativeTokenizer{std::make_shared<Engine>(std::move(r).value())};
}

std::vector<TokenId> NativeTokenizer::encode_view(std::string_view text, SpecialMode mode) const {
  std::vector<TokenId> out;
  Status st;
  {
    py::gil_scoped_release release;
    reserve_ids(out, text.size());
    Engine::Lease scratch(*engine);
    st = engine->tokenizer().encode(text, mode, out, *scratch);
  }
  if (!st.ok()) raise_error(st.error().message);
  return out;
}

namespace {

py::list encode(const NativeTokenizer& t, py::handle text, const std::string& special) {
  SpecialMode mode = special_mode(special);
  return with_utf8(text, [&](std::string_view s) { return to_list(t.encode_view(s, mode)); });
}

py::array encode_to_numpy(const NativeTokenizer& t, py::handle text, const std::string& special) {
  SpecialMode mode = special_mode(special);
  auto* ids = new std::vector<TokenId>(
      with_utf8(text, [&](std::string_view s) { return t.encode_view(s, mode); }));
  py::capsule owner(ids, [](void* p) { delete static_cast<std::vector<TokenId>*>(p); });
  return py::array_t<std::uint32_t>({static_cast<py::ssize_t>(ids->size())}, ids->data(), owner);
}

std::size_t count(const NativeTokenizer& t, py::handle text, const std::string& special,
                  unsigned threads) {
  SpecialMode mode = special_mode(special);
  Result<std::size_t> n = with_utf8(text, [&](std::string_view s) {
    py::gil_scoped_release release;
    return t.engine->tokenizer().count(s, mode, thread_count(threads));
  });
  if (!n.ok()) raise_error(n.error().message);
  return n.value();
}

py::list offsets(const NativeTokenizer& t, py::handle text, const std::string& special) {
  SpecialMode mode = special_mode(special);
  std::vector<bpe::TokenSpan> spans;
  Status st = with_utf8(text, [&](std::string_view s) {
    py::gil_scoped_release release;
    Engine::Lease scratch(*t.engine);
    return t.engine->tokenizer().encode_spans(s, mode, spans, *scratch);
  });
  if (!st.ok()) raise_error(st.error().message);
  py::list out(spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    out[i] = py::make_tuple(spans[i].id, spans[i].begin, spans[i].end);
  }
  return out;
}

py::bytes decode_bytes(const NativeTokenizer& t, py::handle ids) {
  std::vector<TokenId> v = to_ids(ids);
  Result<std::string> r = [&] {
    py::gil_scoped_release release;
    return t.engine->tokenizer().decode(v);
  }();
  if (!r.ok()) raise_error(r.error().message);
  return py::bytes(r.value());
}

py::list encode_batch(const NativeTokenizer& t, const py::sequence& texts,
                      const std::string& special, unsigned threads) {
  SpecialMode mode = special_mode(special);
  TextBatch batch(texts);
  auto fn = [&](std::size_t, std::string_view text, std::vector<TokenId>& out,
                bpe::EncodeScratch& s) -> std::optional<TextFailure> {
    if (Status st = t.engine->tokenizer().encode(text, mode, out, s); !st.ok()) {
      return TextFailure{TextFailure::Kind::kError, 0, st.error().message};
    }
    return std::nullopt;
  };
  return run_batch(*t.engine, batch, thread_count(threads), true, fn);
}

std::vector<std::size_t> count_batch(const NativeTokenizer& t, const py::sequence& texts,
                                     const std::string& special, unsigned threads) {
  SpecialMode mode = special_mode(special);
  TextBatch batch(texts);
  std::vector<std::size_t> counts(batch.size());
  auto fn = [&](std::size_t i, std::string_view text, std::vector<TokenId>&,
                bpe::EncodeScratch& s) -> std::optional<TextFailure> {
    Result<std::size_t> n = t.engine->tokenizer().count(text, mode, s);
    if (!n.ok()) return TextFailure{TextFailure::Kind::kError, 0, n.error().message};
    counts[i] = n.value();
    return std::nullopt;
  };
  run_batch(*t.engine, batch, thread_count(threads), false, fn);
  return counts;
}

}  // namespace

void bind_native_tokenizer(py::module_& m) {
  py::class_<NativeTokenizer>(m, "Tokenizer")
      .def_static("load", &NativeTokenizer::load, py::arg("spec"), py::arg("pattern") = py::none())
      .def_property_readonly("name",
                             [](const NativeTokenizer& t) { return t.engine->tokenizer().name(); })
      .def_property_readonly(
          "vocab_size", [](const NativeTokenizer& t) { return t.engine->tokenizer().vocab_size(); })
      .def_property_readonly("special_tokens",
                             [](const NativeTokenizer& t) {
                               py::dict d;
                               for (const auto& s : t.engine->tokenizer().specials())
                                 d[py::str(s.text)] = s.id;
                               return d;
                             })
      .def("encode", &encode, py::arg("text"), py::arg("special") = "text")
      .def("encode_to_numpy", &encode_to_numpy, py::arg("text"), py::arg("special") = "text")
      .def("count", &count, py::arg("text"), py::arg("special") = "text", py::arg("threads") = 1)
      .def("offsets", &offsets, py::arg("text"), py::arg("special") = "text")
      .def("decode_bytes", &decode_bytes, py::arg("ids"))
      .def("encode_batch", &encode_batch, py::arg("texts"), py::arg("special") = "text",
           py::arg("threads") = 0)
      .def("count_batch", &count_batch, py::arg("texts"), py::arg("special") = "text",
           py::arg("threads") = 0)
      .def("token_bytes", [](const NativeTokenizer& t, TokenId id) {
        if (!t.engine->tokenizer().has_token(id)) throw py::key_error(std::to_string(id));
        std::string_view b = t.engine->tokenizer().token_bytes(id);
        return py::bytes(b.data(), b.size());
      });
}

}  // namespace tok::python
