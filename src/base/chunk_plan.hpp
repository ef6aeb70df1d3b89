// How the staged copy engine cuts a copy into chunks and a chunk into slices, and which engine
// settings it accepts. Pure arithmetic, no CUDA and no threads, so every rule is tested on any
// machine.
//
// A copy of N bytes becomes chunks that each fit one staging buffer. The first chunk is small
// and each next one doubles up to the buffer size; near the end they halve again (unless the
// policy says not to). Interior cuts
// fall on page boundaries of the pageable host memory, so no page is shared by two chunks (or,
// within a chunk, by two slices): two threads first-touching or faulting one page would take
// turns. A tail smaller than half the edge chunk is folded into the chunk before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pinbench/staged_options.hpp"

namespace pinbench {

constexpr std::size_t kHostPageBytes = 4096;
constexpr std::size_t kMinSliceBytes = 64u << 10;  // below this a slice costs more than it copies
constexpr int kSlicesPerThread = 4;                // so a late thread does not hold up a chunk

struct Chunk {
  std::size_t offset = 0;  // from the copy's first byte
  std::size_t bytes = 0;
  bool operator==(const Chunk& o) const { return offset == o.offset && bytes == o.bytes; }
};

struct ChunkPolicy {
  std::size_t max_chunk_bytes = 0;   // the staging buffer's size
  std::size_t edge_chunk_bytes = 0;  // the first chunk, and the floor of the last ones
  std::size_t alignment = kHostPageBytes;
  // Halve the last chunks back down to the edge chunk. To the host the last drain follows the
  // last DMA, so a small last chunk shortens the wait. To the device the host fills run ahead
  // of the DMA, so the last fill is long done when its DMA starts, and small DMAs only cost:
  // each pays a fixed start (an H200 trace: 1 MiB in 49 us, 256 KiB in 15 us, where 8 MiB
  // moved at 54.6 GB/s), about 0.09 ms over a 64 MiB copy's ramp down.
  bool ramp_down = true;
};

// Chunks covering [0, total) in order, none larger than max_chunk_bytes. `host_address` is the
// address of the copy's first byte in pageable memory; interior cuts are aligned to it.
// Requires max_chunk_bytes >= edge_chunk_bytes >= alignment > 0; total 0 gives no chunk.
std::vector<Chunk> plan_chunks(std::size_t total, std::uintptr_t host_address,
                               const ChunkPolicy& policy);

// How many slices a chunk of `bytes` is split into for `threads` host threads: enough for each
// thread to take several, none below kMinSliceBytes, at least one, at most 65535.
std::size_t slice_count(std::size_t bytes, int threads);

// Slice `index` of `count` of a chunk of `bytes` whose first byte sits at `host_address`. Cuts
// fall on `alignment` boundaries of the host address, so a slice may be empty when the chunk is
// small; together the slices cover the chunk exactly, in order.
Chunk slice_of(std::size_t bytes, std::uintptr_t host_address, std::size_t count, std::size_t index,
               std::size_t alignment = kHostPageBytes);

// A batch of blocks (StagedCopier::copy_blocks_to_device, copy_blocks_to_host) travels packed:
// the blocks one after another, cut into chunks as plan_chunks cuts a copy of their total, so
// each staging buffer holds the whole or part of several blocks and moves them in one device
// call. A block that crosses a chunk's end goes on at the start of the next chunk.
struct BatchBlock {
  std::size_t host_offset = 0;    // in the host arena
  std::size_t device_offset = 0;  // in the device arena
  std::size_t bytes = 0;
};

// A block's part in one chunk.
struct BatchPiece {
  std::size_t block = 0;   // its index in the batch
  std::size_t offset = 0;  // from the block's first byte
  std::size_t at = 0;      // from the chunk's first byte: its place in the staging buffer
  std::size_t bytes = 0;
  bool operator==(const BatchPiece& o) const {
    return block == o.block && offset == o.offset && at == o.at && bytes == o.bytes;
  }
};

struct BatchChunk {
  std::size_t bytes = 0;
  std::size_t first_piece = 0;  // into BatchPlan::pieces
  std::size_t pieces = 0;
};

struct BatchPlan {
  std::vector<BatchChunk> chunks;
  std::vector<BatchPiece> pieces;  // chunk by chunk, in the batch's order
};

// The chunks of a batch: sized as plan_chunks sizes one copy of the blocks' total (the host
// address taken as page-aligned), except that a chunk closes early once it holds `max_pieces`
// pieces (at least 1). Blocks of 0 bytes get no piece. Every byte of every block lies in
// exactly one piece.
BatchPlan plan_batch(const std::vector<BatchBlock>& blocks, const ChunkPolicy& policy,
                     std::size_t max_pieces);

}  // namespace pinbench
