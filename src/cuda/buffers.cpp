#include "cuda/buffers.hpp"

#include <sys/mman.h>

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

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kHugePage = 2 << 20;

void* aligned_zeroed(std::size_t bytes, std::size_t alignment, bool huge) {
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (p == nullptr) throw std::bad_alloc();
  // Ask for huge pages before the first touch; the kernel may still say no (THP "never").
  if (huge) (void)madvise(p, rounded, MADV_HUGEPAGE);
  std::memset(p, 0, bytes);
  return p;
}

}  // namespace

HostBuffer::HostBuffer(std::size_t bytes, MemoryKind kind) : bytes_(bytes), kind_(kind) {
  switch (kind) {
    case MemoryKind::kPageable:
      ptr_ = aligned_zeroed(bytes, kPage, false);
      break;
    case MemoryKind::kPageableThp:
      ptr_ = aligned_zeroed(bytes, kHugePage, true);
      break;
    case MemoryKind::kPinned:
      PINBENCH_CUDA_TRY(cudaMallocHost(&ptr_, bytes));
      break;
    case MemoryKind::kRegistered: {
      void* p = aligned_zeroed(bytes, kPage, false);
      const cudaError_t err =
          cudaHostRegister(p, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
      if (err != cudaSuccess) {
        std::free(p);
        throw_cuda_error(err, "cudaHostRegister(p, bytes, Mapped | Portable)", __FILE__, __LINE__);
      }
      ptr_ = p;
      break;
    }
    case MemoryKind::kWriteCombined:
      PINBENCH_CUDA_TRY(
          cudaHostAlloc(&ptr_, bytes, cudaHostAllocWriteCombined | cudaHostAllocMapped));
      break;
    case MemoryKind::kMapped:
      PINBENCH_CUDA_TRY(cudaHostAlloc(&ptr_, bytes, cudaHostAllocMapped));
      break;
    case MemoryKind::kManaged:
      PINBENCH_CUDA_TRY(cudaMallocManaged(&ptr_, bytes, cudaMemAttachGlobal));
      std::memset(ptr_, 0, bytes);
      break;
  }
}

void HostBuffer::release() noexcept {
  if (ptr_ == nullptr) return;
  switch (kind_) {
    case MemoryKind::kPageable:
    case MemoryKind::kPageableThp:
      std::free(ptr_);
      break;
    case MemoryKind::kRegistered:
      PINBENCH_CUDA_TRY_NOTHROW(cudaHostUnregister(ptr_));
      std::free(ptr_);
      break;
    case MemoryKind::kManaged:
      PINBENCH_CUDA_TRY_NOTHROW(cudaFree(ptr_));
      break;
    case MemoryKind::kPinned:
    case MemoryKind::kWriteCombined:
    case MemoryKind::kMapped:
      PINBENCH_CUDA_TRY_NOTHROW(cudaFreeHost(ptr_));
      break;
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
  if (kind_ == MemoryKind::kManaged) return ptr_;
  if (!is_page_locked(kind_)) {
    throw std::logic_error("device_pointer() asked of pageable memory");
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

namespace pinbench::cuda {

std::string expected_observed_kind(MemoryKind kind) {
  if (kind == MemoryKind::kManaged) return "managed";
  return is_page_locked(kind) ? "pinned" : "pageable";
}

}  // namespace pinbench::cuda
