#include "model/repack.hpp"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "model/kernels.hpp"
#include "model/model.hpp"

namespace tok::model {
namespace {

constexpr std::size_t kNibbleBytes = ggml::kQK / 2;  // 16 per block

std::int64_t units_per_row(const TensorView& w) { return w.cols / (ggml::kQK * kQ4x4UnitBlocks); }

}  // namespace

bool q4_0x4_repackable(const TensorView& w) {
  return w.type == DType::kQ4_0 && !w.q4_0x4 && w.cols % (ggml::kQK * kQ4x4UnitBlocks) == 0 &&
         w.rows >= kQ4x4Rows;
}

TensorView repack_q4_0x4(const TensorView& w, void* data) {
  const std::int64_t units = units_per_row(w);
  const std::size_t row_bytes = w.row_bytes(), group_bytes = kQ4x4Rows * row_bytes;
  std::vector<ggml::BlockQ4_0> rows(
      static_cast<std::size_t>(kQ4x4Rows * w.cols / ggml::kQK));  // (4, cols / 32)
  auto* base = static_cast<std::uint8_t*>(data);
  for (std::int64_t g = 0; g < w.rows / kQ4x4Rows; ++g) {
    std::uint8_t* group = base + static_cast<std::size_t>(g) * group_bytes;
    std::memcpy(rows.data(), group, group_bytes);
    for (std::int64_t u = 0; u < units; ++u) {
      std::uint8_t* unit = group + static_cast<std::size_t>(u) * kQ4x4UnitBytes;
      for (std::int64_t m = 0; m < kQ4x4Rows; ++m) {
        for (std::int64_t k = 0; k < kQ4x4UnitBlocks; ++k) {
          const ggml::BlockQ4_0& b =
              rows[static_cast<std::size_t>(m * (w.cols / ggml::kQK) + u * kQ4x4UnitBlocks + k)];
          std::memcpy(unit + 64 * m + kNibbleBytes * k, b.qs, kNibbleBytes);
          std::memcpy(unit + 256 + 2 * (kQ4x4Rows * k + m), &b.d, 2);
        }
      }
    }
  }
  TensorView out = w;
  out.data = data;
  out.q4_0x4 = true;
  return out;
}

void unpack_row_q4_0x4(const TensorView& w, std::int64_t r, ggml::BlockQ4_0* out) {
  const std::int64_t nb = w.cols / ggml::kQK;
  if (r >= q4_0x4_grouped_rows(w)) {
    std::memcpy(out, w.row(r), w.row_bytes());
    return;
  }
  const std::int64_t m = r % kQ4x4Rows;
  const auto* group = static_cast<const std::uint8_t*>(w.data) +
                      static_cast<std::size_t>(r / kQ4x4Rows) * kQ4x4Rows * w.row_bytes();
  for (std::int64_t b = 0; b < nb; ++b) {
    const std::int64_t u = b / kQ4x4UnitBlocks, k = b % kQ4x4UnitBlocks;
    const std::uint8_t* unit = group + static_cast<std::size_t>(u) * kQ4x4UnitBytes;
    std::memcpy(out[b].qs, unit + 64 * m + kNibbleBytes * k, kNibbleBytes);
    std::memcpy(&out[b].d, unit + 256 + 2 * (kQ4x4Rows * k + m), 2);
  }
}

bool q4_kx16_repackable(const TensorView& w) {
  return w.type == DType::kQ4_K && !w.q4_kx16 && w.cols % ggml::kQKK == 0 && w.rows >= kQ4Kx16Rows;
}

bool q6_kx16_repackable(const TensorView& w) {
  return w.type == DType::kQ6_K && !w.q6_kx16 && w.cols % ggml::kQKK == 0 && w.rows >= kQ6Kx16Rows;
}

namespace {

// Where row i's bytes of one block go in a 16-row unit: copy(from, to, n)
// for each run of n bytes, from the block's offset to the unit's (each
// dword of qs, ql, qh or scales to lane i of its 64-byte vector).
template <class Copy>
void q4_k_places(std::int64_t i, Copy copy) {
  for (int q = 0; q < 32; ++q) copy(offsetof(ggml::BlockQ4_K, qs) + 4 * q, 64 * q + 4 * i, 4);
  for (int k = 0; k < 3; ++k)
    copy(offsetof(ggml::BlockQ4_K, scales) + 4 * k, kQ4Kx16ScalesAt + 64 * k + 4 * i, 4);
  copy(offsetof(ggml::BlockQ4_K, d), kQ4Kx16DAt + 4 * i, 2);
  copy(offsetof(ggml::BlockQ4_K, dmin), kQ4Kx16DAt + 4 * i + 2, 2);
}

template <class Copy>
void q6_k_places(std::int64_t i, Copy copy) {
  for (int q = 0; q < 32; ++q) copy(offsetof(ggml::BlockQ6_K, ql) + 4 * q, 64 * q + 4 * i, 4);
  for (int q = 0; q < 16; ++q)
    copy(offsetof(ggml::BlockQ6_K, qh) + 4 * q, kQ6Kx16QhAt + 64 * q + 4 * i, 4);
  for (int k = 0; k < 4; ++k)
    copy(offsetof(ggml::BlockQ6_K, scales) + 4 * k, kQ6Kx16ScalesAt + 64 * k + 4 * i, 4);
  copy(offsetof(ggml::BlockQ6_K, d), kQ6Kx16DAt + 2 * i, 2);
}

// Rearranges w's whole groups of 16 rows in place: in each, the 16 rows'
// blocks of super-block s become unit s (16 blocks' bytes), placed by
// places(i, copy) for row i.
template <class Block, class Places>
void repack_x16(const TensorView& w, void* data, Places places) {
  constexpr std::size_t kUnit = 16 * sizeof(Block);
  const std::int64_t nb = w.cols / ggml::kQKK;
  const std::size_t group_bytes = 16 * w.row_bytes();
  std::vector<Block> rows(static_cast<std::size_t>(16 * nb));  // (16, nb)
  auto* base = static_cast<std::uint8_t*>(data);
  for (std::int64_t g = 0; g < w.rows / 16; ++g) {
    std::uint8_t* group = base + static_cast<std::size_t>(g) * group_bytes;
    std::memcpy(rows.data(), group, group_bytes);
    for (std::int64_t s = 0; s < nb; ++s) {
      std::uint8_t* unit = group + static_cast<std::size_t>(s) * kUnit;
      for (std::int64_t i = 0; i < 16; ++i) {
        const auto* b =
            reinterpret_cast<const std::uint8_t*>(&rows[static_cast<std::size_t>(i * nb + s)]);
        places(i, [&](std::size_t from, std::size_t to, std::size_t n) {
          std::memcpy(unit + to, b + from, n);
        });
      }
    }
  }
}

// Row r of a view repack_x16 rearranged (grouped: its rows in whole groups)
// as plain blocks.
template <class Block, class Places>
void unpack_row_x16(const TensorView& w, std::int64_t grouped, std::int64_t r, Block* out,
                    Places places) {
  if (r >= grouped) {
    std::memcpy(out, w.row(r), w.row_bytes());
    return;
  }
  constexpr std::size_t kUnit = 16 * sizeof(Block);
  const auto* group = static_cast<const std::uint8_t*>(w.data) +
                      static_cast<std::size_t>(r / 16) * 16 * w.row_bytes();
  for (std::int64_t s = 0; s < w.cols / ggml::kQKK; ++s) {
    const std::uint8_t* unit = group + static_cast<std::size_t>(s) * kUnit;
    auto* b = reinterpret_cast<std::uint8_t*>(&out[s]);
    places(r % 16, [&](std::size_t from, std::size_t to, std::size_t n) {
      std::memcpy(b + from, unit + to, n);
    });
  }
}

}  // namespace

TensorView repack_q4_kx16(const TensorView& w, void* data) {
  repack_x16<ggml::BlockQ4_K>(w, data, [](std::int64_t i, auto copy) { q4_k_places(i, copy); });
  TensorView out = w;
  out.data = data;
  out.q4_kx16 = true;
  return out;
}

void unpack_row_q4_kx16(const TensorView& w, std::int64_t r, ggml::BlockQ4_K* out) {
  unpack_row_x16(w, q4_kx16_grouped_rows(w), r, out,
                 [](std::int64_t i, auto copy) { q4_k_places(i, copy); });
}

TensorView repack_q6_kx16(const TensorView& w, void* data) {
  repack_x16<ggml::BlockQ6_K>(w, data, [](std::int64_t i, auto copy) { q6_k_places(i, copy); });
  TensorView out = w;
  out.data = data;
  out.q6_kx16 = true;
  return out;
}

void unpack_row_q6_kx16(const TensorView& w, std::int64_t r, ggml::BlockQ6_K* out) {
  unpack_row_x16(w, q6_kx16_grouped_rows(w), r, out,
                 [](std::int64_t i, auto copy) { q6_k_places(i, copy); });
}

void repack_weights(Weights& w) {
  // TOK_NO_REPACK=1 keeps the file's layout (to time the plain Q4_0 kernels).
  if (best_kernels().isa != Isa::kAvx512Vnni || std::getenv("TOK_NO_REPACK")) return;
  // A tensor two views share is repacked once, and both views say so.
  std::unordered_map<const void*, TensorView> done;
  auto repack = [&done](TensorView& t) {
    if (auto it = done.find(t.data); it != done.end()) {
      if (it->second.rows == t.rows && it->second.cols == t.cols) t = it->second;
      return;
    }
    if (q4_0x4_repackable(t)) {
      t = repack_q4_0x4(t, const_cast<void*>(t.data));
    } else if (q4_kx16_repackable(t)) {
      t = repack_q4_kx16(t, const_cast<void*>(t.data));
    } else if (q6_kx16_repackable(t)) {
      t = repack_q6_kx16(t, const_cast<void*>(t.data));
    } else {
      return;
    }
    done.emplace(t.data, t);
  };
  for (LayerWeights& l : w.layers) {
    for (TensorView* t : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) repack(*t);
  }
  if (w.output.data != w.token_embd.data) repack(w.output);
}

}  // namespace tok::model
