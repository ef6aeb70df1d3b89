// `pinbench race`: what reaches the device when the host overwrites a copy's source right after
// cudaMemcpyAsync returns.
#pragma once

#include <cstdint>

#include "experiments/race/analysis.hpp"
#include "framework/record.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::race {

// Cases of part "race" (one per mode: pinned source overwritten at once, pinned source
// overwritten after cudaStreamSynchronize, pageable source overwritten at once). Each case's
// extra holds per-trial counts of 8-byte words that arrived old, new, or neither.
RunRecord run_race(const RaceConfig& config, const ProgressFn& progress);

}  // namespace pinbench::experiments::race
