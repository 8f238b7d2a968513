// The five characters XML and HTML text and attributes must escape, shared
// by every page and chart tok writes (compare reports, the show page,
// attention SVGs); each writer adds its own rule for control bytes.
#pragma once

namespace tok {

// "&amp;", "&lt;", "&gt;", "&quot;" or "&#39;" for c; nullptr for any other byte.
inline const char* xml_entity(char c) {
  switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return nullptr;
  }
}

}  // namespace tok
