// for_each_document: the documents of JSONL inputs, processed by several
// threads with results consumed in input order. Used by encode, count and
// train (--jsonl), so all three read, number and refuse lines alike.
//
// Each batch of lines (JsonlReader) is cut into one contiguous byte range
// per slot; slot t's documents go to doc(slots[t], text) on one thread of
// core's ThreadPool, in order; after the batch, flush(slots) runs on the
// calling thread, which reads the slots in order 0, 1, ... (the input order)
// and resets them.
// Memory is one batch (a stream's; a regular file is mapped) plus what the
// slots hold for one batch.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "core/thread_pool.hpp"
#include "io/jsonl_reader.hpp"

namespace tok::io {

struct JsonlStats {
  std::uint64_t documents = 0;
  std::uint64_t text_bytes = 0;   // bytes of the documents' text (after JSON unescaping)
  std::uint64_t input_bytes = 0;  // input bytes read, newlines included (updated before flush)
  std::uint64_t bad = 0;          // lines skipped by skip_bad
  std::string first_bad;          // "FILE:LINE: reason" of the first one
};

// Where slot t's range of the batch starts: cuts[t]..cuts[t+1], lines
// split so the slots get about equal bytes.
std::vector<std::size_t> split_batch(const JsonlBatch& batch, std::size_t slots);

// "<stdin>" for "-", else the path.
std::string jsonl_name(const std::string& path);

template <class Slot, class Doc, class Flush>
Status for_each_document(const std::vector<std::string>& paths, const JsonlField& field,
                         bool skip_bad, std::vector<Slot>& slots, Doc&& doc, Flush&& flush,
                         JsonlStats& stats) {
  struct Range {
    std::string scratch;  // the current document when it holds escapes, reused
    std::uint64_t documents = 0, text_bytes = 0, bad = 0;
    std::uint64_t error_line = 0, first_bad_line = 0;
    std::string error, first_bad;
  };
  std::vector<Range> ranges(slots.size());
  JsonlBatch batch;
  // A slot is one item of the pool, so it is only ever on one thread at a time.
  ThreadPool pool(static_cast<unsigned>(slots.size()));
  for (const std::string& path : paths) {
    const std::string name = jsonl_name(path);
    TOK_ASSIGN(int fd, open_jsonl(path));
    struct Closer {
      int fd;
      ~Closer() {
        if (fd > 0) ::close(fd);
      }
    } closer{fd};
    const MappedFile mapped = map_jsonl(fd, path);
    JsonlReader reader = mapped.size() ? JsonlReader(mapped.bytes(), name) : JsonlReader(fd, name);
    // A mapped file's next batch is cut by the first thread done with its
    // share of this one, instead of by the calling thread while every other
    // waits; its result (an error too) is taken only after this batch's.
    const bool read_ahead = reader.batches_outlive_next();
    JsonlBatch ahead;
    Result<bool> next = reader.next(batch);
    for (;;) {
      TOK_ASSIGN(bool more, std::move(next));
      if (!more) break;
      std::vector<std::size_t> cuts = split_batch(batch, slots.size());
      auto work = [&](std::size_t t) {
        Range& r = ranges[t];
        for (std::size_t i = cuts[t]; i < cuts[t + 1]; ++i) {
          std::string reason;
          std::string_view text;
          LineKind k = read_document(batch.lines[i], field, text, r.scratch, reason);
          if (k == LineKind::kBlank) continue;
          if (k == LineKind::kDocument) {
            Status st = doc(slots[t], text);
            if (st.ok()) {
              ++r.documents;
              r.text_bytes += text.size();
              continue;
            }
            reason = st.error().message;
          }
          std::uint64_t line = batch.first_line + i;
          if (!skip_bad) {
            r.error_line = line;
            r.error = std::move(reason);
            return;
          }
          if (r.bad++ == 0) {
            r.first_bad_line = line;
            r.first_bad = std::move(reason);
          }
        }
      };
      // The read ahead is taken by some thread unless an item throws, which
      // ends the run.
      if (read_ahead) {
        next = make_error("{}: the batch after line {} was not read", name,
                          batch.first_line + batch.lines.size());
      }
      // Every range runs to its end or its first bad line, so the error
      // reported is the input's first whichever thread finishes first.
      (void)pool.for_each(slots.size() + (read_ahead ? 1 : 0), [&](std::size_t t, unsigned) {
        if (t < slots.size()) {
          work(t);
        } else {
          next = reader.next(ahead);
        }
      });
      for (Range& r : ranges) {
        if (!r.error.empty()) return make_error("{}:{}: {}", name, r.error_line, r.error);
        stats.documents += r.documents;
        stats.text_bytes += r.text_bytes;
        if (r.bad && stats.bad == 0) {
          stats.first_bad = std::to_string(r.first_bad_line);
          stats.first_bad = name + ":" + stats.first_bad + ": " + r.first_bad;
        }
        stats.bad += r.bad;
        r.documents = r.text_bytes = r.bad = 0;
      }
      stats.input_bytes += batch.bytes;
      TOK_TRY(flush(slots));
      if (read_ahead) {
        std::swap(batch, ahead);
      } else {
        next = reader.next(batch);
      }
    }
  }
  return {};
}

}  // namespace tok::io
