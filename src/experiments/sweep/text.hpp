// The sweep as text for a terminal: a table per direction, what was not measured, what pinning
// costs, and the checks.
#pragma once

#include <string>

#include "experiments/sweep/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::sweep {

std::string render_sweep_text(const RunRecord& record, const SweepAnalysis& analysis);

}  // namespace pinbench::experiments::sweep
