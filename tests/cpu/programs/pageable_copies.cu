// A user's first CUDA program, for the CPU tests of doctor and accel (test_unseen_cuda.cpp): one
// device buffer, then ten copies of 1 MiB from pageable memory with cudaMemcpyAsync, the runtime
// linked statically as nvcc links it by default. It prints what CUDA answered to each call and
// exits 1 when one failed, 0 otherwise. On a machine without a CUDA driver every call fails
// ("CUDA driver version is insufficient for CUDA runtime version"): the program did call CUDA,
// and doctor and accel must say they could not see it, never that it made no CUDA calls.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

namespace {

bool said(const char* call, cudaError_t err) {
  std::printf("%s: %s\n", call, cudaGetErrorString(err));
  return err == cudaSuccess;
}

}  // namespace

int main() {
  constexpr size_t kBytes = size_t{1} << 20;
  void* device = nullptr;
  bool ok = said("cudaMalloc", cudaMalloc(&device, kBytes));
  std::vector<char> host(kBytes, 7);
  for (int i = 0; i < 10; ++i) {
    ok &= said("cudaMemcpyAsync",
               cudaMemcpyAsync(device, host.data(), kBytes, cudaMemcpyHostToDevice, nullptr));
  }
  ok &= said("cudaDeviceSynchronize", cudaDeviceSynchronize());
  if (device != nullptr) cudaFree(device);
  return ok ? 0 : 1;
}
