// What the simulated-runtime tests of the staged engine share (test_staged_engine_sim.cpp, and
// test_driver_backend_sim.cpp, the same engine through accel's driver backend): buffers made and
// freed with the simulated runtime, a pattern to copy, and rings small enough that a few MiB
// cross several chunks.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "framework/pattern.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench {

inline constexpr std::size_t kKiB = 1024;
inline constexpr std::size_t kMiB = 1024 * 1024;

struct DeviceMemory {
  explicit DeviceMemory(std::size_t n) : bytes(n) { EXPECT_EQ(cudaMalloc(&ptr, n), cudaSuccess); }
  ~DeviceMemory() { cudaFree(ptr); }
  char* data() const { return static_cast<char*>(ptr); }
  void* ptr = nullptr;
  std::size_t bytes;
};

struct PinnedMemory {
  explicit PinnedMemory(std::size_t n) { EXPECT_EQ(cudaMallocHost(&ptr, n), cudaSuccess); }
  ~PinnedMemory() { cudaFreeHost(ptr); }
  char* data() const { return static_cast<char*>(ptr); }
  void* ptr = nullptr;
};

struct SimStream {
  SimStream() { cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); }
  ~SimStream() { cudaStreamDestroy(s); }
  cudaStream_t s = nullptr;
};

inline std::vector<char> pattern(std::size_t n, std::uint64_t seed) {
  std::vector<char> v(n);
  fill_pattern(v.data(), n, seed);
  return v;
}

inline StagedCopyOptions small_rings() {
  StagedCopyOptions o;
  o.to_device = {256 * kKiB, 3, 3};
  o.to_host = {128 * kKiB, 4, 2};
  o.edge_chunk_bytes = 16 * kKiB;
  o.to_device.direct_below_bytes = o.to_host.direct_below_bytes = 0;
  return o;
}

}  // namespace pinbench
