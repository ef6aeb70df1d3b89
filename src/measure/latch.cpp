#include "measure/latch.hpp"

#include <atomic>
#include <cstdint>

#include "cuda/check.hpp"
#include "cuda/copy_kernels.cuh"

namespace pinbench {
namespace {

constexpr std::uint64_t kLatchTimeoutNs = 5'000'000'000ull;

}  // namespace

SpinLatch::SpinLatch() : flags_(64, MemoryKind::kMapped) {
  release_ = static_cast<volatile int*>(flags_.data());
  timed_out_ = static_cast<int*>(flags_.data()) + 1;
  auto* dev = static_cast<int*>(flags_.device_pointer());
  release_dev_ = dev;
  timed_out_dev_ = dev + 1;
}

void SpinLatch::arm(std::initializer_list<cudaStream_t> streams) {
  *release_ = 0;
  *timed_out_ = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (cudaStream_t s : streams)
    cuda::launch_latch(release_dev_, timed_out_dev_, kLatchTimeoutNs, s);
}

bool SpinLatch::release(std::initializer_list<cudaStream_t> streams) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *release_ = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (cudaStream_t s : streams) PINBENCH_CUDA_TRY(cudaStreamSynchronize(s));
  return *timed_out_ != 0;
}

}  // namespace pinbench
