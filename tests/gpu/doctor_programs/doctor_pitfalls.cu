// Small programs for `pinbench doctor`'s GPU tests: each mode commits one pitfall with counts and
// sizes the tests check exactly (tests/gpu/test_doctor_gpu.cpp), and "clean" commits none. Built
// with -g, so call sites are named by file and line. Usage: doctor_pitfalls MODE.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check.cuh"

namespace {

using doctor_programs::check;
using doctor_programs::kMiB;

__global__ void spin(unsigned long long cycles) {
  const unsigned long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

__global__ void touch(char* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    p[i] += 1;
  }
}

// 8 copies to the device and 4 back, 4 MiB each, from and to malloc'd memory on a stream, while
// a kernel runs on another stream.
int pageable_async() {
  const std::size_t bytes = 4 * kMiB;
  char* host = static_cast<char*>(std::malloc(bytes));
  std::memset(host, 1, bytes);
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  cudaStream_t copy_stream, work_stream;
  check(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&work_stream, cudaStreamNonBlocking), "stream");
  for (int i = 0; i < 8; ++i) {
    spin<<<1, 1, 0, work_stream>>>(2000000);
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, copy_stream), "h2d");
  }
  for (int i = 0; i < 4; ++i) {
    check(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, copy_stream), "d2h");
  }
  check(cudaDeviceSynchronize(), "sync");
  std::free(host);
  return 0;
}

// 5 driver-API copies of 1 MiB to the device from malloc'd memory.
int driver_async() {
  const std::size_t bytes = kMiB;
  check(cudaFree(nullptr), "init");
  char* host = static_cast<char*>(std::malloc(bytes));
  std::memset(host, 2, bytes);
  CUdeviceptr dev = 0;
  if (cuMemAlloc(&dev, bytes) != CUDA_SUCCESS) return 3;
  CUstream stream = nullptr;
  if (cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) return 3;
  for (int i = 0; i < 5; ++i) {
    if (cuMemcpyHtoDAsync(dev, host, bytes, stream) != CUDA_SUCCESS) return 3;
  }
  cuStreamSynchronize(stream);
  std::free(host);
  return 0;
}

// One cudaMemcpyBatchAsync of 4 pageable 1 MiB copies to the device.
int batch() {
  const std::size_t bytes = kMiB;
  std::vector<char*> hosts;
  std::vector<void*> devs;
  for (int i = 0; i < 4; ++i) {
    hosts.push_back(static_cast<char*>(std::malloc(bytes)));
    std::memset(hosts.back(), 3, bytes);
    void* d = nullptr;
    check(cudaMalloc(&d, bytes), "cudaMalloc");
    devs.push_back(d);
  }
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  std::vector<const void*> srcs(hosts.begin(), hosts.end());
  std::vector<std::size_t> sizes(4, bytes);
  cudaMemcpyAttributes attr{};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  std::size_t index = 0;
  check(cudaMemcpyBatchAsync(devs.data(), srcs.data(), sizes.data(), 4, &attr, &index, 1, stream),
        "batch");
  check(cudaStreamSynchronize(stream), "sync");
  return 0;
}

// 4 threads, each 5 pageable async copies of 1 MiB to the device on its own stream.
int threads() {
  check(cudaFree(nullptr), "init");
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t) {
    pool.emplace_back([] {
      const std::size_t bytes = kMiB;
      char* host = static_cast<char*>(std::malloc(bytes));
      std::memset(host, 4, bytes);
      void* dev = nullptr;
      check(cudaMalloc(&dev, bytes), "cudaMalloc");
      cudaStream_t s;
      check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
      for (int i = 0; i < 5; ++i)
        check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s), "h2d");
      check(cudaStreamSynchronize(s), "sync");
      std::free(host);
    });
  }
  for (std::thread& t : pool) t.join();
  return 0;
}

// 6 blocking copies of 2 MiB to the device from malloc'd memory, in a loop.
int sync_loop() {
  const std::size_t bytes = 2 * kMiB;
  char* host = static_cast<char*>(std::malloc(bytes));
  std::memset(host, 5, bytes);
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  for (int i = 0; i < 6; ++i) check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "h2d");
  std::free(host);
  return 0;
}

// 5 rounds of cudaMallocHost(1 MiB), one pinned async copy, cudaFreeHost.
int alloc_churn() {
  const std::size_t bytes = kMiB;
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  for (int i = 0; i < 5; ++i) {
    void* host = nullptr;
    check(cudaMallocHost(&host, bytes), "cudaMallocHost");
    std::memset(host, 6, bytes);
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, nullptr), "h2d");
    check(cudaDeviceSynchronize(), "sync");
    check(cudaFreeHost(host), "cudaFreeHost");
  }
  return 0;
}

// 64 MiB of managed memory written on the host, then by a kernel, then read on the host.
int managed() {
  const std::size_t bytes = 64 * kMiB;
  char* p = nullptr;
  check(cudaMallocManaged(&p, bytes), "cudaMallocManaged");
  std::memset(p, 7, bytes);
  touch<<<256, 256>>>(p, bytes);
  check(cudaDeviceSynchronize(), "sync");
  long sum = 0;
  for (std::size_t i = 0; i < bytes; i += 4096) sum += p[i];
  check(cudaFree(p), "cudaFree");
  return sum > 0 ? 0 : 1;
}

// Page-locked buffers allocated once and reused: 10 copies each way of 4 MiB. No finding.
int clean() {
  const std::size_t bytes = 4 * kMiB;
  void* host = nullptr;
  check(cudaMallocHost(&host, bytes), "cudaMallocHost");
  std::memset(host, 8, bytes);
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (int i = 0; i < 10; ++i) {
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s), "h2d");
    check(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s), "d2h");
  }
  check(cudaStreamSynchronize(s), "sync");
  check(cudaFreeHost(host), "cudaFreeHost");
  return 0;
}

// 3 pageable async copies of 1 MiB, then a segmentation fault.
int crash() {
  const std::size_t bytes = kMiB;
  char* host = static_cast<char*>(std::malloc(bytes));
  std::memset(host, 9, bytes);
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  for (int i = 0; i < 3; ++i)
    check(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, nullptr), "h2d");
  check(cudaDeviceSynchronize(), "sync");
  std::raise(SIGSEGV);
  return 0;
}

// Copy-heavy, for the overhead figure: 20000 page-locked async copies of 64 KiB and 1000 of
// 4 MiB, the small ones synchronised every 100.
int heavy() {
  void* host = nullptr;
  check(cudaMallocHost(&host, 4 * kMiB), "cudaMallocHost");
  void* dev = nullptr;
  check(cudaMalloc(&dev, 4 * kMiB), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (int i = 0; i < 20000; ++i) {
    check(cudaMemcpyAsync(dev, host, 64 * 1024, cudaMemcpyHostToDevice, s), "h2d");
    if (i % 100 == 99) check(cudaStreamSynchronize(s), "sync");
  }
  for (int i = 0; i < 1000; ++i)
    check(cudaMemcpyAsync(dev, host, 4 * kMiB, cudaMemcpyHostToDevice, s), "h2d");
  check(cudaStreamSynchronize(s), "sync");
  return 0;
}

// 64 MiB page-locked once, of which five 4 MiB copies to the device use the first 4 MiB:
// 60 MiB held beyond use.
int pinned_unused() {
  const std::size_t held = 64 * kMiB, used = 4 * kMiB;
  void* host = nullptr;
  check(cudaHostAlloc(&host, held, cudaHostAllocDefault), "cudaHostAlloc");
  std::memset(host, 10, used);
  void* dev = nullptr;
  check(cudaMalloc(&dev, used), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (int i = 0; i < 5; ++i)
    check(cudaMemcpyAsync(dev, host, used, cudaMemcpyHostToDevice, s), "h2d");
  check(cudaStreamSynchronize(s), "sync");
  check(cudaFreeHost(host), "cudaFreeHost");
  return 0;
}

// A 1 MiB page-locked buffer at start-up and one copy from it; then, with the copies begun, a
// 256 MiB cudaHostAlloc (well over 1 ms) and one copy of all of it.
int slow_pin() {
  void* small = nullptr;
  check(cudaMallocHost(&small, kMiB), "cudaMallocHost");
  void* dev = nullptr;
  check(cudaMalloc(&dev, 256 * kMiB), "cudaMalloc");
  check(cudaMemcpy(dev, small, kMiB, cudaMemcpyHostToDevice), "h2d");
  void* big = nullptr;
  check(cudaHostAlloc(&big, 256 * kMiB, cudaHostAllocDefault), "cudaHostAlloc");
  std::memset(big, 11, 256 * kMiB);
  check(cudaMemcpy(dev, big, 256 * kMiB, cudaMemcpyHostToDevice), "h2d");
  check(cudaFreeHost(big), "cudaFreeHost");
  check(cudaFreeHost(small), "cudaFreeHost");
  return 0;
}

// 2000 page-locked copies of 4 KiB to the device, one cudaMemcpyAsync each, one synchronisation
// after them: a storm of small copies.
int storm() {
  const std::size_t each = 4096, count = 2000;
  void* host = nullptr;
  check(cudaMallocHost(&host, each * count), "cudaMallocHost");
  std::memset(host, 12, each * count);
  char* dev = nullptr;
  check(cudaMalloc(&dev, each * count), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (std::size_t i = 0; i < count; ++i) {
    check(cudaMemcpyAsync(dev + i * each, static_cast<char*>(host) + i * each, each,
                          cudaMemcpyHostToDevice, s),
          "h2d");
  }
  check(cudaStreamSynchronize(s), "sync");
  check(cudaFreeHost(host), "cudaFreeHost");
  return 0;
}

// 10 page-locked copies of 1 MiB to the device, each followed by cudaStreamSynchronize.
int sync_each() {
  void* host = nullptr;
  check(cudaMallocHost(&host, kMiB), "cudaMallocHost");
  std::memset(host, 13, kMiB);
  void* dev = nullptr;
  check(cudaMalloc(&dev, kMiB), "cudaMalloc");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (int i = 0; i < 10; ++i) {
    check(cudaMemcpyAsync(dev, host, kMiB, cudaMemcpyHostToDevice, s), "h2d");
    check(cudaStreamSynchronize(s), "sync");
  }
  check(cudaFreeHost(host), "cudaFreeHost");
  return 0;
}

// 6 cudaMemcpyAsync of 2 MiB from the device into malloc'd memory, one synchronisation after.
int pageable_d2h() {
  const std::size_t bytes = 2 * kMiB;
  char* host = static_cast<char*>(std::malloc(bytes));
  std::memset(host, 14, bytes);
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  check(cudaMemset(dev, 1, bytes), "cudaMemset");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (int i = 0; i < 6; ++i)
    check(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s), "d2h");
  check(cudaStreamSynchronize(s), "sync");
  std::free(host);
  return 0;
}

// A registration that fails on purpose, then 4 blocking copies of 2 MiB to the device from the
// range it was to lock, which are pageable. 8 MiB mapped read-only, registered with
// cudaHostRegisterDefault (the driver needs cudaHostRegisterReadOnly to lock read-only memory);
// where that is allowed after all (a GPU that reads host page tables), 8 MiB of a 16 MiB
// registration of which the last 8 MiB are not mapped. Exit 4 when neither fails.
int failed_register() {
  const std::size_t bytes = 8 * kMiB, each = 2 * kMiB;
  check(cudaFree(nullptr), "init");
  void* dev = nullptr;
  check(cudaMalloc(&dev, bytes), "cudaMalloc");
  char* host = static_cast<char*>(
      mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0));
  if (host == MAP_FAILED) return 3;
  cudaError_t e = cudaHostRegister(host, bytes, cudaHostRegisterDefault);
  if (e == cudaSuccess) {
    check(cudaHostUnregister(host), "cudaHostUnregister");
    munmap(host, bytes);
    host = static_cast<char*>(mmap(nullptr, 2 * bytes, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0));
    if (host == MAP_FAILED) return 3;
    munmap(host + bytes, bytes);  // the registration below runs past the mapping
    e = cudaHostRegister(host, 2 * bytes, cudaHostRegisterDefault);
    if (e == cudaSuccess) return 4;
  }
  std::printf("cudaHostRegister failed as meant: %s\n", cudaGetErrorName(e));
  (void)cudaGetLastError();
  for (std::size_t at = 0; at < bytes; at += each) {
    check(cudaMemcpy(static_cast<char*>(dev) + at, host + at, each, cudaMemcpyHostToDevice), "h2d");
  }
  munmap(host, bytes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "pageable-async") return pageable_async();
  if (mode == "driver-async") return driver_async();
  if (mode == "batch") return batch();
  if (mode == "threads") return threads();
  if (mode == "sync-loop") return sync_loop();
  if (mode == "alloc-churn") return alloc_churn();
  if (mode == "managed") return managed();
  if (mode == "clean") return clean();
  if (mode == "crash") return crash();
  if (mode == "heavy") return heavy();
  if (mode == "exit7") return 7;
  if (mode == "pinned-unused") return pinned_unused();
  if (mode == "slow-pin") return slow_pin();
  if (mode == "storm") return storm();
  if (mode == "sync-each") return sync_each();
  if (mode == "pageable-d2h") return pageable_d2h();
  if (mode == "failed-register") return failed_register();
  std::fprintf(stderr, "usage: doctor_pitfalls MODE\n");
  return 2;
}
