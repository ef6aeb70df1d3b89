// Terminal renderings of `pinbench staged`, `pinbench staged --tune` and `pinbench pipeline`:
// the rates by method and size, the ratios the goals are about, the verdicts and the checks.
#pragma once

#include <string>

#include "framework/record.hpp"

namespace pinbench {

std::string render_staged_text(const RunRecord& record);
std::string render_staged_tune_text(const RunRecord& record);
std::string render_pipeline_text(const RunRecord& record);

}  // namespace pinbench
