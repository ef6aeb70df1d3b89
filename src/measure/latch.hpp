// The spin-kernel latch (nvbandwidth's method), for the sampler's batches where a case allows
// it: a one-thread kernel holds each stream while a batch's warm-ups, clears, event pairs,
// copies and checks are queued, and the host then lets go, so enqueue cost never lands between a
// start and a stop event. Only for copies the driver can DMA directly (page-locked memory): a
// copy the driver stages may hold the host inside the call until the stream drains, and queued
// behind a spinning kernel it would wait for the latch's timeout.
#pragma once

#include <initializer_list>

#include <cuda_runtime_api.h>

#include "cuda/buffers.hpp"

namespace pinbench {

class SpinLatch {
 public:
  SpinLatch();  // its flags: mapped host memory, allocated once and reused for every batch

  // Queues one latch kernel on each stream.
  void arm(std::initializer_list<cudaStream_t> streams);

  // Lets the latched streams run, waits for each of `streams`, and says whether a latch gave up
  // waiting (after 5 s of GPU time), which would put enqueue cost back into the samples.
  bool release(std::initializer_list<cudaStream_t> streams);

 private:
  cuda::HostBuffer flags_;
  volatile int* release_ = nullptr;
  int* timed_out_ = nullptr;
  const volatile int* release_dev_ = nullptr;
  int* timed_out_dev_ = nullptr;
};

}  // namespace pinbench
