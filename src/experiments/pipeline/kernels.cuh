// The Day 54 pipeline's kernel: y = 3 x + 0.5 in place over a chunk of floats, with optional
// extra work that changes nothing. Launchers only; see kernels.cu.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace pinbench::experiments::pipeline::kernels {

// x[i] = a * x[i] + b for i < n, then `rounds` times x[i] = (x[i] + 1024) - 1024, which is exact
// for the pipeline's values and so leaves them unchanged while costing two adds each. `blocks`
// from scale_copy_blocks(n). Checks the launch.
void launch_affine(float* x, std::size_t n, float a, float b, int rounds, unsigned blocks,
                   cudaStream_t stream);

}  // namespace pinbench::experiments::pipeline::kernels
