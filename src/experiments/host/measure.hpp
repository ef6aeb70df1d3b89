// `pinbench host`: every GPU of the host alone, then all of them truly together.
#pragma once

#include <cstdint>
#include <vector>

#include "framework/record.hpp"

namespace pinbench {

struct HostConfig {
  std::vector<int> devices;            // empty: every device
  std::uint64_t bytes = 256ull << 20;  // per copy
  int copies_per_round = 2;            // per GPU and direction in one round
  int rounds = 5;                      // samples per case
  bool place_on_gpu_node = true;
};

// Cases "alone" and "together" per GPU (extra.gpu), "aggregate" over all, for h2d, d2h and bidir
// from pinned and pageable memory; "peer" cases (cudaMemcpyPeerAsync, with and without peer
// access) for each ordered pair where there are two or more GPUs. NoGpuError without a GPU.
RunRecord run_host(const HostConfig& config);

}  // namespace pinbench
