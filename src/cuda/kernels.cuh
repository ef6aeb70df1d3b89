// Kernel launchers. The kernels themselves live in kernels.cu; callers see only these plain
// functions, so no other file needs nvcc.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace pinbench::cuda {

// The grid for scale_copy over n floats on the current device: enough blocks for several
// waves per SM, which keeps loads in flight (a mapped pointer's long PCIe latency needs that).
// Ask once, outside any timed region.
unsigned scale_copy_blocks(std::size_t n);

// out[i] = scale * in[i] for i < n. `in` may be device memory or a mapped host pointer.
// Reads n floats once and writes n floats once, fully coalesced. Checks the launch.
void launch_scale_copy(const float* in, float* out, std::size_t n, float scale, unsigned blocks,
                       cudaStream_t stream);

}  // namespace pinbench::cuda
