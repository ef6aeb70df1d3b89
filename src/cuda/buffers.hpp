// Owning, move-only buffers: device memory, and host memory of each kind the lesson compares.
#pragma once

#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

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

enum class HostKind {
  kPageable,  // ordinary memory from the C++ allocator, touched once so its pages exist
  kPinned,    // cudaMallocHost: page-locked
  kMapped,    // cudaHostAlloc(cudaHostAllocMapped): page-locked and addressable by kernels
};

const char* to_string(HostKind kind);

class HostBuffer {
 public:
  HostBuffer() = default;
  // Allocates `bytes` of `kind`; throws CudaError (pinned, mapped) or std::bad_alloc (pageable)
  // when the memory is not there. Pageable memory is page-aligned and zeroed, which touches it.
  HostBuffer(std::size_t bytes, HostKind kind);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t size() const { return bytes_; }
  HostKind kind() const { return kind_; }
  // For kMapped: the address a kernel uses to reach this memory. Throws for other kinds.
  void* device_pointer() const;

 private:
  void release() noexcept;

  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  HostKind kind_ = HostKind::kPageable;
};

// What the driver says `ptr` is, via cudaPointerGetAttributes: "pageable" (not registered),
// "pinned" (page-locked host), "device" or "managed".
std::string observed_memory_kind(const void* ptr);

}  // namespace pinbench::cuda
