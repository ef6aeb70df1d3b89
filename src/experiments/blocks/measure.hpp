// `pinbench blocks`: many scattered blocks moved by every method, both ways, from page-locked and
// pageable memory.
#pragma once

#include "experiments/blocks/plan.hpp"
#include "framework/record.hpp"
#include "measure/corrupt_hook.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::blocks {

// The byte changed is the first block's destination's.
using BlocksHooks = CorruptHook;

// Checks the plan, the SMs asked for against the device's and the memory it needs (InputError),
// then measures every direction, memory kind, cell and method; each sample timed with the host
// clock from the first call to completion and every block of it checked byte for byte. A failed
// check or CUDA call is a failed gate, not thrown.
RunRecord run_blocks(const BlocksConfig& config, const ProgressFn& progress,
                     const BlocksHooks& hooks = {});

}  // namespace pinbench::experiments::blocks
