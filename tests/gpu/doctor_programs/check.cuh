// What doctor's test programs (doctor_pitfalls.cu, doctor_ends.cu) share: sizes and a CUDA call
// checked, a failure ending the program with status 3 and the call named.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace doctor_programs {

constexpr std::size_t kMiB = std::size_t{1} << 20;

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

}  // namespace doctor_programs
