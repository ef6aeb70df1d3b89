// The block kernels (block_kernels.hpp).
#include "transfer/blocks/block_kernels.hpp"

namespace pinbench::transfer {
namespace {

constexpr unsigned kThreads = 1024;
constexpr unsigned kWarpsPerBlock = kThreads / 32;
constexpr std::size_t kTile = 4096;                      // a warp's share of a block at a time
constexpr unsigned kVectorsPerLane = kTile / (32 * 16);  // 16-byte loads in flight per lane

// Each warp takes tiles of the blocks in turn; `kCompare` counts the tiles that differ instead of
// copying them. Every lane of a warp walks the same tiles, so the warp votes as one.
template <bool kVector, bool kCompare>
__global__ void __launch_bounds__(kThreads)
    blocks_kernel(const BlockCopy* __restrict__ table, std::size_t count, std::size_t block_bytes,
                  unsigned long long* mismatches) {
  const std::size_t tiles_per_block = (block_bytes + kTile - 1) / kTile;
  const std::size_t tiles = count * tiles_per_block;
  const unsigned lane = threadIdx.x % 32;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * kWarpsPerBlock;
  for (std::size_t t = static_cast<std::size_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
       t < tiles; t += warps) {
    const std::size_t block = t / tiles_per_block;
    const std::size_t offset = (t % tiles_per_block) * kTile;
    const std::size_t n = block_bytes - offset < kTile ? block_bytes - offset : kTile;
    const unsigned char* src = static_cast<const unsigned char*>(table[block].src) + offset;
    unsigned char* dst = static_cast<unsigned char*>(table[block].dst) + offset;
    bool differs = false;
    if (kVector) {
      uint4 v[kVectorsPerLane];
#pragma unroll
      for (unsigned k = 0; k < kVectorsPerLane; ++k) {
        const std::size_t i = (static_cast<std::size_t>(k) * 32 + lane) * 16;
        if (i < n) v[k] = *reinterpret_cast<const uint4*>(src + i);
      }
#pragma unroll
      for (unsigned k = 0; k < kVectorsPerLane; ++k) {
        const std::size_t i = (static_cast<std::size_t>(k) * 32 + lane) * 16;
        if (i >= n) continue;
        if (kCompare) {
          const uint4 w = *reinterpret_cast<const uint4*>(dst + i);
          differs = differs || w.x != v[k].x || w.y != v[k].y || w.z != v[k].z || w.w != v[k].w;
        } else {
          *reinterpret_cast<uint4*>(dst + i) = v[k];
        }
      }
    } else {
      for (std::size_t i = lane; i < n; i += 32) {
        if (kCompare) {
          differs = differs || dst[i] != src[i];
        } else {
          dst[i] = src[i];
        }
      }
    }
    if (kCompare && __any_sync(0xffffffffu, differs) && lane == 0) atomicAdd(mismatches, 1ull);
  }
}

// Thread blocks enough for every warp to have a tile, at most `limit`.
unsigned grid_for(std::size_t count, std::size_t block_bytes, unsigned limit) {
  const std::size_t tiles = count * ((block_bytes + kTile - 1) / kTile);
  const std::size_t wanted = (tiles + kWarpsPerBlock - 1) / kWarpsPerBlock;
  return static_cast<unsigned>(wanted < limit ? wanted : limit);
}

}  // namespace

cudaError_t launch_block_copy(const BlockCopy* table, std::size_t count, std::size_t block_bytes,
                              unsigned sms, bool aligned16, cudaStream_t stream,
                              unsigned* grid_out) {
  const unsigned grid = grid_for(count, block_bytes, sms);
  if (grid_out != nullptr) *grid_out = grid;
  if (grid == 0) return cudaSuccess;
  if (aligned16) {
    blocks_kernel<true, false><<<grid, kThreads, 0, stream>>>(table, count, block_bytes, nullptr);
  } else {
    blocks_kernel<false, false><<<grid, kThreads, 0, stream>>>(table, count, block_bytes, nullptr);
  }
  return cudaGetLastError();
}

cudaError_t launch_block_compare(const BlockCopy* table, std::size_t count, std::size_t block_bytes,
                                 bool aligned16, unsigned long long* mismatches,
                                 cudaStream_t stream) {
  int device = 0;
  int sms = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  }
  if (err != cudaSuccess) return err;
  const unsigned grid = grid_for(count, block_bytes, 2 * static_cast<unsigned>(sms));
  if (grid == 0) return cudaSuccess;
  if (aligned16) {
    blocks_kernel<true, true><<<grid, kThreads, 0, stream>>>(table, count, block_bytes, mismatches);
  } else {
    blocks_kernel<false, true>
        <<<grid, kThreads, 0, stream>>>(table, count, block_bytes, mismatches);
  }
  return cudaGetLastError();
}

}  // namespace pinbench::transfer
