// The calling thread's current device, switched to a copier's for the duration of a call and
// switched back after it, so the caller's own CUDA state is left as it was. `Check` throws the
// copier's own error for a failed runtime call (its signature: void(cudaError_t, const char*)).
#pragma once

#include <cuda_runtime_api.h>

namespace pinbench::transfer {

template <void (*Check)(cudaError_t, const char*)>
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    Check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) {
      Check(cudaSetDevice(device), "cudaSetDevice");
      switched_ = true;
    }
  }
  ~DeviceGuard() {
    if (switched_) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace pinbench::transfer
