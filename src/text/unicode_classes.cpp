#include "text/unicode_classes.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <iterator>

namespace tok::text {
namespace {

using GC = GeneralCategory;
constexpr std::uint32_t bit(GC c) { return 1u << static_cast<int>(c); }

struct CategoryName {
  std::string_view short_name, long_name;
  std::uint32_t mask;
};

constexpr std::uint32_t kLetters =
    bit(GC::kLu) | bit(GC::kLl) | bit(GC::kLt) | bit(GC::kLm) | bit(GC::kLo);
constexpr std::uint32_t kMarks = bit(GC::kMn) | bit(GC::kMc) | bit(GC::kMe);
constexpr std::uint32_t kNumbers = bit(GC::kNd) | bit(GC::kNl) | bit(GC::kNo);
constexpr std::uint32_t kPunctuation = bit(GC::kPc) | bit(GC::kPd) | bit(GC::kPs) | bit(GC::kPe) |
                                       bit(GC::kPi) | bit(GC::kPf) | bit(GC::kPo);
constexpr std::uint32_t kSymbols = bit(GC::kSm) | bit(GC::kSc) | bit(GC::kSk) | bit(GC::kSo);
constexpr std::uint32_t kSeparators = bit(GC::kZs) | bit(GC::kZl) | bit(GC::kZp);
constexpr std::uint32_t kOthers =
    bit(GC::kCc) | bit(GC::kCf) | bit(GC::kCs) | bit(GC::kCo) | bit(GC::kCn);

// PropertyValueAliases.txt's names for the general category values.
constexpr CategoryName kCategoryNames[] = {
    {"Lu", "Uppercase_Letter", bit(GC::kLu)},
    {"Ll", "Lowercase_Letter", bit(GC::kLl)},
    {"Lt", "Titlecase_Letter", bit(GC::kLt)},
    {"Lm", "Modifier_Letter", bit(GC::kLm)},
    {"Lo", "Other_Letter", bit(GC::kLo)},
    {"Mn", "Nonspacing_Mark", bit(GC::kMn)},
    {"Mc", "Spacing_Mark", bit(GC::kMc)},
    {"Me", "Enclosing_Mark", bit(GC::kMe)},
    {"Nd", "Decimal_Number", bit(GC::kNd)},
    {"Nl", "Letter_Number", bit(GC::kNl)},
    {"No", "Other_Number", bit(GC::kNo)},
    {"Pc", "Connector_Punctuation", bit(GC::kPc)},
    {"Pd", "Dash_Punctuation", bit(GC::kPd)},
    {"Ps", "Open_Punctuation", bit(GC::kPs)},
    {"Pe", "Close_Punctuation", bit(GC::kPe)},
    {"Pi", "Initial_Punctuation", bit(GC::kPi)},
    {"Pf", "Final_Punctuation", bit(GC::kPf)},
    {"Po", "Other_Punctuation", bit(GC::kPo)},
    {"Sm", "Math_Symbol", bit(GC::kSm)},
    {"Sc", "Currency_Symbol", bit(GC::kSc)},
    {"Sk", "Modifier_Symbol", bit(GC::kSk)},
    {"So", "Other_Symbol", bit(GC::kSo)},
    {"Zs", "Space_Separator", bit(GC::kZs)},
    {"Zl", "Line_Separator", bit(GC::kZl)},
    {"Zp", "Paragraph_Separator", bit(GC::kZp)},
    {"Cc", "Control", bit(GC::kCc)},
    {"Cf", "Format", bit(GC::kCf)},
    {"Cs", "Surrogate", bit(GC::kCs)},
    {"Co", "Private_Use", bit(GC::kCo)},
    {"Cn", "Unassigned", bit(GC::kCn)},
    {"L", "Letter", kLetters},
    {"LC", "Cased_Letter", bit(GC::kLu) | bit(GC::kLl) | bit(GC::kLt)},
    {"L&", "Cased_Letter", bit(GC::kLu) | bit(GC::kLl) | bit(GC::kLt)},
    {"M", "Mark", kMarks},
    {"N", "Number", kNumbers},
    {"P", "Punctuation", kPunctuation},
    {"S", "Symbol", kSymbols},
    {"Z", "Separator", kSeparators},
    {"C", "Other", kOthers},
    {"Any", "Any", (1u << kGeneralCategoryCount) - 1},
};

// UTS #18 loose matching: case, spaces, '_' and '-' do not count.
std::string loose(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

void add(RangeSet& set, char32_t first, char32_t last) {
  if (!set.empty() && set.back().last + 1 == first) {
    set.back().last = last;
  } else {
    set.push_back({first, last});
  }
}

RangeSet categories(std::uint32_t mask) {
  RangeSet out;
  auto runs = category_runs();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!(mask & bit(runs[i].category))) continue;
    char32_t last = i + 1 < runs.size() ? runs[i + 1].first - 1 : 0x10FFFF;
    add(out, runs[i].first, last);
  }
  return out;
}

RangeSet to_set(std::span<const CodePointRange> ranges) { return {ranges.begin(), ranges.end()}; }

// The union of sets, merged.
RangeSet unite(std::vector<RangeSet> sets) {
  RangeSet all;
  for (auto& s : sets) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end(), [](auto a, auto b) { return a.first < b.first; });
  RangeSet out;
  for (auto r : all) {
    if (!out.empty() && r.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

GeneralCategory general_category(char32_t cp) {
  if (cp > 0x10FFFF) return GeneralCategory::kCn;
  auto runs = category_runs();
  auto after = std::upper_bound(runs.begin(), runs.end(), cp,
                                [](char32_t c, const CategoryRun& r) { return c < r.first; });
  return std::prev(after)->category;
}

std::optional<RangeSet> property_set(std::string_view name) {
  // Short names are matched exactly first: "L&" has no loose form, and
  // loosely "Pc" and "PC" would be one name anyway.
  for (const auto& c : kCategoryNames) {
    if (c.short_name == name) return categories(c.mask);
  }
  std::string key = loose(name);
  for (const auto& c : kCategoryNames) {
    if (loose(c.short_name) == key || loose(c.long_name) == key) return categories(c.mask);
  }
  for (const auto& s : script_extensions()) {
    if (loose(s.name) == key) return to_set(s.ranges);
  }
  return std::nullopt;
}

RangeSet white_space_set() { return to_set(white_space_ranges()); }

RangeSet digit_set() { return categories(bit(GC::kNd)); }

RangeSet word_set() {
  return unite({to_set(alphabetic_ranges()), categories(kMarks | bit(GC::kNd) | bit(GC::kPc)),
                to_set(join_control_ranges())});
}

RangeSet complement(const RangeSet& set) {
  RangeSet out;
  char32_t next = 0;
  for (auto r : set) {
    if (r.first > next) out.push_back({next, r.first - 1});
    next = r.last + 1;
  }
  if (next <= 0x10FFFF) out.push_back({next, 0x10FFFF});
  return out;
}

std::string pcre2_members(const RangeSet& set) {
  std::string out;
  auto emit = [&](char32_t a, char32_t b) {
    if (a > b) return;
    out += fmt::format("\\x{{{:X}}}", static_cast<std::uint32_t>(a));
    if (b > a) out += fmt::format("-\\x{{{:X}}}", static_cast<std::uint32_t>(b));
  };
  for (auto r : set) {
    if (r.last < 0xD800 || r.first > 0xDFFF) {
      emit(r.first, r.last);
    } else {  // around the surrogates
      if (r.first < 0xD800) emit(r.first, 0xD7FF);
      if (r.last > 0xDFFF) emit(0xE000, r.last);
    }
  }
  return out;
}

}  // namespace tok::text
