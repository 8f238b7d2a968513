// render_attention_svg: the picture of an AttentionReport (`tok generate
// --attn-svg`). An overview grid (layers x heads) coloured by each head's
// label and shaded by its dominant mass, with the numbers in the cells; then
// one heatmap per chosen head (query row x key position, colour = attention
// weight on a square-root scale, token labels on the axes when each cell is
// one token and the prompt is short). Hand-written SVG 1.1: no scripts, no
// external fonts or references, so it renders anywhere (rsvg-convert, browsers).
#pragma once

#include <string>
#include <vector>

#include "model/attention_report.hpp"

namespace tok::model {

struct AttentionSvgInput {
  std::string title;                // e.g. the model file and prompt length
  std::vector<std::string> tokens;  // display strings of the counted rows' tokens (may be fewer)
};

std::string render_attention_svg(const AttentionReport& report, const AttentionSvgInput& input);

}  // namespace tok::model
