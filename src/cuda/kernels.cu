#include "cuda/check.hpp"
#include "cuda/kernels.cuh"

namespace pinbench::cuda {
namespace {

constexpr unsigned kThreads = 256;

// A grid-stride loop so any n works with a grid sized to fill the device once.
__global__ void scale_copy_kernel(const float* __restrict__ in, float* __restrict__ out,
                                  std::size_t n, float scale) {
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = scale * in[i];
  }
}

}  // namespace

unsigned scale_copy_blocks(std::size_t n) {
  int device = 0;
  int sms = 0;
  PINBENCH_CUDA_TRY(cudaGetDevice(&device));
  PINBENCH_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t wanted = (n + kThreads - 1) / kThreads;
  const std::size_t cap = static_cast<std::size_t>(sms) * 32;
  const std::size_t blocks = wanted < cap ? wanted : cap;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

void launch_scale_copy(const float* in, float* out, std::size_t n, float scale, unsigned blocks,
                       cudaStream_t stream) {
  scale_copy_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n, scale);
  PINBENCH_CUDA_TRY(cudaGetLastError());
}

}  // namespace pinbench::cuda
