// A lane's device side on CUDA: one non-blocking stream for the lane's copies and one event per
// ring slot. Non-blocking, so the lane never waits on (or holds up) the legacy default stream
// that a caller may be using.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "transfer/lane.hpp"

namespace pinbench::transfer {

// "cudaMemcpyAsync failed: cudaErrorInvalidValue (invalid argument)"; clears CUDA's last error
// so the failure is not reported again by an unrelated call.
std::string describe_cuda_error(const char* call, cudaError_t err);

// Throws TransferFailure describing `err` when it is not cudaSuccess.
void check_cuda(cudaError_t err, const char* call);

class CudaQueue : public DeviceQueue {
 public:
  // Creates the stream and `depth` events on `device`; throws TransferFailure.
  CudaQueue(int device, int depth, cudaMemcpyKind kind);
  ~CudaQueue() override;
  CudaQueue(const CudaQueue&) = delete;
  CudaQueue& operator=(const CudaQueue&) = delete;

  cudaStream_t stream() const { return stream_; }

  void bind_thread() override;
  void caller_begin() noexcept override;
  void caller_end() noexcept override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  // One cudaMemcpyBatchAsync; a loop of copy() where the runtime or driver has none.
  void copy_batch(void* const* dsts, const void* const* srcs, const std::size_t* sizes,
                  std::size_t count) override;
  void mark(int slot) override;
  bool reached(int slot) override;
  void drain() noexcept override;

 private:
  int device_;
  cudaMemcpyKind kind_;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> events_;
  bool batch_missing_ = false;  // cudaMemcpyBatchAsync said it is not supported here
};

}  // namespace pinbench::transfer
