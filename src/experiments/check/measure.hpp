// `pinbench check`: a health check of every GPU of the host, in seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/check/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench {

struct CheckConfig {
  std::vector<int> devices;           // empty: every device
  std::uint64_t bytes = 64ull << 20;  // rate copies
  int round_trips = 1000;             // 4 KiB there and back, each timed
  CheckFloors floors;
  bool place_on_gpu_node = true;
};

// Cases of part "check" for each GPU (extra.gpu): pinned and pageable h2d and d2h, and the 4 KiB
// pinned round trip (direction "round_trip"); each GPU in machine.gpus with its link read under
// load. The verdicts are analyse_check's. NoGpuError without a usable GPU.
RunRecord run_check(const CheckConfig& config);

// The record a host without a usable GPU sends under --mpi: no GPUs, config.no_gpu says why.
RunRecord no_gpu_check_record(const CheckConfig& config, const std::string& why);

}  // namespace pinbench
