#include "text/unicode_props.hpp"

#include <algorithm>
#include <map>
#include <string>

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
// which takes about a millisecond.
UnicodeProps::UnicodeProps() : stage1_(0x110000 >> 8) {
  std::vector<std::uint8_t> all(0x110000);  // (code point) property bits
  auto runs = category_runs();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    char32_t end = i + 1 < runs.size() ? runs[i + 1].first : 0x110000;
    std::fill(all.begin() + runs[i].first, all.begin() + end, props_of_category(runs[i].category));
  }
  for (auto r : white_space_ranges()) {
    for (char32_t cp = r.first; cp <= r.last; ++cp) all[cp] |= kPropSpace;
  }
  std::map<std::string, std::uint16_t> seen;  // block contents -> index
  for (std::size_t hi = 0; hi < stage1_.size(); ++hi) {
    std::string block(reinterpret_cast<const char*>(all.data() + (hi << 8)), 256);
    auto [it, inserted] = seen.try_emplace(block, std::uint16_t(seen.size()));
    if (inserted) stage2_.insert(stage2_.end(), block.begin(), block.end());
    stage1_[hi] = it->second;
  }
}

}  // namespace tok::text
