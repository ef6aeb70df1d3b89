// Kernels the sweep needs around its copies: a latch that holds a stream until the host lets go,
// an SM copy that reads or writes host memory through a pointer, and a fill and a compare that
// clear and check destinations without leaving the stream. Launchers only; see copy_kernels.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace pinbench::cuda {

// Spins on `*release` (in mapped host memory) until it is non-zero or `timeout_ns` of GPU time
// has passed; on a timeout it sets `*timed_out` (also mapped) to 1. One thread, one block.
void launch_latch(const volatile int* release, int* timed_out, std::uint64_t timeout_ns,
                  cudaStream_t stream);

// Copies `bytes` from `src` to `dst` with the SMs; either may be a host pointer the device can
// reach. 16-byte loads and stores where both are 16-byte aligned, bytes otherwise.
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

// Writes `value` to every byte of `dst` (16-byte aligned; device memory or a host pointer the
// device can reach).
void launch_fill(void* dst, unsigned char value, std::size_t bytes, cudaStream_t stream);

// Compares `bytes` of `a` and `b` (both 16-byte aligned) and adds the number of differing 16-byte
// blocks to
// `*mismatches` (device-visible memory).
void launch_compare(const void* a, const void* b, std::size_t bytes, unsigned long long* mismatches,
                    cudaStream_t stream);

}  // namespace pinbench::cuda
