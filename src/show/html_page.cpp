#include "show/html_page.hpp"

#include <fmt/format.h>

#include "core/number_format.hpp"
#include "show/visible_text.hpp"
#include "text/escape.hpp"

namespace tok::show {
namespace {

constexpr std::string_view kStyle = R"(
body{font:15px/1.5 system-ui,sans-serif;margin:1.5em 2em;color:#222;background:#fcfcfc}
h1{font-size:1.3em;margin:0 0 .2em}h2{font-size:1.05em;margin:1.2em 0 .2em}section>h2{margin-top:.2em}
.meta,.note{color:#666}.note{margin:.5em 0}
.cols{display:flex;gap:1.5em;align-items:flex-start}.cols>section{flex:1;min-width:0}
.tokens{font:14px/1.9 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;
 word-break:break-all;border:1px solid #ddd;background:#fff;padding:.6em;border-radius:4px}
.tok{border-radius:2px;cursor:default}
.c0{background:#d7d7ff}.c1{background:#d7ffd7}.c2{background:#ffd7af}
.c3{background:#afd7ff}.c4{background:#ffd7ff}.c5{background:#ffffd7}
.tok.same,.tok:hover{outline:2px solid #c00;outline-offset:-1px}
.ws,.zw,.ctl{color:#999}.hex{color:#c00;font-weight:bold}.special{font-weight:bold;text-decoration:underline}
#info{position:sticky;top:0;background:#333;color:#fff;padding:.3em .6em;border-radius:4px;
 font:13px ui-monospace,monospace;min-height:1.3em;margin:.5em 0}
table{border-collapse:collapse;margin:.3em 0 1em}td{padding:.15em .8em .15em 0;vertical-align:top}
td.v{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.n{color:#666}
)";

// Hover: the details of the token under the pointer in the info bar, and
// every token with the same id in that view outlined.
constexpr std::string_view kScript = R"(
(function(){
  var info=document.getElementById('info');
  var toks=document.querySelectorAll('span.tok');
  document.body.setAttribute('data-token-spans',String(toks.length));
  var marked=[];
  document.addEventListener('mouseover',function(e){
    var t=e.target.closest?e.target.closest('span.tok'):null;
    if(!t)return;
    var view=t.closest('.tokens');
    var index=Array.prototype.indexOf.call(view.children,t);
    info.textContent=view.getAttribute('data-encoding')+' token '+index+' \u00b7 '+
      t.getAttribute('title').split('\n').join(' \u00b7 ');
    marked.forEach(function(m){m.classList.remove('same');});
    marked=Array.prototype.slice.call(view.querySelectorAll('span.tok[data-id="'+t.getAttribute('data-id')+'"]'));
    marked.forEach(function(m){m.classList.add('same');});
  });
  document.body.setAttribute('data-ready','1');
})();
)";

const char* glyph_class(GlyphKind kind) {
  switch (kind) {
    case GlyphKind::kText: return nullptr;
    case GlyphKind::kSpace:
    case GlyphKind::kTab:
    case GlyphKind::kNewline: return "ws";
    case GlyphKind::kControl: return "ctl";
    case GlyphKind::kZeroWidth: return "zw";
    case GlyphKind::kBytes: return "hex";
  }
  return nullptr;
}

void append_token(std::string& out, const Tokenization& t, std::size_t k) {
  const Span& s = t.spans[k];
  std::string_view bytes = std::string_view(t.text).substr(s.offset, s.length);
  // Kept short: a page holds one of these per token. The hover bar adds the
  // encoding and the token's index.
  std::string title =
      fmt::format("id {}\nbytes {}\noffset {}", s.id, hex_bytes(bytes, " "), s.offset);
  std::vector<Glyph> glyphs = visible_glyphs(bytes);
  bool partial = false;
  for (const Glyph& g : glyphs) partial |= g.kind == GlyphKind::kBytes;
  out += fmt::format("<span class=\"tok c{}{}{}\" data-id=\"{}\" title=\"{}\">", k % 6,
                     s.special ? " special" : "", partial ? " partial" : "", s.id,
                     text::escape_markup(title));
  for (const Glyph& g : glyphs) {
    const char* cls = glyph_class(g.kind);
    if (cls) out += fmt::format("<span class=\"{}\">", cls);
    out += text::escape_markup(g.text);
    if (cls) out += "</span>";
    if (g.kind == GlyphKind::kNewline) out += '\n';
  }
  out += "</span>";
}

void append_view(std::string& out, const PageView& v) {
  const Tokenization& t = *v.tokens;
  out += fmt::format("<section><h2>{} &middot; {} tokens</h2>\n", text::escape_markup(t.encoding),
                     t.spans.size());
  if (v.shown < t.spans.size()) {
    std::size_t shown_bytes =
        v.shown ? t.spans[v.shown - 1].offset + t.spans[v.shown - 1].length : 0;
    out += fmt::format(
        "<p class=\"note\">Showing the first {} of {} tokens ({} of {} bytes); {} bytes are left "
        "out. The summary covers the whole input.</p>\n",
        v.shown, t.spans.size(), shown_bytes, t.text.size(), t.text.size() - shown_bytes);
  }
  out +=
      fmt::format("<div class=\"tokens\" data-encoding=\"{}\">", text::escape_markup(t.encoding));
  for (std::size_t k = 0; k < v.shown; ++k) append_token(out, t, k);
  out += "</div></section>\n";
}

void append_summary(std::string& out, const std::vector<SummarySection>& sections) {
  for (const auto& s : sections) {
    out += fmt::format("<h2>{}</h2>\n<table class=\"summary\">\n", text::escape_markup(s.title));
    for (const auto& r : s.rows) {
      out += fmt::format("<tr><td>{}</td><td class=\"v\">{}</td><td class=\"n\">{}</td></tr>\n",
                         text::escape_markup(r.label), text::escape_markup(r.value),
                         text::escape_markup(r.note));
    }
    out += "</table>\n";
    if (!s.sentence.empty()) out += fmt::format("<p>{}</p>\n", text::escape_markup(s.sentence));
  }
}

}  // namespace

std::string render_page(const PageInput& in) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n";
  out += fmt::format("<title>tok show: {}</title>\n<style>{}</style></head>\n<body>\n",
                     text::escape_markup(in.source), kStyle);
  out +=
      fmt::format("<h1>tok show</h1>\n<p class=\"meta\">{}</p>\n", text::escape_markup(in.source));
  out += "<div id=\"info\">Hover a token to see its id, bytes and offset.</div>\n";
  out += in.views.size() > 1 ? "<div class=\"cols\">\n" : "<div>\n";
  for (const PageView& v : in.views) append_view(out, v);
  out += "</div>\n";
  append_summary(out, in.summary);
  out += fmt::format("<script>{}</script>\n</body></html>\n", kScript);
  return out;
}

}  // namespace tok::show
