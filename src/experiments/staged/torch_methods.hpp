// The methods `pinbench staged --torch` adds to a staged record: the staged engine driven from
// Python on the same tensors as PyTorch's own paths. The analysis judges the engine against
// `x.to("cuda", non_blocking=True)` from a pageable tensor and `x.pin_memory().to(...)`
// (analysis.cpp, add_torch_goals).
#pragma once

namespace pinbench::experiments::staged {

// The methods `pinbench staged --torch` records (python/pinbench/torch_paths.py measures them).
constexpr const char* kTorchPageableTo = "torch-pageable-to";     // x.to("cuda", non_blocking)
constexpr const char* kTorchPinMemoryTo = "torch-pin-memory-to";  // x.pin_memory().to("cuda")
constexpr const char* kPythonStaged = "python-staged";            // the engine from Python

}  // namespace pinbench::experiments::staged
