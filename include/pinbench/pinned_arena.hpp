// pinbench::PinnedArena: page-locked host memory of exactly the size asked, pinned in chunks on
// background threads so that it is usable from its first chunk on, and so that no other CUDA
// call on the host, in this process or another, waits long behind the pinning.
//
//   pinbench::PinnedArena arena(64ull << 30);       // returns at once; threads start pinning
//   arena.wait(0, 1ull << 30);                      // the first GiB is page-locked
//   arena.copy_to_device(d_buf, 0, 1ull << 30, stream);
//
// Why chunks: one cudaHostAlloc or cudaHostRegister of tens of GiB runs at 2 to 3 GB/s and holds
// the driver for the whole call (on an H100 host, one cudaHostAlloc of 32 GiB took 17 s, and a
// second process's small CUDA calls waited up to 0.8 s behind it). The arena maps the memory
// (transparent huge pages where the host allows them), and each background thread takes the next
// chunk in address order, faults its pages in (MADV_POPULATE_WRITE) and registers it with
// cudaHostRegister: the page faults run in parallel, and each call holds the driver for one
// chunk's time only (32 MiB: about 1 ms).
//
// One copy, one chunk: the driver treats each registration as its own allocation, and a single
// cudaMemcpyAsync that spans two of them fails (cudaErrorInvalidValue). copy_to_device and
// copy_from_device split a range where chunks meet; piece_bytes() says how far one copy from a
// given offset may reach. Blocks of a size that divides chunk_bytes(), at offsets that are
// multiples of it, never cross.
//
// Limits: before anything is pinned, the host's limits are read (the memory this process may
// use, its cgroup's limit, the kernel's and the driver's per-call limits, vm.max_map_count); a
// size or chunk past one is refused with PinnedArenaError naming the limit and its value, and
// never attempted.
//
// Threads: every member function may be called from any thread. Errors: bad arguments throw
// std::invalid_argument; a limit crossed, a failed mapping or registration throws
// PinnedArenaError (from the constructor for what is known before pinning, from wait() and the
// copies for a chunk that failed; the other chunks stop being pinned). The bytes start as zero.
//
// Destruction: stops the threads (a chunk being pinned is finished), then unregisters and unmaps
// the chunks, on the same number of threads. Do not destroy the arena while copies from or to it
// are queued.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace pinbench {

class PinnedArenaError : public std::runtime_error {
 public:
  explicit PinnedArenaError(const std::string& what, cudaError_t error = cudaSuccess)
      : std::runtime_error(what), error_(error) {}
  // The CUDA error; cudaSuccess when the failure was not CUDA's (a limit, the kernel).
  cudaError_t cuda_error() const { return error_; }

 private:
  cudaError_t error_;
};

struct PinnedArenaOptions {
  // Bytes per registration, a multiple of 2 MiB (rounded up); 0: kDefaultChunkBytes. Smaller
  // chunks keep other processes' CUDA calls shorter; larger ones mean fewer pieces per copy.
  std::size_t chunk_bytes = 0;
  // Pinning threads; 0: half the CPUs this process may run on, 1 to kMostDefaultThreads.
  unsigned threads = 0;
  bool huge_pages = true;  // madvise(MADV_HUGEPAGE): faster to fault in and to register
  bool portable = false;   // cudaHostRegisterPortable: page-locked for every device
  int device = -1;         // the device the threads register on; -1: the caller's current one
  bool check_limits = true;

  static constexpr std::size_t kDefaultChunkBytes = std::size_t{32} << 20;
  static constexpr unsigned kMostDefaultThreads = 16;
};

struct PinnedArenaStats {
  std::size_t bytes = 0;        // the arena's size (the size asked, rounded up to a 4 KiB page)
  std::size_t chunk_bytes = 0;  // the last chunk may be shorter
  std::size_t chunks = 0;
  unsigned threads = 0;
  std::size_t chunks_pinned = 0;
  double first_chunk_ms = 0;   // from the constructor's start to the first chunk page-locked
  double pinned_ms = 0;        // to the last one; 0 while chunks remain
  double longest_call_ms = 0;  // the longest cudaHostRegister of one chunk
};

class PinnedArena {
 public:
  // Maps `bytes` (at least 1) and starts pinning; returns without waiting for any chunk.
  explicit PinnedArena(std::size_t bytes, const PinnedArenaOptions& options = {});
  ~PinnedArena();
  PinnedArena(const PinnedArena&) = delete;
  PinnedArena& operator=(const PinnedArena&) = delete;

  void* data() const;
  std::size_t size() const;         // the size asked
  std::size_t chunk_bytes() const;  // after rounding

  // Whether every chunk of [offset, offset + bytes) is page-locked (std::invalid_argument past
  // the end).
  bool ready(std::size_t offset, std::size_t bytes) const;
  // Returns once they are; PinnedArenaError if one of them failed.
  void wait(std::size_t offset, std::size_t bytes) const;
  void wait() const;  // the whole arena

  // How many bytes from `offset` (at most `bytes`) one copy may move: up to the end of the chunk
  // that holds `offset`.
  std::size_t piece_bytes(std::size_t offset, std::size_t bytes) const;

  // cudaMemcpyAsync of the range, split where chunks meet, on `stream`; waits first for the
  // range to be page-locked. Ordered on `stream` like one cudaMemcpyAsync.
  void copy_to_device(void* device_dst, std::size_t offset, std::size_t bytes,
                      cudaStream_t stream = 0) const;
  void copy_from_device(std::size_t offset, const void* device_src, std::size_t bytes,
                        cudaStream_t stream = 0) const;

  PinnedArenaStats stats() const;

  // The threads an arena pins on when options.threads is 0, on this host now.
  static unsigned default_threads();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench
