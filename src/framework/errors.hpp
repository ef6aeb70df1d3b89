// Error types shared by every layer, and the exit codes they map to.
//
// Library code never calls exit(): it throws one of these, and main() turns the exception into
// one line on stderr and the documented exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace pinbench {

enum class ExitCode : int {
  kSuccess = 0,
  kCheckFailed = 1,  // a correctness gate or a check failed
  kBadInput = 2,     // bad usage or bad input (flags, sizes, files)
  kNoGpu = 3,        // no usable GPU where one is required
  kCudaFailed = 4,   // a CUDA call failed on a usable GPU
  // compare: the two records were measured under different conditions, so neither is judged
  kNotComparable = 5,
};

// Bad usage or input: a malformed size, a missing or foreign file, an impossible request.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run needs a GPU and there is none that works.
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pinbench

namespace pinbench {

// A CUDA call failed on a GPU that is there (exit 4; no GPU at all is NoGpuError, exit 3).
// Defined here, without CUDA types, so code with no CUDA include path can catch it; the CUDA
// layer throws it with the call, file, line and CUDA's name for the error, and `code` is the
// cudaError_t itself.
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

}  // namespace pinbench
