#include "text/unicode_catchup.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <cstdio>
#include <utility>
#include <vector>

namespace tok::text {
namespace {

// Code points assigned in ICU after PCRE2's Unicode version, ascending.
const std::vector<UChar32>& newer_than_pcre2() {
  static const std::vector<UChar32> list = [] {
    char version[32] = {};
    pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, version);
    int major = 0, minor = 0;
    std::sscanf(version, "%d.%d", &major, &minor);
    std::vector<UChar32> out;
    for (UChar32 cp = 0; cp <= 0x10FFFF; ++cp) {
      UVersionInfo age;
      u_charAge(cp, age);  // 0.0 for unassigned code points
      if (std::pair<int, int>(age[0], age[1]) > std::pair<int, int>(major, minor)) {
        out.push_back(cp);
      }
    }
    return out;
  }();
  return list;
}

// The property \p{name} tests, looked up in ICU by any of its names; known
// is false for names ICU does not have and for categories that include Cn.
struct PropertyTest {
  bool known = false;
  std::uint32_t gc_mask = 0;  // general category mask, or 0 for a script
  UScriptCode script = USCRIPT_INVALID_CODE;

  explicit PropertyTest(const std::string& name) {
    int32_t mask = u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY_MASK, name.c_str());
    if (mask != UCHAR_INVALID_CODE) {
      gc_mask = static_cast<std::uint32_t>(mask);
      known = !(gc_mask & U_GC_CN_MASK);
      return;
    }
    int32_t sc = u_getPropertyValueEnum(UCHAR_SCRIPT, name.c_str());
    if (sc != UCHAR_INVALID_CODE) {
      script = static_cast<UScriptCode>(sc);
      known = script != USCRIPT_UNKNOWN;
    }
  }

  bool has(UChar32 cp) const {
    if (gc_mask) return (U_GET_GC_MASK(cp) & gc_mask) != 0;
    // PCRE2 (10.40 on) matches \p{script} by Script_Extensions.
    return uscript_hasScript(cp, script);
  }
};

}  // namespace

std::string pcre2_missing_members(std::string_view name) {
  PropertyTest test{std::string(name)};
  if (!test.known) return {};
  std::string out;
  const auto& cps = newer_than_pcre2();
  for (std::size_t i = 0; i < cps.size();) {
    if (!test.has(cps[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < cps.size() && cps[j + 1] == cps[j] + 1 && test.has(cps[j + 1])) ++j;
    out += fmt::format("\\x{{{:X}}}", cps[i]);
    if (j > i) out += fmt::format("-\\x{{{:X}}}", cps[j]);
    i = j + 1;
  }
  return out;
}

std::string pcre2_property_name(std::string_view name) {
  std::string n(name);
  int32_t mask = u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY_MASK, n.c_str());
  if (mask == UCHAR_INVALID_CODE) return n;
  const char* short_name =
      u_getPropertyValueName(UCHAR_GENERAL_CATEGORY_MASK, mask, U_SHORT_PROPERTY_NAME);
  return short_name ? std::string(short_name) : n;
}

}  // namespace tok::text
