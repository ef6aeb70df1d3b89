// The CUDA device queue (cuda_queue.hpp): cudaMemcpyAsync on the lane's stream, and
// cudaEventRecord / cudaEventQuery for the ring slots' marks.
#include "transfer/cuda_queue.hpp"

#include "base/batch_copy.hpp"
#include "base/cuda_error_text.hpp"

namespace pinbench::transfer {

std::string describe_cuda_error(const char* call, cudaError_t err) {
  (void)cudaGetLastError();
  return cuda_error_text(call, err);
}

void check_cuda(cudaError_t err, const char* call) {
  if (err != cudaSuccess)
    throw TransferFailure(static_cast<int>(err), describe_cuda_error(call, err));
}

CudaQueue::CudaQueue(int device, int depth, cudaMemcpyKind kind) : device_(device), kind_(kind) {
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags");
  events_.reserve(static_cast<std::size_t>(depth));
  for (int i = 0; i < depth; ++i) {
    cudaEvent_t e = nullptr;
    const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (err != cudaSuccess) {
      for (cudaEvent_t made : events_) (void)cudaEventDestroy(made);
      (void)cudaStreamDestroy(stream_);
      check_cuda(err, "cudaEventCreateWithFlags");
    }
    events_.push_back(e);
  }
}

CudaQueue::~CudaQueue() {
  // The lane has retired every chunk; nothing is left on the stream but finished work.
  (void)cudaStreamSynchronize(stream_);
  for (cudaEvent_t e : events_) (void)cudaEventDestroy(e);
  (void)cudaStreamDestroy(stream_);
  (void)cudaGetLastError();
}

void CudaQueue::bind_thread() {
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  // The caller's program may capture a stream into a graph in the global mode, which forbids
  // every thread calls such as cudaEventQuery; the lane's own calls touch only its own stream.
  cudaStreamCaptureMode relaxed = cudaStreamCaptureModeRelaxed;
  check_cuda(cudaThreadExchangeStreamCaptureMode(&relaxed), "cudaThreadExchangeStreamCaptureMode");
}

namespace {
// The capture mode a driving caller's thread had, put back by caller_end on the same thread.
thread_local cudaStreamCaptureMode caller_mode = cudaStreamCaptureModeGlobal;
}  // namespace

void CudaQueue::caller_begin() noexcept {
  // The caller's thread has the engine's device current (the call's DeviceGuard); like the
  // coordinator it must be free to query the lane's events while another thread captures.
  caller_mode = cudaStreamCaptureModeRelaxed;
  if (cudaThreadExchangeStreamCaptureMode(&caller_mode) != cudaSuccess) {
    (void)cudaGetLastError();
    caller_mode = cudaStreamCaptureModeRelaxed;
  }
}

void CudaQueue::caller_end() noexcept {
  cudaStreamCaptureMode mode = caller_mode;
  if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) (void)cudaGetLastError();
}

void CudaQueue::copy(void* dst, const void* src, std::size_t bytes) {
  check_cuda(cudaMemcpyAsync(dst, src, bytes, kind_, stream_), "cudaMemcpyAsync");
}

void CudaQueue::copy_batch(void* const* dsts, const void* const* srcs, const std::size_t* sizes,
                           std::size_t count) {
  if (count == 1 || batch_missing_) {
    DeviceQueue::copy_batch(dsts, srcs, sizes, count);
    return;
  }
  // Page-locked staging on one side and device memory on the other: every copy reads its source
  // in stream order, after the chunk's fill (to the device) or the device work before it.
  cudaMemcpyAttributes attr = batch_copy_attributes(kind_ == cudaMemcpyHostToDevice,
                                                    cudaMemcpySrcAccessOrderStream, device_);
  std::size_t first = 0;
  const cudaError_t err = cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &attr, &first, 1, stream_);
  if (err == cudaErrorNotSupported || err == cudaErrorCallRequiresNewerDriver) {
    (void)cudaGetLastError();
    batch_missing_ = true;
    DeviceQueue::copy_batch(dsts, srcs, sizes, count);
    return;
  }
  check_cuda(err, "cudaMemcpyBatchAsync");
}

void CudaQueue::mark(int slot) {
  check_cuda(cudaEventRecord(events_[static_cast<std::size_t>(slot)], stream_), "cudaEventRecord");
}

bool CudaQueue::reached(int slot) {
  const cudaError_t err = cudaEventQuery(events_[static_cast<std::size_t>(slot)]);
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) return false;
  throw TransferFailure(static_cast<int>(err), describe_cuda_error("cudaEventQuery", err));
}

void CudaQueue::drain() noexcept {
  (void)cudaStreamSynchronize(stream_);
  (void)cudaGetLastError();
}

}  // namespace pinbench::transfer
