// `pinbench host`: every GPU of the host alone, then all of them truly together.
#pragma once

#include <cstdint>
#include <vector>

#include "experiments/host/analysis.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::host {

// Cases "alone" and "together" per GPU (extra.gpu), "aggregate" over all, for h2d, d2h and bidir
// from pinned and pageable memory; "peer" cases (cudaMemcpyPeerAsync, with and without peer
// access) for each ordered pair where there are two or more GPUs. NoGpuError without a GPU.
RunRecord run_host(const HostConfig& config);

}  // namespace pinbench::experiments::host
