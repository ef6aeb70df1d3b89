// Turning failed CUDA calls into exceptions that say what failed and where.
//
//   PINBENCH_CUDA_TRY(cudaMemcpy(...));        // throws pinbench::CudaError
//   PINBENCH_CUDA_TRY_NOTHROW(cudaFree(p));    // for destructors: reports on stderr, never throws
#pragma once

#include <cuda_runtime_api.h>

#include "framework/errors.hpp"

namespace pinbench::cuda {

// Clears CUDA's last-error slot (so the next check does not see this failure again) and throws
// a CudaError naming the call, the place and the error.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

// Reports a failure from a context that cannot throw.
void report_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept;

}  // namespace pinbench::cuda

#define PINBENCH_CUDA_TRY(call)                                                     \
  do {                                                                              \
    const cudaError_t pinbench_err_ = (call);                                       \
    if (pinbench_err_ != cudaSuccess) {                                             \
      ::pinbench::cuda::throw_cuda_error(pinbench_err_, #call, __FILE__, __LINE__); \
    }                                                                               \
  } while (0)

#define PINBENCH_CUDA_TRY_NOTHROW(call)                                              \
  do {                                                                               \
    const cudaError_t pinbench_err_ = (call);                                        \
    if (pinbench_err_ != cudaSuccess) {                                              \
      ::pinbench::cuda::report_cuda_error(pinbench_err_, #call, __FILE__, __LINE__); \
    }                                                                                \
  } while (0)
