// The names of the errors a page-locking call returns, as a finding words a call's return value:
// the runtime's (cudaError_t) for a runtime call, the driver's (CUresult) for a driver call. A
// table of the numbers as CUDA's headers give them, so the analysis stays CUDA-free; a CPU test
// holds it to the headers it was built with.
#pragma once

#include <string>

namespace pinbench::experiments::doctor::findings {

struct CudaErrorName {
  int code;
  const char* runtime;  // cudaError_t's name
  const char* driver;   // CUresult's name
};

// The errors a page-locking call (cudaHostAlloc, cudaMallocHost, cudaHostRegister and their
// driver twins) is documented or seen to return, and a few of any call's.
inline constexpr CudaErrorName kCudaErrorNames[] = {
    {1, "cudaErrorInvalidValue", "CUDA_ERROR_INVALID_VALUE"},
    {2, "cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "cudaErrorInitializationError", "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "cudaErrorCudartUnloading", "CUDA_ERROR_DEINITIALIZED"},
    {100, "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE"},
    {101, "cudaErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE"},
    {304, "cudaErrorOperatingSystem", "CUDA_ERROR_OPERATING_SYSTEM"},
    {712, "cudaErrorHostMemoryAlreadyRegistered", "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {713, "cudaErrorHostMemoryNotRegistered", "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    {800, "cudaErrorNotPermitted", "CUDA_ERROR_NOT_PERMITTED"},
    {801, "cudaErrorNotSupported", "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY"},
    {999, "cudaErrorUnknown", "CUDA_ERROR_UNKNOWN"},
};

// "error 1 (cudaErrorInvalidValue)" for a runtime call, "error 1 (CUDA_ERROR_INVALID_VALUE)" for
// a driver call; "error 57" for a number the table does not name.
inline std::string cuda_error_words(bool runtime, int status) {
  for (const CudaErrorName& e : kCudaErrorNames) {
    if (e.code == status) {
      return "error " + std::to_string(status) + " (" + (runtime ? e.runtime : e.driver) + ")";
    }
  }
  return "error " + std::to_string(status);
}

}  // namespace pinbench::experiments::doctor::findings
