#include "text/unicode_props_build.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <unordered_map>

#include "text/unicode_props.hpp"
#include "text/unicode_tables.hpp"

namespace tok::text {
namespace {

std::uint8_t props_of_category(GeneralCategory category) {
  using GC = GeneralCategory;
  switch (category) {
    case GC::kLu:
    case GC::kLt: return kPropLetter | kPropUpperish;
    case GC::kLl: return kPropLetter | kPropLowerish;
    case GC::kLm:
    case GC::kLo: return kPropLetter | kPropUpperish | kPropLowerish;
    case GC::kMn:
    case GC::kMc:
    case GC::kMe: return kPropMark | kPropUpperish | kPropLowerish;
    case GC::kNd:
    case GC::kNl:
    case GC::kNo: return kPropNumber;
    default: return 0;
  }
}

}  // namespace

// From tok's tables (a few thousand category runs and White_Space ranges),
// one 256-code-point block at a time: blocks one run covers (unassigned
// planes, CJK, Hangul: most of the 4,352) are known from the run alone, and
// the rest are keyed by a hash of their contents.
void build_unicode_props(std::vector<std::uint16_t>& stage1, std::vector<std::uint8_t>& stage2) {
  stage1.assign(0x110000 >> 8, 0);
  stage2.clear();
  auto runs = category_runs();
  auto spaces = white_space_ranges();
  std::uint16_t uniform[256];  // stage2 index of the block holding only this value
  std::fill(std::begin(uniform), std::end(uniform), UINT16_MAX);
  std::unordered_multimap<std::uint64_t, std::uint16_t> by_hash;  // contents hash -> index
  std::size_t run = 0;  // the run holding the block's first code point
  std::uint8_t block[256];
  // The stage2 index of `block`'s contents, added when new.
  auto add = [&] {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (std::uint8_t b : block) h = (h ^ b) * 1099511628211ull;
    for (auto [it, end] = by_hash.equal_range(h); it != end; ++it) {
      if (std::memcmp(stage2.data() + (std::size_t{it->second} << 8), block, 256) == 0)
        return it->second;
    }
    auto index = static_cast<std::uint16_t>(stage2.size() >> 8);
    stage2.insert(stage2.end(), block, block + 256);
    by_hash.emplace(h, index);
    return index;
  };
  for (std::size_t hi = 0; hi < stage1.size(); ++hi) {
    const char32_t first = static_cast<char32_t>(hi << 8), last = first + 255;
    while (run + 1 < runs.size() && runs[run + 1].first <= first) ++run;
    bool spaced = false;
    for (auto r : spaces) spaced |= r.first <= last && r.last >= first;
    const char32_t run_end = run + 1 < runs.size() ? runs[run + 1].first : 0x110000;
    if (!spaced && run_end > last) {
      std::uint8_t v = props_of_category(runs[run].category);
      if (uniform[v] == UINT16_MAX) {
        std::memset(block, v, 256);
        uniform[v] = add();
      }
      stage1[hi] = uniform[v];
      continue;
    }
    for (std::size_t i = run, cp = first; cp <= last; ++i) {
      char32_t end = i + 1 < runs.size() ? runs[i + 1].first : 0x110000;
      std::uint8_t v = props_of_category(runs[i].category);
      for (; cp < end && cp <= last; ++cp) block[cp - first] = v;
    }
    for (auto r : spaces) {
      for (char32_t cp = std::max(r.first, first); cp <= std::min(r.last, last); ++cp)
        block[cp - first] |= kPropSpace;
    }
    stage1[hi] = add();
  }
}

}  // namespace tok::text
