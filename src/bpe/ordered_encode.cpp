#include "bpe/ordered_encode.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>

#include "bpe/shared_piece_cache.hpp"
#include "core/thread_pool.hpp"

namespace tok::bpe {
namespace {

// The shared state: a ring of `window` slots, slot c % window holding chunk
// c from when a worker claims it until the consumer has taken it.
class Ring {
 public:
  Ring(std::size_t nchunks, std::size_t window) : n_(nchunks), slots_(window) {}

  // The next chunk to encode, waiting while the window is full; nullopt
  // when none is left or the run stopped. With `consumer`, returns instead
  // (nullopt, *ready = true) as soon as the chunk the consumer awaits is done.
  std::optional<std::size_t> claim(bool consumer, bool* ready) {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      if (consumer && (*ready = done_front())) return std::nullopt;
      if (stopped_ || next_ == n_) {
        if (!consumer || taken_ == n_ || stopped_) return std::nullopt;
      } else if (next_ < taken_ + slots_.size()) {
        return next_++;
      }
      cv_.wait(lock);
    }
  }
  std::vector<TokenId>& ids(std::size_t c) { return slots_[c % slots_.size()].ids; }
  void finish(std::size_t c, Status st) {
    {
      std::lock_guard<std::mutex> lock(m_);
      Slot& s = slots_[c % slots_.size()];
      s.status = std::move(st);
      s.done = true;
    }
    cv_.notify_all();
  }
  // The consumer's chunk, once done_front(): its status; then release() it.
  std::size_t front() const { return taken_; }
  Status& front_status() { return slots_[taken_ % slots_.size()].status; }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m_);
      Slot& s = slots_[taken_ % slots_.size()];
      s.done = false;
      s.ids.clear();
      ++taken_;
    }
    cv_.notify_all();
  }
  bool all_taken() const { return taken_ == n_; }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopped_ = true;
    }
    cv_.notify_all();
  }

 private:
  struct Slot {
    std::vector<TokenId> ids;
    Status status;
    bool done = false;
  };
  bool done_front() const { return taken_ < n_ && slots_[taken_ % slots_.size()].done; }

  std::mutex m_;
  std::condition_variable cv_;
  std::size_t n_;
  std::size_t next_ = 0;   // chunks claimed so far
  std::size_t taken_ = 0;  // chunks the consumer has taken (written only by it)
  bool stopped_ = false;
  std::vector<Slot> slots_;
};

}  // namespace

Status encode_in_order(const Tokenizer& tk, std::string_view text,
                       const std::vector<std::size_t>& cuts, SpecialMode mode, unsigned threads,
                       const ChunkConsumer& consume, const std::function<Status()>& first) {
  TOK_ASSERT(mode != SpecialMode::kError && cuts.size() >= 1);
  const std::size_t nchunks = cuts.size() - 1;
  threads =
      static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(nchunks, 1)));
  // The calling thread is worker 0 (it runs `first` and consumes); the
  // others only encode. Fewer may start than asked for: the window follows
  // the threads there are.
  ThreadPool pool(threads);
  // Two chunks per thread in flight: one being encoded, one waiting to be
  // consumed, so a worker never idles while the consumer prints.
  Ring ring(nchunks, 2 * std::size_t{pool.size()});
  auto encode_chunk = [&](std::size_t c, EncodeScratch& scratch) {
    std::vector<TokenId>& ids = ring.ids(c);
    ids.reserve(cuts[c + 1] - cuts[c] + 1);  // at most a token per byte: no regrowth
    Status st = tk.encode(text.substr(cuts[c], cuts[c + 1] - cuts[c]), mode, ids, scratch);
    ring.finish(c, std::move(st));
  };
  // One piece cache for all the threads: a piece merged once answers them all.
  auto shared = SharedPieceCache::create(text.size());
  Status result;
  auto consumer = [&] {
    if (first) result = first();
    if (!result.ok()) return;
    EncodeScratch scratch;
    scratch.shared = shared.get();
    while (!pool.stopping() && !ring.all_taken()) {
      bool ready = false;
      auto c = ring.claim(true, &ready);
      if (c) {
        encode_chunk(*c, scratch);
        continue;
      }
      if (!ready) break;  // stopped by a worker's exception
      std::size_t f = ring.front();
      Status st = std::move(ring.front_status());
      if (st.ok()) st = consume(f, ring.ids(f));
      ring.release();
      if (!st.ok()) {
        result = std::move(st);
        break;
      }
    }
  };
  auto worker = [&] {
    EncodeScratch scratch;
    scratch.shared = shared.get();
    bool ready = false;
    while (auto c = ring.claim(false, &ready)) encode_chunk(*c, scratch);
  };
  // The pool's rule: the first exception (out of memory, a piece too long)
  // is rethrown here once every thread is done. A thread that throws stops
  // the ring first, so none waits for a chunk that will never come; the
  // consumer stops it when done, which releases the workers waiting for room.
  pool.run([&](unsigned w) {
    try {
      if (w == 0) {
        consumer();
      } else {
        worker();
      }
    } catch (...) {
      ring.stop();
      throw;
    }
    if (w == 0) ring.stop();
  });
  return result;
}

}  // namespace tok::bpe
