// Seams for the engine's tests; not part of the installed interface.
#pragma once

namespace pinbench::transfer::testing {

// The next StagedCopier construction fails its first staging allocation as if cudaHostAlloc had
// returned cudaErrorMemoryAllocation. A real failure would need more page-locked memory than a
// test should ask a shared machine for.
void fail_next_staging_allocation();

}  // namespace pinbench::transfer::testing
