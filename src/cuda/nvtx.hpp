// NVTX ranges in pinbench's own domain, so a profiler groups each phase under "pinbench".
#pragma once

#include <nvtx3/nvtx3.hpp>

namespace pinbench::cuda {

struct NvtxDomain {
  static constexpr const char* name{"pinbench"};
};

// A range that opens at construction and closes at scope exit.
using NvtxRange = nvtx3::scoped_range_in<NvtxDomain>;

}  // namespace pinbench::cuda
