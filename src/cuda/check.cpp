#include "cuda/check.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "base/cuda_error_text.hpp"

namespace pinbench::cuda {
namespace {

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

std::string describe(cudaError_t err, const char* call, const char* file, int line) {
  const std::string place = std::string(base_name(file)) + ":" + std::to_string(line);
  return cuda_error_text(call, err, place.c_str());
}

}  // namespace

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  (void)cudaGetLastError();
  throw CudaError(static_cast<int>(err), describe(err, call, file, line));
}

void report_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept {
  (void)cudaGetLastError();
  std::fprintf(stderr, "pinbench: warning: %s\n", describe(err, call, file, line).c_str());
}

}  // namespace pinbench::cuda
