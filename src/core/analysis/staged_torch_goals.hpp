// The goals against PyTorch's own paths (`pinbench staged --torch`): the staged engine,
// driven from Python on the same tensors, against `x.to("cuda", non_blocking=True)` from a
// pageable tensor and against `x.pin_memory().to(...)`. Judged like every staged goal, on the
// interval of each size's ratio, so noise that could flip a verdict leaves it undecided.
#pragma once

#include <cstdint>

#include "core/analysis/staged_analysis.hpp"
#include "core/record/record.hpp"

namespace pinbench {

// The methods `pinbench staged --torch` records (python/pinbench/torch_paths.py measures them).
constexpr const char* kTorchPageableTo = "torch-pageable-to";     // x.to("cuda", non_blocking)
constexpr const char* kTorchPinMemoryTo = "torch-pin-memory-to";  // x.pin_memory().to("cuda")
constexpr const char* kPythonStaged = "python-staged";            // the engine from Python

struct TorchGoals {
  double pageable_multiple = 5.0;    // the engine at this multiple of pageable .to() or better...
  double pin_memory_multiple = 1.5;  // ...and of pin_memory().to()...
  std::uint64_t from_bytes = 64ull << 20;  // ...at every size from this one up, host to device
};

// Appends the two goals to `a.goals` when the record holds torch methods; nothing otherwise.
// The engine's figure is python-staged (same process, same tensors, same clock as torch's), or
// the CLI's staged where a record has no python-staged.
void add_torch_goals(const RunRecord& record, StagedAnalysis& a, const TorchGoals& goals = {});

}  // namespace pinbench
