// `pinbench blocks --beside gemm`: a single-precision GEMM through cuBLAS, loaded at run time with
// dlopen() as CUPTI is (cuda/cupti_api.hpp), so pinbench neither links cuBLAS nor needs it to
// start: only this kernel needs it, and a machine without it refuses `--beside gemm` in one line.
// cuBLAS takes the stream pinbench's static runtime made: both sit on the device's primary
// context, where a stream is the driver's handle.
#pragma once

#include <memory>
#include <string>

#include <cuda_runtime_api.h>

#include "cuda/buffers.hpp"

namespace pinbench::experiments::blocks {

class CublasGemm {
 public:
  // Loads cuBLAS (PINBENCH_CUBLAS, a file, else libcublas.so.13, .12, then libcublas.so) and
  // makes a handle; throws InputError saying what was tried when none loads or binds.
  CublasGemm();
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // C = A x B for square matrices of `n` floats a side (allocated on first use of each size),
  // queued on `stream`.
  void run(int n, cudaStream_t stream);
  std::string library() const { return library_; }

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  std::string library_;
  int n_ = 0;
  cuda::DeviceBuffer a_, b_, c_;
};

}  // namespace pinbench::experiments::blocks
