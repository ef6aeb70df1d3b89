// The smallest useful program on pinbench's staged copy engine: 256 MiB of ordinary (pageable)
// memory to the GPU and back through one StagedCopier, checked byte for byte. Without a GPU it
// says so and exits 0, so it can be built and run anywhere.
#include <pinbench/staged_copy.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("staged_consumer: no CUDA device here; nothing to copy");
    return 0;
  }
  const std::size_t bytes = std::size_t{256} << 20;
  std::vector<unsigned char> data(bytes);
  std::vector<unsigned char> back(bytes, 0);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 131 + 7);

  void* device = nullptr;
  if (cudaMalloc(&device, bytes) != cudaSuccess) {
    std::puts("staged_consumer: cudaMalloc failed");
    return 1;
  }
  int status = 0;
  try {
    // Pins its staging rings once (96 MiB by default), whatever the copy sizes.
    pinbench::StagedCopier copier;
    copier.copy_to_device(device, data.data(), bytes);
    pinbench::StagedCopy back_copy = copier.copy_to_host_async(back.data(), device, bytes);
    back_copy.wait();
    status = std::memcmp(data.data(), back.data(), bytes) == 0 ? 0 : 1;
    std::printf("staged_consumer: %zu bytes there and back through %zu bytes of staging: %s\n",
                bytes, copier.staging_bytes(), status == 0 ? "identical" : "DIFFERENT");
  } catch (const std::exception& e) {
    std::printf("staged_consumer: %s\n", e.what());
    status = 1;
  }
  cudaFree(device);
  return status;
}
