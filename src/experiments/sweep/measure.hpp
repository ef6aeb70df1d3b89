// `pinbench sweep`: every host-memory kind, direction and copy method over a range of sizes,
// each sample checked byte for byte. Also what pinning costs (measure_pin_cost.cpp).
#pragma once

#include "experiments/sweep/plan.hpp"
#include "framework/record.hpp"
#include "measure/corrupt_hook.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::sweep {

using SweepHooks = CorruptHook;

// Checks that the plan fits the device and the host (InputError otherwise), then measures it.
RunRecord run_sweep(const SweepConfig& config, const ProgressFn& progress,
                    const SweepHooks& hooks = {});

// Cases for allocating, registering and freeing `bytes` of each pinned kind and of malloc plus
// first touch (part "pin_cost"; `samples_ms` holds the time of each repetition).
std::vector<Case> measure_pin_cost(std::uint64_t bytes, int repetitions,
                                   const ProgressFn& progress);

}  // namespace pinbench::experiments::sweep
