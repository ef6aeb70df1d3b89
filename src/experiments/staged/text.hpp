// Terminal renderings of `pinbench staged`, `pinbench staged --tune` and `pinbench pipeline`:
// the rates by method and size, the ratios the goals are about, the verdicts and the checks.
#pragma once

#include <string>

#include "experiments/staged/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench {

// Each from its record's analysis, as the model's section holds it.
std::string render_staged_text(const RunRecord& record, const StagedAnalysis& analysis);
std::string render_staged_tune_text(const RunRecord& record, const TuneAnalysis& analysis);
std::string render_pipeline_text(const RunRecord& record, const PipelineAnalysis& analysis);

}  // namespace pinbench
