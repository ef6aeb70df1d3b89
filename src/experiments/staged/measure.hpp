// `pinbench staged`: the staged copy engine against every other way of moving pageable memory,
// and `pinbench staged --tune`: the engine alone over a grid of ring shapes.
#pragma once

#include "experiments/staged/plan.hpp"
#include "framework/record.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::staged {

// Checks that the run fits the device and the host (InputError), then measures every method,
// direction and size, each sample timed with the host clock from the call to completion and
// checked byte for byte. A failed check or CUDA call is recorded as a failed gate, not thrown.
RunRecord run_staged(const StagedBenchConfig& config, const ProgressFn& progress);

// The staged method alone, for every ring shape of the grid, in each direction and at each
// size. Each shape's last sample is checked byte for byte.
RunRecord run_staged_tune(const StagedTuneConfig& config, const ProgressFn& progress);

}  // namespace pinbench::experiments::staged
