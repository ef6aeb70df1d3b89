#include "cuda/check.hpp"
#include "cuda/kernels.cuh"

namespace pinbench::cuda {
namespace {

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

void launch_scale_copy(const float* in, float* out, std::size_t n, float scale,
                       cudaStream_t stream) {
  int device = 0;
  int sms = 0;
  PINBENCH_CUDA_TRY(cudaGetDevice(&device));
  PINBENCH_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  constexpr int kThreads = 256;
  // Enough blocks for several waves per SM keeps loads in flight, which is what a mapped
  // pointer (long PCIe latency) needs to reach the link's rate.
  const std::size_t wanted = (n + kThreads - 1) / kThreads;
  const std::size_t cap = static_cast<std::size_t>(sms) * 32;
  const unsigned blocks = static_cast<unsigned>(wanted < cap ? wanted : cap);
  scale_copy_kernel<<<blocks, kThreads, 0, stream>>>(in, out, n, scale);
  PINBENCH_CUDA_TRY(cudaGetLastError());
}

}  // namespace pinbench::cuda
