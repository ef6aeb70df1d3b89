// The terminal rendering of `pinbench pipeline`: each run against its bound, the goals' verdicts
// and the checks.
#pragma once

#include <string>

#include "experiments/pipeline/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::pipeline {

std::string render_pipeline_text(const RunRecord& record, const PipelineAnalysis& analysis);

}  // namespace pinbench::experiments::pipeline
