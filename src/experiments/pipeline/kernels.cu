#include "cuda/check.hpp"
#include "experiments/pipeline/kernels.cuh"

namespace pinbench::experiments::pipeline::kernels {
namespace {

constexpr unsigned kThreads = 256;

__global__ void affine_kernel(float* __restrict__ x, std::size_t n, float a, float b, int rounds) {
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    float v = fmaf(a, x[i], b);
    // IEEE addition is not associative, so without fast-math the compiler keeps both adds.
    for (int r = 0; r < rounds; ++r) v = (v + 1024.0f) - 1024.0f;
    x[i] = v;
  }
}

}  // namespace

void launch_affine(float* x, std::size_t n, float a, float b, int rounds, unsigned blocks,
                   cudaStream_t stream) {
  affine_kernel<<<blocks, kThreads, 0, stream>>>(x, n, a, b, rounds);
  PINBENCH_CUDA_TRY(cudaGetLastError());
}

}  // namespace pinbench::experiments::pipeline::kernels
