// `pinbench pipeline`: the Day 54 program, a host array through a device window chunk by chunk.
#pragma once

#include "experiments/pipeline/plan.hpp"
#include "framework/record.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::pipeline {

// Checks that the run fits (InputError), then for each stream count measures the bound (both
// copy directions at once from page-locked memory, and the kernel alone on device-resident
// data, with the same chunks) and the pipeline from each source, checking the whole result on
// the host after every run.
RunRecord run_pipeline(const PipelineConfig& config, const ProgressFn& progress);

}  // namespace pinbench::experiments::pipeline
