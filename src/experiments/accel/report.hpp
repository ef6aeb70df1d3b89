// The accel record as the report model shows it: what each process of the program did, copy by
// outcome, and the routed copies by size; every printer renders these tables. No CUDA.
#pragma once

#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench::accel {

void build_accel_model(const RunRecord& record, ReportModel& model);

}  // namespace pinbench::accel
