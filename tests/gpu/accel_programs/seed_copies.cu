// A program of the course's and the bandwidth blog's shape, in this project's words: blocking
// cudaMemcpy between malloc'd (pageable) memory and the device, both ways, at 16 MiB to 1 GiB,
// then the same with cudaMemcpyAsync on a stream of its own and a synchronization after each,
// each timed over kReps copies with the host clock, and every byte checked. Built with nvcc's
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
  const std::size_t sizes[] = {16u << 20, 64u << 20, 256u << 20, 1024u << 20};
  const std::size_t largest = sizes[3];
  auto* src = static_cast<unsigned char*>(std::malloc(largest));
  auto* back = static_cast<unsigned char*>(std::malloc(largest));
  void* dev = nullptr;
  if (src == nullptr || back == nullptr || !check(cudaMalloc(&dev, largest), "cudaMalloc")) {
    return 2;
  }
  for (std::size_t i = 0; i < largest; ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  cudaStream_t stream = nullptr;
  if (!check(cudaStreamCreate(&stream), "cudaStreamCreate")) return 2;
  bool right = true;
  for (int mode = 0; mode < 2; ++mode) {
    const bool async = mode == 1;
    for (const std::size_t n : sizes) {
      for (int way = 0; way < 2; ++way) {
        const bool to_device = way == 0;
        std::memset(back, 0, n);
        if (!check(cudaMemcpy(dev, src, n, cudaMemcpyHostToDevice), "cudaMemcpy")) return 2;
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < kReps; ++r) {
          void* to = to_device ? dev : static_cast<void*>(back);
          const void* from = to_device ? static_cast<const void*>(src) : dev;
          const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
          const cudaError_t e =
              async ? cudaMemcpyAsync(to, from, n, kind, stream) : cudaMemcpy(to, from, n, kind);
          if (!check(e, async ? "cudaMemcpyAsync" : "cudaMemcpy")) return 2;
          if (async && !check(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) return 2;
        }
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kReps;
        if (to_device && !check(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost), "cudaMemcpy")) {
          return 2;
        }
        right = right && std::memcmp(back, src, n) == 0;
        std::printf(
            "%-14s %-15s %4zu MiB  %7.2f GB/s\n", to_device ? "host to device" : "device to host",
            async ? "cudaMemcpyAsync" : "cudaMemcpy", n >> 20, static_cast<double>(n) / s / 1e9);
      }
    }
  }
  cudaStreamDestroy(stream);
  std::printf(right ? "every byte right\n" : "a byte was wrong\n");
  cudaFree(dev);
  std::free(src);
  std::free(back);
  return right ? 0 : 1;
}
