// NVTX ranges from the staged engine's own threads, in a domain of their own ("pinbench
// engine"), so `pinbench staged --trace` (or any NVTX-aware profiler) draws each host thread's
// fill and drain slices beside the copy engine's DMA. NVTX3 is header-only: with no tool
// attached a range costs a call through a null-checked pointer, so the engine keeps them on.
#pragma once

#include <nvtx3/nvtx3.hpp>

namespace pinbench::transfer {

struct EngineNvtxDomain {
  static constexpr const char* name{"pinbench engine"};
};

using EngineRange = nvtx3::scoped_range_in<EngineNvtxDomain>;

}  // namespace pinbench::transfer
