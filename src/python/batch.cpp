#include "python/batch.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/huge_pages.hpp"
#include "core/system_cpus.hpp"
#include "core/thread_pool.hpp"
#include "core/utf8.hpp"
#include "python/py_convert.hpp"
#include "python/py_error.hpp"

namespace tok::python {

using bpe::TokenId;

TextRef::TextRef(PyObject* o) {
  if (PyBytes_Check(o)) {
    data_ = PyBytes_AS_STRING(o);
    units_ = static_cast<std::size_t>(PyBytes_GET_SIZE(o));
    return;
  }
  if (!PyUnicode_Check(o)) {
    throw py::type_error("expected str, got " + std::string(py::str(py::type::of(o))));
  }
#if PY_VERSION_HEX < 0x030C0000
  // A string built by the legacy wchar_t API gets its compact form here.
  if (PyUnicode_READY(o) != 0) throw py::error_already_set();
#endif
  data_ = PyUnicode_DATA(o);
  units_ = static_cast<std::size_t>(PyUnicode_GET_LENGTH(o));
  width_ = PyUnicode_IS_ASCII(o) ? 0 : PyUnicode_KIND(o);
}

TextBatch::TextBatch(py::handle texts) {
  // A tuple is returned as is; any other sequence is copied into one.
  PyObject* tuple = PySequence_Tuple(texts.ptr());
  if (!tuple) throw py::error_already_set();
  items_ = py::reinterpret_steal<py::tuple>(tuple);
  refs_.resize(items_.size());
  for (std::size_t i = 0; i < refs_.size(); ++i) {
    refs_[i] = TextRef(PyTuple_GET_ITEM(tuple, static_cast<Py_ssize_t>(i)));
  }
}

namespace {

// Copies the ASCII code units at the start of p[0, n) to w as bytes and
// returns how many there were. Text is mostly ASCII even where it is stored
// 2 or 4 bytes wide (a mix with CJK, an emoji), so runs go 16 at a time: the
// units packed to bytes with saturation have their top bit set exactly where
// a unit is not ASCII. Writes up to 16 bytes past the run, which the caller's
// room for the rest of the text covers (at least one byte a unit).
template <class Unit>
std::size_t copy_ascii(const Unit* p, std::size_t n, unsigned char*& w) {
  std::size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const auto* q = reinterpret_cast<const __m128i*>(p + i);
    __m128i bytes;
    unsigned other = 0;  // a bit for each unit that is not ASCII
    if constexpr (sizeof(Unit) == 1) {
      bytes = _mm_loadu_si128(q);
    } else if constexpr (sizeof(Unit) == 2) {
      // The packing instructions read 16-bit units as signed: units from
      // 0x8000 on pack to 0 unsigned, but to 0x80 signed.
      __m128i a = _mm_loadu_si128(q), b = _mm_loadu_si128(q + 1);
      bytes = _mm_packus_epi16(a, b);
      other = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(a, b)));
    } else {
      // Code points are below 2^21, so the signed packing keeps them
      // positive and at least 0x80 where they were.
      __m128i lo = _mm_packs_epi32(_mm_loadu_si128(q), _mm_loadu_si128(q + 1));
      __m128i hi = _mm_packs_epi32(_mm_loadu_si128(q + 2), _mm_loadu_si128(q + 3));
      bytes = _mm_packus_epi16(lo, hi);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(w), bytes);
    other |= static_cast<unsigned>(_mm_movemask_epi8(bytes));
    if (other) {
      std::size_t run = static_cast<std::size_t>(std::countr_zero(other));
      w += run;
      return i + run;
    }
    w += 16;
  }
#endif
  for (; i < n && p[i] < 0x80; ++i) *w++ = static_cast<unsigned char>(p[i]);
  return i;
}

// The UTF-8 of n code points, each one Unit wide, written at out (room for
// n * min(2 * sizeof(Unit), 4) bytes); its end, or null at a surrogate
// (U+D800..U+DFFF), which UTF-8 cannot hold.
template <class Unit>
char* to_utf8(const Unit* p, std::size_t n, char* out) {
  auto* w = reinterpret_cast<unsigned char*>(out);
  for (std::size_t i = 0; i < n;) {
    std::uint32_t c = p[i];
    if (c < 0x80) {
      i += copy_ascii(p + i, n - i, w);
      continue;
    }
    ++i;
    if (!utf8::is_scalar(c)) return nullptr;  // a surrogate: a str holds no other
    w += utf8::encode(c, reinterpret_cast<char*>(w));
  }
  return reinterpret_cast<char*>(w);
}

}  // namespace

char* Utf8Buffer::room(std::size_t bytes) {
  if (bytes > capacity_) {
    data_.reset(new char[bytes]);  // uninitialised: untouched pages cost nothing
    capacity_ = bytes;
    // A long text's transcoding fills fresh pages: one fault per 2 MiB
    // (see reserve_ids).
    if (bytes >= kLargeBuffer) advise_huge_pages(data_.get(), bytes);
  }
  return data_.get();
}

std::optional<std::size_t> TextRef::utf8_range(std::size_t from, std::size_t n, char* out) const {
  char* end = width_ == 1   ? to_utf8(static_cast<const std::uint8_t*>(data_) + from, n, out)
              : width_ == 2 ? to_utf8(static_cast<const std::uint16_t*>(data_) + from, n, out)
                            : to_utf8(static_cast<const std::uint32_t*>(data_) + from, n, out);
  if (!end) return std::nullopt;
  return static_cast<std::size_t>(end - out);
}

bool TextRef::utf8(Utf8Buffer& buffer, std::string_view& out) const {
  if (width_ == 0) {
    out = in_place();
    return true;
  }
  char* begin = buffer.room(units_ * max_utf8());
  std::optional<std::size_t> n = utf8_range(0, units_, begin);
  if (!n) return false;
  out = {begin, *n};
  return true;
}

void TextRef::raise_unicode_error(PyObject* o) {
  Py_ssize_t size = 0;
  if (!PyUnicode_AsUTF8AndSize(o, &size)) throw py::error_already_set();
  throw py::value_error("the text has no UTF-8 form");  // not reached
}

namespace {

// Consecutive texts [begin, end) that one worker encodes in one go, their
// ids in one buffer. Aligned to a cache line each, so that a worker filling
// one task never shares a line with the caller reading the next.
struct alignas(64) Task {
  std::size_t begin = 0, end = 0;
  std::vector<TokenId> ids;       // (tokens of texts begin..end-1, in order)
  std::vector<std::size_t> ends;  // (texts encoded): where each text's ids end
  std::atomic<bool> done{false};
};

// Tasks of about total / (8 per thread) bytes, within [4 KiB, 32 KiB]:
// short texts are taken a few dozen at a time (a shared counter per text
// would cost as much as encoding it), a long one alone, and eight tasks per
// thread leave little idle at the end. The cap keeps the calling thread,
// which also builds every list, from spending long on one task while
// finished ones wait for it: with 256 KiB tasks, 40,000 texts of 100 B
// measured a CPU-time bound of 1.6-1.8x on two threads, with 32 KiB 1.8-2.2x
// (scripts/bench/python).
std::vector<std::pair<std::size_t, std::size_t>> plan_tasks(const TextBatch& texts,
                                                            unsigned threads) {
  constexpr std::size_t kMinTask = 4 << 10, kMaxTask = 32 << 10;
  std::size_t total = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) total += texts.cost(i);
  std::size_t target =
      std::clamp<std::size_t>(total / (std::size_t{threads} * 8), kMinTask, kMaxTask);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t begin = 0, bytes = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    bytes += texts.cost(i) + 1;
    if (bytes >= target) {
      out.emplace_back(begin, i + 1);
      begin = i + 1;
      bytes = 0;
    }
  }
  if (begin < texts.size()) out.emplace_back(begin, texts.size());
  return out;
}

// The failure of the lowest text index seen so far.
struct FirstFailure {
  std::mutex mutex;
  std::atomic<std::size_t> index{std::numeric_limits<std::size_t>::max()};
  std::optional<TextFailure> failure;

  void record(std::size_t i, TextFailure f) {
    std::lock_guard lock(mutex);
    if (i >= index.load(std::memory_order_relaxed)) return;
    index.store(i, std::memory_order_relaxed);
    failure = std::move(f);
  }
};

// The cyclic garbage collector held off while the calling thread builds
// lists: each new list counts toward a collection (one per 700), which
// traverses every young list, and every tenth an older generation too, all
// on the one thread that must build the lists. Held off, the batch's lists
// are traversed once, at the first allocation after it. No Python code runs
// meanwhile (nothing here calls back into Python), so none sees it off.
// Under the GIL.
class GcPause {
 public:
#if PY_VERSION_HEX >= 0x030A0000
  GcPause() : was_enabled_(PyGC_Disable()) {}
  ~GcPause() {
    if (was_enabled_) PyGC_Enable();
  }

 private:
  int was_enabled_;
#else
  GcPause() {}  // Python 3.9 has no C API for it
#endif
};

// Each task's texts into result (a list of n NULL slots), under the GIL.
void to_lists(const Task& task, PyObject* result) {
  std::size_t from = 0;
  for (std::size_t j = 0; j < task.ends.size(); ++j) {
    std::span<const TokenId> ids(task.ids.data() + from, task.ends[j] - from);
    PyList_SET_ITEM(result, static_cast<Py_ssize_t>(task.begin + j), to_list(ids).release().ptr());
    from = task.ends[j];
  }
}

}  // namespace

py::object run_batch(const Engine& engine, const TextBatch& texts, unsigned threads, bool lists,
                     const TextFn& fn, const std::function<void(std::size_t)>& raise_special) {
  // More threads than CPUs would only take turns on them.
  threads = std::clamp(threads, 1u, std::max(1u, available_cpus()));
  py::list result(lists ? texts.size() : 0);
  auto plan = plan_tasks(texts, threads);
  const std::size_t m = plan.size();
  std::unique_ptr<Task[]> tasks(new Task[m]);
  for (std::size_t t = 0; t < m; ++t) std::tie(tasks[t].begin, tasks[t].end) = plan[t];
  FirstFailure failed;
  std::size_t converted = 0;  // tasks [0, converted) are in result
  auto convert_done = [&] {
    GcPause pause;
    while (converted < m && tasks[converted].done.load(std::memory_order_acquire)) {
      to_lists(tasks[converted++], result.ptr());
    }
  };
  {
    py::gil_scoped_release release;
    ThreadPool pool(static_cast<unsigned>(std::min<std::size_t>(threads, m)));
    std::atomic<std::size_t> next{0};
    pool.run([&](unsigned w) {
      Engine::Lease scratch(engine);
      Utf8Buffer buffer;
      for (;;) {
        // The caller turns finished tasks into lists while the others encode.
        if (w == 0 && lists && converted < m &&
            tasks[converted].done.load(std::memory_order_acquire)) {
          py::gil_scoped_acquire gil;
          convert_done();
          continue;
        }
        std::size_t t = next.fetch_add(1, std::memory_order_relaxed);
        if (t >= m || pool.stopping()) break;
        Task& task = tasks[t];
        std::size_t bytes = 0;
        for (std::size_t i = task.begin; i < task.end; ++i) bytes += texts.cost(i);
        // About 4 bytes a token: rarely grown. A long text's room is
        // reserved for one token a byte and advised for huge pages.
        if (bytes >= kLargeBuffer) {
          reserve_ids(task.ids, bytes);
        } else {
          task.ids.reserve(bytes / 3 + 16);
        }
        task.ends.reserve(task.end - task.begin);
        // Past a failing text nothing more is reported.
        for (std::size_t i = task.begin;
             i < task.end && i < failed.index.load(std::memory_order_relaxed); ++i) {
          std::string_view text;
          if (!texts.utf8(i, buffer, text)) {
            failed.record(i, {TextFailure::Kind::kSurrogate, 0, {}});
            break;
          }
          if (auto f = fn(i, text, task.ids, *scratch)) {
            failed.record(i, std::move(*f));
            break;
          }
          task.ends.push_back(task.ids.size());
        }
        task.done.store(true, std::memory_order_release);
      }
    });
  }
  if (failed.failure) {
    const TextFailure& f = *failed.failure;
    std::size_t i = failed.index.load();
    switch (f.kind) {
      case TextFailure::Kind::kSurrogate: texts.raise_unicode_error(i);
      case TextFailure::Kind::kSpecial:
        if (raise_special) raise_special(f.special);
        raise_error("text " + std::to_string(i) + " holds a disallowed special token");
      case TextFailure::Kind::kError: raise_error(f.message);
    }
  }
  if (!lists) return py::none();
  convert_done();
  return result;
}

}  // namespace tok::python
