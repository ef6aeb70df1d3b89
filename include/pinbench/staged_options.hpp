// The settings of pinbench's staged copy engine (pinbench/staged_copy.hpp), in a header of their
// own with no CUDA types, so code that only plans or checks copies needs no CUDA include path.
//
// The engine keeps one ring of page-locked staging buffers per direction. Host threads copy
// pageable memory into one buffer (or out of it) while the copy engine moves another, so the
// pageable side never waits for the driver's own, slower staging. The defaults come from an
// H200 on PCIe 5.0 (docs/methodology.md in pinbench's repository, "The staged copy engine");
// `pinbench staged --tune` measures other shapes on your machine.
#pragma once

#include <cstddef>
#include <string>

namespace pinbench {

// One direction's settings: a ring of `depth` staging buffers of `chunk_bytes` each, the host
// threads that copy between pageable memory and them, and the size below which a copy skips the
// ring.
struct StagingRing {
  std::size_t chunk_bytes = 0;  // each staging buffer, and so the largest chunk of a copy
  int depth = 0;                // staging buffers in the ring (at least 2, so one can fill while
                                // another moves)
  int threads = 0;              // the host threads one chunk is cut for, and the most of the
                                // engine's shared threads that copy for this direction while
                                // the other has no copy in flight (a copy to the device of
                                // 16 MiB or more takes them all); while both directions have
                                // copies in flight, every shared thread serves both
  // Copies in this direction smaller than this go straight to cudaMemcpyAsync: for them the
  // driver's own staging finishes before the engine's threads have passed a chunk along. 0:
  // stage every pageable copy.
  std::size_t direct_below_bytes = 0;
};

struct StagedCopyOptions {
  // Measured on an H200 on PCIe 5.0 with 16 host CPUs (pinbench staged --tune, 2026-12-01):
  // to the device 8 MiB x 3 or 4 buffers with 8 threads reached 53.5 GB/s at 1 GiB, and more
  // buffers, bigger ones or more threads did not help; back to the host, rings shallower than
  // 6 x 8 MiB left the copy engine waiting for the drain (8 MiB x 4: 53.9 GB/s at 1 GiB but
  // 47 at 64 MiB; 8 MiB x 6: 54.2 and 47.7). 80 MiB page-locked in all.
  //
  // The direct thresholds, from the same machine with every size staged (2026-12-01, the edge
  // chunks to the device written with non-temporal stores): to the device 256 KiB staged at
  // 8.6 GB/s against the driver's 8.5, 512 KiB 13.5 against 10.3; back to the host 128 KiB 4.0
  // against 3.8, 256 KiB 6.5 against 4.2, 512 KiB 8.7 against 3.0.
  StagingRing to_device{8u << 20, 4, 8, 512u << 10};
  StagingRing to_host{8u << 20, 6, 8, 256u << 10};
  // A copy's first chunk; chunks then double up to the ring's chunk size, and a copy to the
  // host halves its last chunks back down to this. Small chunks at the start keep the copy
  // engine from waiting for the first big host copy, and at the end of a copy to the host they
  // keep the host from waiting for the last big DMA. 256 KiB, so copies from 1 MiB have chunks
  // to overlap (the H200, 2026-12-01: a 1 MiB copy to the host at 16.6 GB/s against the
  // driver's 5.0, to the device 13.8 against 12.0).
  std::size_t edge_chunk_bytes = 256u << 10;
  // The most page-locked memory the two rings may take together; options asking for more are
  // refused.
  std::size_t max_staging_bytes = 96u << 20;
  // Host threads write the caller's pageable memory with non-temporal stores when they drain a
  // staging buffer (to the host): whole cache lines go straight to memory instead of being read
  // first. On x86-64 with AVX2, detected when the program runs; memcpy elsewhere or when false.
  bool streaming_drain = true;
  // To the device, the host threads write a copy's first chunks (those smaller than the staging
  // buffer) and its last two with non-temporal stores, the rest with memcpy. The copy engine
  // reads each of those chunks right after it is filled, while memcpy's lines still sit in the
  // filling cores' private caches, and reading them from there is slow; the middle chunks have
  // been pushed out to the shared cache by the fills that follow them, where the copy engine
  // reads them at full rate (and non-temporal stores there would send every byte through DRAM
  // once more). On the H200 machine (a trace, 2026-12-01): the ramp's 256 KiB to 2 MiB DMAs
  // 11/22/42/66 us against 7/12/23/45, the last full 8 MiB 248 against 153 us; a 1 MiB copy
  // 13.5 against 23.7 GB/s. x86-64 with AVX2, as streaming_drain.
  bool streaming_fill_edges = true;
  // The thread of a synchronous call (copy_to_device, copy_to_host) copies slices between
  // pageable memory and staging alongside the host threads while it waits, instead of sleeping.
  bool caller_copies = true;
  // ... and, with nothing to copy, does the lane coordinator's work itself (admits chunks,
  // queues their DMA, sees their marks), so a copy after a pause starts without waiting for the
  // coordinator to wake and ends as soon as its last DMA's mark is reached. Needs caller_copies.
  bool caller_drives = true;
  // The host threads both directions share. 0 sizes them to the machine: the CPUs this process
  // may use (its affinity mask, and a cgroup CPU quota where one is set) less the two lanes'
  // coordinators and a synchronous caller, at most the two rings' `threads` together. A number
  // asks for that many, still never more than that budget: threads beyond the CPUs only take
  // turns, and a turn lost mid-chunk stalls the ring.
  int host_threads = 0;
  // Copies to the host of at least this many bytes whose destination has never been written
  // (most of its pages do not exist yet: `.cpu()`, a new numpy.empty) have its pages faulted in
  // by the host threads while each chunk's DMA runs, instead of one at a time by the drain. No
  // byte of the destination changes and nothing outside it is touched. 0: never.
  std::size_t prefault_from_bytes = 2u << 20;
  // ... and ask Linux for transparent huge pages on the 2 MiB-aligned interior of such a
  // destination (MADV_HUGEPAGE, where the system allows it on request): one fault then maps
  // 2 MiB instead of 4 KiB. The advice stays on the caller's range after the copy.
  bool fresh_huge_pages = true;
  // The device the engine copies to and from; -1 takes the calling thread's current device.
  int device = -1;
};

// Why `options` cannot be used, as one sentence, or "" when they can. No CUDA call.
std::string staged_options_problem(const StagedCopyOptions& options);

// Page-locked bytes the two rings of `options` take together (saturating, never wrapping).
std::size_t staging_bytes(const StagedCopyOptions& options);

}  // namespace pinbench
