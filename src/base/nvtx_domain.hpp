// NVTX ranges in domains of pinbench's own, so a profiler groups them under their names: the
// tool's phases (a sweep case, a lesson part, a staged run) under "pinbench", and the staged
// engine's own threads under "pinbench engine", so `pinbench staged --trace` (or any NVTX-aware
// profiler) draws each host thread's fill and drain slices beside the copy engine's DMA.
//
// Header-only, needing nothing but NVTX3's headers (from the CUDA toolkit), so the installed
// transfer library and pinbench's measuring code share it without either linking the other.
// With no tool attached a range costs a call through a null-checked pointer, so the engine
// keeps its ranges on.
#pragma once

#include <nvtx3/nvtx3.hpp>

namespace pinbench {

// NVTX3 knows a domain by a type with a static `name`; this is that type for any name.
template <const char* Name>
struct NvtxDomain {
  static constexpr const char* name{Name};
};

// A range that opens at construction and closes at scope exit, in the domain called `Name`.
template <const char* Name>
using NvtxRangeIn = nvtx3::scoped_range_in<NvtxDomain<Name>>;

inline constexpr char kPhaseDomain[] = "pinbench";
inline constexpr char kEngineDomain[] = "pinbench engine";

using PhaseRange = NvtxRangeIn<kPhaseDomain>;
using EngineRange = NvtxRangeIn<kEngineDomain>;

}  // namespace pinbench
