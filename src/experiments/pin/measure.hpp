// `pinbench pin`: every way of getting page-locked memory, measured at each size with a
// neighbouring process timing its own CUDA calls meanwhile (the record's layout: analysis.hpp).
#pragma once

#include "experiments/pin/analysis.hpp"
#include "framework/record.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::pin {

// The pin record (see analysis.hpp). Sizes or methods past the host's limits are refused before
// anything is pinned and listed in the record's section. NoGpuError without a GPU.
RunRecord run_pin(const PinConfig& config, const ProgressFn& progress = {});

}  // namespace pinbench::experiments::pin
