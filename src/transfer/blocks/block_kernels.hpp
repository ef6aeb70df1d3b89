// The gather/scatter kernel that moves many equal blocks, each between its own two addresses
// (host memory mapped into the device, or pageable memory where the device reaches it, on one
// side; device memory on the other), and the same walk comparing blocks to check them. Used by
// pinbench::BlockCopier and measured by `pinbench blocks`. Launchers only (block_kernels.cu);
// they return the launch's error rather than throwing, as the engine's calls do.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace pinbench::transfer {

// One block's two ends as the device reaches them.
struct BlockCopy {
  const void* src;
  void* dst;
};

// Copies `count` blocks of `block_bytes` each, table[i].src to table[i].dst (`table` in device
// memory), with at most `sms` thread blocks of 1024 threads: each lands on an SM of its own, so
// the copy uses at most that many SMs. A warp moves 4 KiB of a block at a time, 16 bytes a lane
// where `aligned16` (every address and the block size are multiples of 16), else byte by byte.
// `*grid` gets the thread blocks launched (fewer than `sms` when there is not enough work).
cudaError_t launch_block_copy(const BlockCopy* table, std::size_t count, std::size_t block_bytes,
                              unsigned sms, bool aligned16, cudaStream_t stream, unsigned* grid);

// Adds to `*mismatches` (device-visible) the number of 4 KiB tiles whose bytes differ between
// table[i].src and table[i].dst, over every SM.
cudaError_t launch_block_compare(const BlockCopy* table, std::size_t count, std::size_t block_bytes,
                                 bool aligned16, unsigned long long* mismatches,
                                 cudaStream_t stream);

}  // namespace pinbench::transfer
