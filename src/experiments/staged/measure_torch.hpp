// `pinbench staged --torch`: PyTorch's own paths between host and GPU, and the staged engine
// driven from Python, measured on the same tensors by python/pinbench/torch_paths.py and added
// to the staged record as cases of their own (methods torch-* and python-staged).
#pragma once

#include <string>

#include "experiments/staged/plan.hpp"
#include "framework/record.hpp"
#include "measure/progress.hpp"

namespace pinbench::experiments::staged {

struct StagedTorchConfig {
  std::string python = "python3";  // the interpreter that has torch
  std::string python_dir;          // the directory holding the package pinbench/ (PYTHONPATH)
  std::string library;             // libpinbench_c.so for the package; "" lets it search
};

// Runs torch_paths at `config`'s aligned sizes, directions, warm-ups and iterations with its
// engine options, after the C++ methods have freed their buffers, and appends one case per
// method, direction and size (built by the one case builder, each covered by its gate) plus the
// gate "torch/memory-kinds", to `record`; torch's and the package's versions go under
// record.config["torch"]. When the interpreter cannot run it (no torch, no GPU for torch, a
// crash), the gate "torch/run" fails with its exit status and no torch case is added.
void add_staged_torch(RunRecord& record, const StagedBenchConfig& config,
                      const StagedTorchConfig& torch, const ProgressFn& progress);

// The cases of torch_paths' JSON output `out` (its "cases" array), appended to `record` as
// add_staged_torch does. Throws InputError, naming the field, when `out` is not such output.
// Separate so the CPU tests turn recorded output into cases without a GPU or Python.
void add_torch_cases(RunRecord& record, const nlohmann::json& out);

}  // namespace pinbench::experiments::staged
