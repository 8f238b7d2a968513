#include "bpe/trainer.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "bpe/pair_map.hpp"

namespace tok::bpe {
namespace {

// A heap entry: a pair and its count when pushed (maybe stale).
struct QueueEntry {
  std::uint64_t count;
  std::uint64_t key;
};
// std heap is a max-heap on this "less": higher count first, then the
// smaller (left, right) key.
bool queue_less(const QueueEntry& a, const QueueEntry& b) {
  return a.count != b.count ? a.count < b.count : a.key > b.key;
}

class Trainer {
 public:
  Trainer(const WordCounts& words, const TrainOptions& options, TrainProgress* progress)
      : options_(options), progress_(progress) {
    load_words(words);
    for (int b = 0; b < 256; ++b) add_token(std::string(1, static_cast<char>(b)));
  }

  TrainResult run();

 private:
  struct PairStats {
    std::int64_t count = 0;
    std::vector<std::uint32_t> words;  // words that contain (or once contained) the pair
  };

  void load_words(const WordCounts& words);
  TokenId add_token(std::string bytes);
  // Adds delta occurrences of (left, right); a positive delta comes from word w.
  void change(TokenId left, TokenId right, std::int64_t delta, std::uint32_t w);
  void count_initial_pairs();
  void merge_pair(std::uint64_t key, TokenId result);
  void merge_in_word(std::uint32_t w, TokenId a, TokenId b, TokenId c);
  void push(std::uint32_t pair_index);

  TrainOptions options_;
  TrainProgress* progress_;

  // Words: symbols of word w are symbols_[start_[w] .. start_[w] + len_[w]).
  std::vector<TokenId> symbols_;        // (total bytes of words with >= 2 bytes)
  std::vector<std::size_t> start_;      // (words)
  std::vector<std::uint32_t> len_;      // (words) shrinks as pairs merge
  std::vector<std::int64_t> count_;     // (words) occurrences in the corpus
  std::vector<std::uint32_t> visited_;  // (words) merge step (1-based) that last visited it

  PairMap pair_index_;
  std::vector<PairStats> pairs_;      // (pairs seen) by dense index
  std::vector<std::uint64_t> keys_;   // (pairs seen) dense index -> key
  std::vector<std::uint32_t> grown_;  // pair indexes whose count rose this step
  std::vector<QueueEntry> queue_;     // max-heap, lazily invalidated

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, TokenId> token_ids_;
  std::vector<MergeTable::Merge> merges_;
};

void Trainer::load_words(const WordCounts& words) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words.word(i).size() >= 2) total += words.word(i).size();
  }
  symbols_.reserve(total);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words.word(i);
    if (w.size() < 2) continue;  // a single byte has no pair to merge
    start_.push_back(symbols_.size());
    len_.push_back(static_cast<std::uint32_t>(w.size()));
    count_.push_back(static_cast<std::int64_t>(words.count(i)));
    for (char c : w) symbols_.push_back(static_cast<unsigned char>(c));
  }
  visited_.assign(start_.size(), 0);
}

TokenId Trainer::add_token(std::string bytes) {
  auto [it, inserted] = token_ids_.emplace(bytes, static_cast<TokenId>(tokens_.size()));
  if (inserted) tokens_.push_back(std::move(bytes));
  return it->second;
}

void Trainer::change(TokenId left, TokenId right, std::int64_t delta, std::uint32_t w) {
  std::uint64_t key = pair_key(left, right);
  bool inserted = false;
  std::uint32_t i =
      pair_index_.find_or_insert(key, static_cast<std::uint32_t>(pairs_.size()), &inserted);
  if (inserted) {
    pairs_.emplace_back();
    keys_.push_back(key);
  }
  PairStats& p = pairs_[i];
  p.count += delta;
  if (delta > 0) {
    if (p.words.empty() || p.words.back() != w) p.words.push_back(w);
    grown_.push_back(i);
  }
}

void Trainer::count_initial_pairs() {
  for (std::uint32_t w = 0; w < start_.size(); ++w) {
    const TokenId* s = &symbols_[start_[w]];
    for (std::uint32_t k = 0; k + 1 < len_[w]; ++k) change(s[k], s[k + 1], count_[w], w);
  }
  grown_.clear();
  queue_.reserve(pairs_.size());
  for (std::uint32_t i = 0; i < pairs_.size(); ++i) {
    if (pairs_[i].count > 0)
      queue_.push_back({static_cast<std::uint64_t>(pairs_[i].count), keys_[i]});
  }
  std::make_heap(queue_.begin(), queue_.end(), queue_less);
}

void Trainer::push(std::uint32_t i) {
  if (pairs_[i].count <= 0) return;
  queue_.push_back({static_cast<std::uint64_t>(pairs_[i].count), keys_[i]});
  std::push_heap(queue_.begin(), queue_.end(), queue_less);
}

// Replaces every (a, b) in word w, left to right, by c, and updates the
// counts of the pairs around each replacement:
//   x a b y  ->  x c y : (x,a) (a,b) (b,y) lose count(w); (x,c) (c,y) gain it.
// x is read from the already rewritten prefix, so in "a b a b" the second
// replacement sees x = c and undoes the (c,a) the first one added.
void Trainer::merge_in_word(std::uint32_t w, TokenId a, TokenId b, TokenId c) {
  TokenId* s = &symbols_[start_[w]];
  std::uint32_t n = len_[w], j = 0;
  std::int64_t cnt = count_[w];
  for (std::uint32_t i = 0; i < n;) {
    if (i + 1 < n && s[i] == a && s[i + 1] == b) {
      if (j > 0) {
        change(s[j - 1], a, -cnt, w);
        change(s[j - 1], c, cnt, w);
      }
      change(a, b, -cnt, w);
      if (i + 2 < n) {
        change(b, s[i + 2], -cnt, w);
        change(c, s[i + 2], cnt, w);
      }
      s[j++] = c;
      i += 2;
    } else {
      s[j++] = s[i++];
    }
  }
  len_[w] = j;
}

void Trainer::merge_pair(std::uint64_t key, TokenId result) {
  std::uint32_t step = static_cast<std::uint32_t>(merges_.size());
  std::uint32_t pi = pair_index_.find(key);
  // Take the word list: the pair disappears everywhere after this step.
  std::vector<std::uint32_t> words = std::move(pairs_[pi].words);
  pairs_[pi].words = {};
  grown_.clear();
  for (std::uint32_t w : words) {
    if (visited_[w] == step) continue;  // listed twice
    visited_[w] = step;
    merge_in_word(w, pair_left(key), pair_right(key), result);
  }
  TOK_ASSERT(pairs_[pi].count == 0);
  std::sort(grown_.begin(), grown_.end());
  grown_.erase(std::unique(grown_.begin(), grown_.end()), grown_.end());
  for (std::uint32_t i : grown_) push(i);
}

TrainResult Trainer::run() {
  count_initial_pairs();
  while (tokens_.size() < options_.vocab_size && !queue_.empty()) {
    std::pop_heap(queue_.begin(), queue_.end(), queue_less);
    QueueEntry top = queue_.back();
    queue_.pop_back();
    std::uint32_t pi = pair_index_.find(top.key);
    std::int64_t now = pairs_[pi].count;
    if (static_cast<std::uint64_t>(now) != top.count) {
      if (now > 0) push(pi);  // stale: requeue with the current count
      continue;
    }
    if (now < static_cast<std::int64_t>(options_.min_frequency)) break;
    const std::string& left = tokens_[pair_left(top.key)];
    const std::string& right = tokens_[pair_right(top.key)];
    if (options_.max_token_bytes && left.size() + right.size() > options_.max_token_bytes) {
      continue;  // never merged; dropped from the queue
    }
    TokenId result = add_token(left + right);
    merges_.push_back({pair_left(top.key), pair_right(top.key)});
    merge_pair(top.key, result);
    if (progress_) progress_->merges_done.store(tokens_.size() - 256, std::memory_order_relaxed);
  }
  return {std::move(tokens_), std::move(merges_)};
}

}  // namespace

Result<TrainResult> train_bpe(const WordCounts& words, const TrainOptions& options,
                              TrainProgress* progress) {
  if (options.vocab_size < 256) {
    return make_error("vocabulary size {} is below 256 (one token per byte value)",
                      options.vocab_size);
  }
  Trainer trainer(words, options, progress);
  return trainer.run();
}

Status check_new_specials(const std::vector<std::string>& specials, std::string_view arg) {
  std::set<std::string_view> seen;
  for (const auto& s : specials) {
    if (s.empty()) return make_error("{}: a special token cannot be empty", arg);
    if (!seen.insert(s).second) return make_error("{} {}: given twice", arg, s);
  }
  return {};
}

}  // namespace tok::bpe
