// A program of the course's and the bandwidth blog's shape, in this project's words: blocking
// cudaMemcpy between malloc'd (pageable) memory and the device, both ways, at 16 to 256 MiB,
// each timed over REPS copies with the host clock, and every byte checked. Built with nvcc's
// defaults (the runtime linked statically), it is what `pinbench accel` reaches only through
// the driver's entry points. Prints one line per size and direction, then whether every byte
// came back right; exit 1 when one did not.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kReps = 10;

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  const std::size_t sizes[] = {16u << 20, 64u << 20, 256u << 20};
  const std::size_t largest = sizes[2];
  auto* src = static_cast<unsigned char*>(std::malloc(largest));
  auto* back = static_cast<unsigned char*>(std::malloc(largest));
  void* dev = nullptr;
  if (src == nullptr || back == nullptr || !check(cudaMalloc(&dev, largest), "cudaMalloc")) {
    return 2;
  }
  for (std::size_t i = 0; i < largest; ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  bool right = true;
  for (const std::size_t n : sizes) {
    for (int way = 0; way < 2; ++way) {
      const bool to_device = way == 0;
      std::memset(back, 0, n);
      if (!check(cudaMemcpy(dev, src, n, cudaMemcpyHostToDevice), "cudaMemcpy")) return 2;
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < kReps; ++r) {
        const cudaError_t e = to_device ? cudaMemcpy(dev, src, n, cudaMemcpyHostToDevice)
                                        : cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost);
        if (!check(e, "cudaMemcpy")) return 2;
      }
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kReps;
      if (to_device && !check(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost), "cudaMemcpy")) {
        return 2;
      }
      right = right && std::memcmp(back, src, n) == 0;
      std::printf("%-14s %4zu MiB  %7.2f GB/s\n", to_device ? "host to device" : "device to host",
                  n >> 20, static_cast<double>(n) / s / 1e9);
    }
  }
  std::printf(right ? "every byte right\n" : "a byte was wrong\n");
  cudaFree(dev);
  std::free(src);
  std::free(back);
  return right ? 0 : 1;
}
