// The accel record as the report model shows it: what each process of the program did, copy by
// outcome, and the routed copies by size; every printer renders these tables. No CUDA.
#pragma once

#include "framework/experiment.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench::experiments::accel {

void build_accel_model(const RunRecord& record, ReportModel& model);

// How far B's routed rate may fall below A's before `pinbench compare` calls it worse: 20%, as
// compare's own threshold by default.
constexpr double kAccelSlower = 0.20;

// Two accel records (A before, B after), for `pinbench compare`: every direction and outcome
// with copies in either, its calls, MiB and rate in each, and B/A. B is worse (compare exits 1)
// when it routed fewer calls than A in a direction, or its routed rate there fell by more than
// kAccelSlower. Records without an accel section compare as having counted nothing.
ExperimentComparison compare_accel(const RunRecord& a, const RunRecord& b);

}  // namespace pinbench::experiments::accel
