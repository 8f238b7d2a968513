// MergeTable::serialize / deserialize: the built table (token bytes, index,
// priorities, pair index) as one flat binary image, so a vocabulary that took
// 100+ ms to parse and index loads in a few milliseconds from a cache
// (formats/table_cache.cpp). The image is machine-specific (native byte order,
// this build's hash function) and is checked on the way in: a header with a
// version, the hash function's fingerprint and the sizes; a checksum of the
// body; and bounds of every offset and id, so a corrupt image is refused, never
// trusted.
//
// Layout (all fields native-endian, each array padded to 8 bytes):
//   Header
//   arena bytes                      (header.arena)
//   offsets   size_t[n + 1]
//   present   u8[n]
//   priority  u32[n or 0]
//   byte_tokens_opt u32[header.byte_tokens]  (Options::byte_tokens)
//   byte_tokens u32[256]
//   index     IndexSlot[header.index_cap]
//   pairs     PairSlot[header.pairs_cap]
//   filter    u64[header.filter_words]
//   cut_bits  u64[header.cut_words]
//   split_nodes u64[header.split_nodes]
//   split_edges u32[header.split_edges]
//   outranked_chars u32[header.outranked_chars]  (sorted)
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "bpe/merge_table.hpp"

namespace tok::bpe {
namespace {

constexpr char kMagic[8] = {'T', 'O', 'K', 'M', 'T', 'A', 'B', '1'};
constexpr std::uint32_t kVersion = 5;

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t slot_sizes;  // sizeof(IndexSlot) << 16 | sizeof(PairSlot) << 8 | sizeof(size_t)
  std::uint64_t hash_fingerprint;
  std::uint64_t n;            // ids
  std::uint64_t arena;        // bytes
  std::uint64_t priorities;   // 0 or n
  std::uint64_t byte_tokens;  // Options::byte_tokens.size()
  std::uint64_t index_cap;
  std::uint64_t pairs_cap;
  std::uint64_t filter_words;
  std::uint64_t cut_words;
  std::uint64_t split_nodes;
  std::uint64_t split_edges;
  std::uint64_t outranked_chars;
  std::uint64_t options;  // initial | whole_piece_lookup << 8 | pairs_by_id << 16 |
                          // priority_is_id << 17
  std::uint64_t unk;
  std::uint64_t body_hash;  // checksum of everything after the header
};

// Changes whenever hash_bytes or hash_u64 change: the index stores positions
// and tags derived from them, so an image built by another hash is unusable.
std::uint64_t hash_fingerprint() {
  return hash_bytes("tok merge table index") ^ hash_u64(0x746f6b) ^
         (hash_bytes("0123456789abcdefXYZ") << 1);
}

std::size_t padded(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

bool power_of_two_or_zero(std::uint64_t c) { return (c & (c - 1)) == 0; }

// A checksum of the body at memory speed (8-byte lanes, 4 independent chains).
std::uint64_t body_checksum(std::string_view body) {
  std::uint64_t h[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                        0x082EFA98EC4E6C89ull};
  std::size_t i = 0;
  for (; i + 32 <= body.size(); i += 32) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t v;
      std::memcpy(&v, body.data() + i + 8 * k, 8);
      h[k] = mix64(h[k] ^ v, 0x9E3779B97F4A7C15ull);
    }
  }
  std::uint64_t r = hash_bytes(body.substr(i)) ^ body.size();
  for (auto x : h) r = mix64(r ^ x, 0xBF58476D1CE4E5B9ull);
  return r;
}

template <class T>
void put_array(std::string& out, const T* p, std::size_t count) {
  out.append(reinterpret_cast<const char*>(p), count * sizeof(T));
  out.resize(padded(out.size()), '\0');
}

// Reads arrays front to back out of a body, refusing to run past its end.
struct Reader {
  std::string_view body;
  std::size_t pos = 0;
  bool ok = true;
  // The next count * size bytes, or nullptr (and ok = false) past the end.
  const char* take(std::size_t count, std::size_t size) {
    if (!ok || count > (body.size() - pos) / size) {
      ok = false;
      return nullptr;
    }
    const char* p = body.data() + pos;
    pos = std::min(body.size(), padded(pos + count * size));
    return p;
  }
  // The next count elements into a: a view when the image outlives the
  // table (keeper) and the data is aligned for T, else a copy.
  template <class T>
  void get(TableArray<T>& a, std::size_t count, bool in_place) {
    const char* p = take(count, sizeof(T));
    if (!p) return;
    if (in_place && reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0) {
      a.view(reinterpret_cast<const T*>(p), count);
      return;
    }
    copy(a.own(), p, count);
    a.sync();
  }
  template <class T>
  void get(std::vector<T>& v, std::size_t count) {
    if (const char* p = take(count, sizeof(T))) copy(v, p, count);
  }
  template <class T>
  static void copy(std::vector<T>& v, const char* p, std::size_t count) {
    v.resize(count);
    if (count) std::memcpy(static_cast<void*>(v.data()), p, count * sizeof(T));
  }
};

}  // namespace

const std::uint32_t MergeTable::kSlotSizes = static_cast<std::uint32_t>(
    sizeof(IndexSlot) << 16 | sizeof(PairSlot) << 8 | sizeof(std::size_t));

std::string MergeTable::serialize() const {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.slot_sizes = kSlotSizes;
  h.hash_fingerprint = hash_fingerprint();
  h.n = size();
  h.arena = arena_.size();
  h.priorities = priority_.size();
  h.byte_tokens = options_.byte_tokens.size();
  h.index_cap = index_.size();
  h.pairs_cap = pairs_.size();
  h.filter_words = filter_.size();
  h.cut_words = cut_bits_.size();
  h.split_nodes = split_nodes_.size();
  h.split_edges = split_edges_.size();
  h.outranked_chars = outranked_chars_.size();
  h.options = static_cast<std::uint64_t>(options_.initial) |
              (std::uint64_t{options_.whole_piece_lookup} << 8) |
              (std::uint64_t{pairs_by_id_} << 16) | (std::uint64_t{priority_is_id_} << 17);
  h.unk = options_.unk;
  std::string out(sizeof(Header), '\0');
  put_array(out, arena_.data(), arena_.size());
  put_array(out, offsets_.data(), offsets_.size());
  put_array(out, present_.data(), present_.size());
  put_array(out, priority_.data(), priority_.size());
  put_array(out, options_.byte_tokens.data(), options_.byte_tokens.size());
  put_array(out, byte_tokens_, 256);
  put_array(out, index_.data(), index_.size());
  put_array(out, pairs_.data(), pairs_.size());
  put_array(out, filter_.data(), filter_.size());
  put_array(out, cut_bits_.data(), cut_bits_.size());
  put_array(out, split_nodes_.data(), split_nodes_.size());
  put_array(out, split_edges_.data(), split_edges_.size());
  put_array(out, outranked_chars_.data(), outranked_chars_.size());
  h.body_hash = body_checksum(std::string_view(out).substr(sizeof(Header)));
  std::memcpy(out.data(), &h, sizeof(Header));
  return out;
}

Result<MergeTable> MergeTable::deserialize(std::string_view image,
                                           std::shared_ptr<const void> keeper) {
  Header h;
  if (image.size() < sizeof(Header)) return make_error("too short for a merge table image");
  std::memcpy(&h, image.data(), sizeof(Header));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 || h.version != kVersion ||
      h.slot_sizes != kSlotSizes || h.hash_fingerprint != hash_fingerprint()) {
    return make_error("not a merge table image of this version of tok");
  }
  std::string_view body = image.substr(sizeof(Header));
  if (body_checksum(body) != h.body_hash) return make_error("checksum mismatch");
  if (!power_of_two_or_zero(h.index_cap) || !power_of_two_or_zero(h.pairs_cap) ||
      !power_of_two_or_zero(h.filter_words) || !power_of_two_or_zero(h.cut_words) ||
      h.split_nodes >= (1u << 24) - 1 || h.split_edges >= UINT32_MAX ||
      (h.filter_words != 0 && h.priorities == 0) || h.n >= UINT32_MAX ||
      (h.priorities != 0 && h.priorities != h.n) || (h.byte_tokens != 0 && h.byte_tokens != 256) ||
      (h.options & 0xff) > 1 || (h.options & ~std::uint64_t{0x301ff}) != 0 ||
      (h.unk != kNoToken && h.unk >= h.n)) {
    return make_error("inconsistent merge table header");
  }
  MergeTable t;
  bool in_place = keeper != nullptr;
  Reader r{body};
  std::vector<TokenId> bytes256;
  r.get(t.arena_, h.arena, in_place);
  r.get(t.offsets_, h.n + 1, in_place);
  r.get(t.present_, h.n, in_place);
  r.get(t.priority_, h.priorities, in_place);
  r.get(t.options_.byte_tokens, h.byte_tokens);
  r.get(bytes256, 256);
  r.get(t.index_, h.index_cap, in_place);
  r.get(t.pairs_, h.pairs_cap, in_place);
  r.get(t.filter_, h.filter_words, in_place);
  r.get(t.cut_bits_, h.cut_words, in_place);
  r.get(t.split_nodes_, h.split_nodes, in_place);
  r.get(t.split_edges_, h.split_edges, in_place);
  r.get(t.outranked_chars_, h.outranked_chars, in_place);
  if (!r.ok || r.pos != body.size()) return make_error("sizes do not match the image");
  t.priority_is_id_ = (h.options >> 17) & 1;
  if (t.priority_is_id_ && t.priority_.size() != h.n) return make_error("inconsistent priorities");
  if (!std::is_sorted(t.outranked_chars_.begin(), t.outranked_chars_.end()) || !t.check_chars()) {
    return make_error("inconsistent character tables");
  }
  TOK_TRY(t.check_image(bytes256));
  std::memcpy(t.byte_tokens_, bytes256.data(), sizeof(t.byte_tokens_));
  t.index_mask_ = h.index_cap ? h.index_cap - 1 : 0;
  t.pairs_mask_ = h.pairs_cap ? h.pairs_cap - 1 : 0;
  t.filter_mask_ = h.filter_words ? h.filter_words - 1 : 0;
  t.options_.initial = static_cast<InitialSymbols>(h.options & 0xff);
  t.options_.whole_piece_lookup = (h.options >> 8) & 1;
  t.pairs_by_id_ = (h.options >> 16) & 1;
  t.options_.unk = static_cast<TokenId>(h.unk);
  t.finish_cuts();
  t.finish_chars();
  t.build_byte_pairs();
  t.keeper_ = std::move(keeper);
  return t;
}

bool MergeTable::reseal(std::string& image) {
  if (image.size() < sizeof(Header)) return false;
  Header h;
  std::memcpy(&h, image.data(), sizeof(Header));
  h.body_hash = body_checksum(std::string_view(image).substr(sizeof(Header)));
  std::memcpy(image.data(), &h, sizeof(Header));
  return true;
}

// Bounds of everything the encoder and decoder trust without checks. Every
// load runs this over the whole image (8 MB of index and pair slots for
// o200k), so the loops are branch-free: a flag gathers the bad cases. Where
// every id has a token (tiktoken's tables), a slot's id needs only a bound;
// only tables with holes look each id up in present_.
Status MergeTable::check_image(const std::vector<TokenId>& bytes256) const {
  const std::size_t n = present_.size();
  bool bad = false;
  for (std::size_t i = 0; i < n; ++i) bad |= offsets_[i] > offsets_[i + 1];
  if (bad) return make_error("token offsets out of order");
  if (offsets_[0] != 0 || offsets_[n] != arena_.size()) {
    return make_error("token offsets out of range");
  }
  const bool holes = std::find(present_.begin(), present_.end(), 0) != present_.end();
  // Only bounds: whether a slot's head and length match its token is the
  // checksum's to catch (the encoder compares them, never indexes by them).
  std::uint32_t top = 0;
  for (const IndexSlot& s : index_) top = std::max(top, s.id_plus1);
  if (top > n) return make_error("index id out of range");
  if (holes) {
    for (const IndexSlot& s : index_) bad |= s.id_plus1 != 0 && !present_[s.id_plus1 - 1];
    if (bad) return make_error("index id out of range");
  }
  for (const PairSlot& s : pairs_) {
    bad |= (s.key != UINT64_MAX) &
           ((s.info.result >= n) | ((s.key >> 32) >= n) | ((s.key & 0xffffffffu) >= n));
  }
  if (holes && !bad) {  // every result is in range by now
    for (const PairSlot& s : pairs_) bad |= s.key != UINT64_MAX && !present_[s.info.result];
  }
  if (bad) return make_error("pair out of range");
  if (priority_is_id_) {
    for (std::size_t id = 0; id < n; ++id) bad |= present_[id] && priority_[id] != id;
    if (bad) return make_error("priorities are not the ids");
  }
  for (TokenId id : bytes256) {
    if (id != kNoToken && id >= n) return make_error("byte token out of range");
  }
  for (TokenId id : options_.byte_tokens) {
    if (id != kNoToken && id >= n) return make_error("byte token out of range");
  }
  return {};
}

}  // namespace tok::bpe
