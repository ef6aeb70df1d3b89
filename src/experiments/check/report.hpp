// The check's section of the report model, and the pieces of it a fleet's section shares: a
// GPU's link as a cell, a chart of GPUs' rates, the table of every check of every GPU.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "experiments/check/analysis.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench::experiments::check {

void build_check_section(const RunRecord& record, ReportModel& model);

// "gen 5 x16 / gen 5 x16", under load where it was read so, else at rest and "(idle)".
std::string link_cell(const GpuInfo& gpu);
// Each labelled GPU's four rates as bars.
ChartSpec gpu_rate_chart(const std::string& id, const std::string& title,
                         const std::vector<std::pair<std::string, const GpuCheck*>>& gpus);

}  // namespace pinbench::experiments::check
