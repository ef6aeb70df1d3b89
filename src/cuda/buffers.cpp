#include "cuda/buffers.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <utility>

#include "cuda/check.hpp"

namespace pinbench::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  PINBENCH_CUDA_TRY(cudaMalloc(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) PINBENCH_CUDA_TRY_NOTHROW(cudaFree(ptr_));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) PINBENCH_CUDA_TRY_NOTHROW(cudaFree(ptr_));
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

const char* to_string(HostKind kind) {
  switch (kind) {
    case HostKind::kPageable:
      return "pageable";
    case HostKind::kPinned:
      return "pinned";
    case HostKind::kMapped:
      return "mapped";
  }
  return "?";
}

HostBuffer::HostBuffer(std::size_t bytes, HostKind kind) : bytes_(bytes), kind_(kind) {
  switch (kind) {
    case HostKind::kPageable: {
      constexpr std::size_t kPage = 4096;
      const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
      ptr_ = std::aligned_alloc(kPage, rounded);
      if (ptr_ == nullptr) throw std::bad_alloc();
      std::memset(ptr_, 0, bytes);
      break;
    }
    case HostKind::kPinned:
      PINBENCH_CUDA_TRY(cudaMallocHost(&ptr_, bytes));
      break;
    case HostKind::kMapped:
      PINBENCH_CUDA_TRY(cudaHostAlloc(&ptr_, bytes, cudaHostAllocMapped));
      break;
  }
}

void HostBuffer::release() noexcept {
  if (ptr_ == nullptr) return;
  if (kind_ == HostKind::kPageable) {
    std::free(ptr_);
  } else {
    PINBENCH_CUDA_TRY_NOTHROW(cudaFreeHost(ptr_));
  }
  ptr_ = nullptr;
}

HostBuffer::~HostBuffer() {
  release();
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      kind_(other.kind_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    kind_ = other.kind_;
  }
  return *this;
}

void* HostBuffer::device_pointer() const {
  if (kind_ != HostKind::kMapped) {
    throw std::logic_error("device_pointer() asked of a host buffer that is not mapped");
  }
  void* dev = nullptr;
  PINBENCH_CUDA_TRY(cudaHostGetDevicePointer(&dev, ptr_, 0));
  return dev;
}

std::string observed_memory_kind(const void* ptr) {
  cudaPointerAttributes attr{};
  PINBENCH_CUDA_TRY(cudaPointerGetAttributes(&attr, ptr));
  switch (attr.type) {
    case cudaMemoryTypeUnregistered:
      return "pageable";
    case cudaMemoryTypeHost:
      return "pinned";
    case cudaMemoryTypeDevice:
      return "device";
    case cudaMemoryTypeManaged:
      return "managed";
  }
  return "unknown";
}

}  // namespace pinbench::cuda
