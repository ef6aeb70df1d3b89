// What a golden HTML file holds: the page as rendered, with its style sheet replaced by "{css}"
// (one copy lives in the renderer, not one in every golden) and every number inside an SVG
// tag's attributes replaced by "#" (chart geometry, which says nothing a reader reads; the
// figures the chart shows are in its labels and tooltips, which stay as they are).
#pragma once

#include <string>

namespace pinbench::test {

std::string normalise_html(const std::string& html);

}  // namespace pinbench::test
