// Owning, move-only buffers: device memory, and host memory of every kind pinbench compares.
#pragma once

#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

#include "framework/memory_kind.hpp"

namespace pinbench::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);  // cudaMalloc
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t size() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Host memory of one MemoryKind (framework/memory_kind.hpp names them all):
//   pageable        page-aligned from the C allocator, zeroed so every page exists
//   pageable-thp    2 MiB aligned, madvise(MADV_HUGEPAGE) before it is zeroed
//   pinned          cudaMallocHost
//   registered      pageable memory, zeroed, then cudaHostRegister(Mapped | Portable)
//   write-combined  cudaHostAlloc(WriteCombined | Mapped): fast for the GPU to read, slow for
//                   the CPU to read
//   mapped          cudaHostAlloc(Mapped)
//   managed         cudaMallocManaged, zeroed on the host so its pages start there

class HostBuffer {
 public:
  HostBuffer() = default;
  // Allocates `bytes` of `kind`; throws CudaError (CUDA allocations) or std::bad_alloc (the C
  // allocator) when the memory is not there, and releases anything half-made first.
  HostBuffer(std::size_t bytes, MemoryKind kind);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t size() const { return bytes_; }
  MemoryKind kind() const { return kind_; }
  // The address a kernel uses to reach this memory: for page-locked kinds the mapped device
  // address, for managed memory the pointer itself. Throws std::logic_error for pageable kinds
  // (a kernel can reach those only where the device reports pageable memory access).
  void* device_pointer() const;

 private:
  void release() noexcept;

  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  MemoryKind kind_ = MemoryKind::kPageable;
};

// What the driver says `ptr` is, via cudaPointerGetAttributes: "pageable" (not registered),
// "pinned" (page-locked host), "device" or "managed".
std::string observed_memory_kind(const void* ptr);

// What observed_memory_kind() should say for memory of `kind`.
std::string expected_observed_kind(MemoryKind kind);

}  // namespace pinbench::cuda
