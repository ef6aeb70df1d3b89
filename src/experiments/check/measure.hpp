// `pinbench check`: a health check of every GPU of the host, in seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/check/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::check {

// Cases of part "check" for each GPU (extra.gpu): pinned and pageable h2d and d2h, and the 4 KiB
// pinned round trip (direction "round_trip"); each GPU in machine.gpus with its link read under
// load. The verdicts are analyse_check's. NoGpuError without a usable GPU.
RunRecord run_check(const CheckConfig& config);

// The record a host without a usable GPU sends under --mpi: no GPUs, config.no_gpu says why.
RunRecord no_gpu_check_record(const CheckConfig& config, const std::string& why);

}  // namespace pinbench::experiments::check
