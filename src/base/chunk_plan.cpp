// The staged engine's chunk and slice arithmetic, and its option checks. Built into the small
// `pinbench_plan` library, which depends on nothing (not fmt, not CUDA), so the installed
// transfer library needs nothing beyond the CUDA runtime and threads.
#include "base/chunk_plan.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace pinbench {
namespace {

std::uintptr_t align_down(std::uintptr_t x, std::size_t a) {
  return x - x % a;
}

std::uintptr_t align_up(std::uintptr_t x, std::size_t a) {
  const std::uintptr_t r = x % a;
  return r == 0 ? x : x + (a - r);
}

// "16 MiB", "4 KiB", "100 B": exact binary units where they divide, else bytes. The plan library
// carries no formatting library, so it has this small one of its own.
std::string bytes_text(std::size_t b) {
  if (b != 0 && b % (1u << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b != 0 && b % (1u << 10) == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

std::size_t saturating_mul(std::size_t a, std::size_t b) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a) {
    return std::numeric_limits<std::size_t>::max();
  }
  return a * b;
}

std::size_t saturating_add(std::size_t a, std::size_t b) {
  return b > std::numeric_limits<std::size_t>::max() - a ? std::numeric_limits<std::size_t>::max()
                                                         : a + b;
}

constexpr std::size_t kMinChunkBytes = 64u << 10;
constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 40;
constexpr int kMaxDepth = 64;
constexpr int kMaxThreads = 256;

std::string ring_problem(const StagingRing& r, const char* name) {
  const std::string n = name;
  if (r.chunk_bytes < kMinChunkBytes || r.chunk_bytes > kMaxChunkBytes) {
    return n + ".chunk_bytes must be between 64 KiB and 1 TiB, not " + bytes_text(r.chunk_bytes);
  }
  if (r.chunk_bytes % kHostPageBytes != 0) {
    return n + ".chunk_bytes must be a multiple of 4 KiB, not " + bytes_text(r.chunk_bytes);
  }
  if (r.depth < 2 || r.depth > kMaxDepth) {
    return n + ".depth must be between 2 and 64 (one buffer fills while another moves), not " +
           std::to_string(r.depth);
  }
  if (r.threads < 1 || r.threads > kMaxThreads) {
    return n + ".threads must be between 1 and 256, not " + std::to_string(r.threads);
  }
  return "";
}

}  // namespace

std::vector<Chunk> plan_chunks(std::size_t total, std::uintptr_t host_address,
                               const ChunkPolicy& p) {
  std::vector<Chunk> chunks;
  std::size_t offset = 0;
  std::size_t want = p.edge_chunk_bytes;
  while (offset < total) {
    const std::size_t left = total - offset;
    // Halve towards the end: the last DMA (or the last host copy) then waits on a small chunk.
    const std::size_t down = p.ramp_down ? std::max(p.edge_chunk_bytes, left / 2) : left;
    const std::size_t size = std::min({want, down, p.max_chunk_bytes});
    std::size_t end = offset + size;
    if (left <= size) {
      end = total;
    } else {
      const std::size_t aligned = align_down(host_address + end, p.alignment) - host_address;
      if (aligned > offset) end = aligned;
      // A sliver of a tail costs a whole DMA and a whole hand-off; the chunk before takes it,
      // unless that would overflow the staging buffer.
      if (total - end < p.edge_chunk_bytes / 2 && total - offset <= p.max_chunk_bytes) end = total;
    }
    chunks.push_back({offset, end - offset});
    offset = end;
    want = want > p.max_chunk_bytes / 2 ? p.max_chunk_bytes : 2 * want;
  }
  return chunks;
}

std::size_t slice_count(std::size_t bytes, int threads) {
  const std::size_t by_size = std::max<std::size_t>(1, bytes / kMinSliceBytes);
  const std::size_t by_threads =
      static_cast<std::size_t>(std::max(1, threads)) * static_cast<std::size_t>(kSlicesPerThread);
  return std::min<std::size_t>({by_size, by_threads, 65535});
}

Chunk slice_of(std::size_t bytes, std::uintptr_t host_address, std::size_t count, std::size_t index,
               std::size_t alignment) {
  auto cut = [&](std::size_t k) -> std::size_t {
    if (k == 0) return 0;
    if (k >= count) return bytes;
    // bytes * k / count without overflow for any chunk up to 1 TiB and 65535 slices.
    const std::size_t raw = bytes / count * k + bytes % count * k / count;
    const std::size_t aligned = align_up(host_address + raw, alignment) - host_address;
    return std::min(aligned, bytes);
  };
  const std::size_t begin = cut(index);
  return {begin, cut(index + 1) - begin};
}

BatchPlan plan_batch(const std::vector<BatchBlock>& blocks, const ChunkPolicy& policy,
                     std::size_t max_pieces) {
  std::size_t total = 0;
  for (const BatchBlock& b : blocks) total = saturating_add(total, b.bytes);
  const std::vector<Chunk> sizes = plan_chunks(total, 0, policy);
  BatchPlan plan;
  const std::size_t n = blocks.size();
  std::size_t block = 0;
  std::size_t done = 0;  // bytes of blocks[block] already placed
  const auto skip_finished = [&] {
    while (block < n && done == blocks[block].bytes) {
      ++block;
      done = 0;
    }
  };
  skip_finished();
  std::size_t k = 0;  // the chunk; skip_finished() moves `block` on
  while (block < n) {
    // Past the planned sizes only when pieces closed chunks early: full staging buffers then.
    const std::size_t room = k < sizes.size() ? sizes[k].bytes : policy.max_chunk_bytes;
    BatchChunk c;
    c.first_piece = plan.pieces.size();
    while (block < n && c.bytes < room && c.pieces < std::max<std::size_t>(1, max_pieces)) {
      const std::size_t take = std::min(blocks[block].bytes - done, room - c.bytes);
      plan.pieces.push_back({block, done, c.bytes, take});
      c.bytes += take;
      ++c.pieces;
      done += take;
      skip_finished();
    }
    plan.chunks.push_back(c);
    ++k;
  }
  return plan;
}

std::size_t staging_bytes(const StagedCopyOptions& o) {
  const auto ring = [](const StagingRing& r) {
    return saturating_mul(r.chunk_bytes, static_cast<std::size_t>(std::max(0, r.depth)));
  };
  return saturating_add(ring(o.to_device), ring(o.to_host));
}

std::string staged_options_problem(const StagedCopyOptions& o) {
  if (std::string p = ring_problem(o.to_device, "to_device"); !p.empty()) return p;
  if (std::string p = ring_problem(o.to_host, "to_host"); !p.empty()) return p;
  const std::size_t smallest = std::min(o.to_device.chunk_bytes, o.to_host.chunk_bytes);
  if (o.edge_chunk_bytes < kHostPageBytes || o.edge_chunk_bytes > smallest ||
      o.edge_chunk_bytes % kHostPageBytes != 0) {
    return "edge_chunk_bytes must be a multiple of 4 KiB between 4 KiB and the smaller chunk "
           "size (" +
           bytes_text(smallest) + "), not " + bytes_text(o.edge_chunk_bytes);
  }
  const std::size_t staging = staging_bytes(o);
  if (staging > o.max_staging_bytes) {
    return "the two rings would pin " + bytes_text(staging) + " (" +
           bytes_text(o.to_device.chunk_bytes) + " x " + std::to_string(o.to_device.depth) +
           " to the device, " + bytes_text(o.to_host.chunk_bytes) + " x " +
           std::to_string(o.to_host.depth) + " to the host), more than max_staging_bytes (" +
           bytes_text(o.max_staging_bytes) + ")";
  }
  if (o.host_threads < 0 || o.host_threads > 1024) {
    return "host_threads must be 0 (sized to the machine) or 1 to 1024, not " +
           std::to_string(o.host_threads);
  }
  if (o.device < -1) {
    return "device must be -1 (the current device) or a device number, not " +
           std::to_string(o.device);
  }
  return "";
}

}  // namespace pinbench
