// The blocks experiment's kernels: a gather/scatter copy of many equal blocks, each between its
// own two addresses (page-locked host memory mapped into the device on one side, device memory
// on the other), and the same walk comparing blocks to check them. Launchers only; kernels.cu.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace pinbench::cuda {

// One block's two ends as the device reaches them.
struct BlockCopy {
  const void* src;
  void* dst;
};

// Copies `count` blocks of `block_bytes` each, table[i].src to table[i].dst (`table` in device
// memory), with at most `sms` thread blocks of 1024 threads: each lands on an SM of its own, so
// the copy uses at most that many SMs. A warp moves 4 KiB of a block at a time, 16 bytes a lane
// where `aligned16` (every address and the block size are multiples of 16), else byte by byte.
// Returns the thread blocks launched (fewer than `sms` when there is not enough work for them).
unsigned launch_block_copy(const BlockCopy* table, std::size_t count, std::size_t block_bytes,
                           unsigned sms, bool aligned16, cudaStream_t stream);

// Adds to `*mismatches` (device-visible) the number of 4 KiB tiles whose bytes differ between
// table[i].src and table[i].dst, over every SM.
void launch_block_compare(const BlockCopy* table, std::size_t count, std::size_t block_bytes,
                          bool aligned16, unsigned long long* mismatches, cudaStream_t stream);

}  // namespace pinbench::cuda
