// pinbench's staged copy engine: copies between ordinary pageable host memory and a GPU at
// close to the rate of page-locked memory, in both directions, without pinning the caller's
// data.
//
//   pinbench::StagedCopier copier;                       // pins its staging rings once
//   copier.copy_to_device(d_buf, host_vec.data(), n, stream);
//   pinbench::StagedCopy c = copier.copy_to_host_async(host_vec.data(), d_buf, n, stream);
//   ...                                                  // the caller's thread is free
//   c.wait();                                            // or throws pinbench::StagedCopyError
//
// How: a copy is cut into chunks. To the device, host threads copy one chunk into a page-locked
// staging buffer while the copy engine sends the previous one; to the host, the copy engine
// fills one staging buffer while host threads empty another into the caller's memory. The
// staging buffers (80 MiB by default, whatever the copy size) and the threads are made once, by
// the constructor, and reused: pinning costs about half a second per GiB, never paid per copy.
// Small copies, and copies from or to memory that is already page-locked or managed, go
// straight to cudaMemcpyAsync, which is as fast or faster for them.
//
// Ordering with the caller's stream:
//  - A copy's device work starts only after the work queued on `stream` before the call,
//    including earlier copies made through this engine on the same stream: copies on one stream
//    happen in the order they were made, as on any stream.
//  - Other work queued on `stream` after an asynchronous copy (a kernel, a cudaMemcpyAsync) is
//    NOT ordered after it (after copy_to_device_ordered it is). Order it with
//    StagedCopy::stream_wait(stream) (device side) or StagedCopy::wait() (host side). The
//    synchronous calls return once the copy is complete, so later work sees the data.
//  - Host memory is read (to the device) or written (to the host) by the engine's threads:
//    leave it alone until the copy is complete. For reads that starts at the call, before
//    earlier stream work has run: do not pass a source that a kernel still writes (possible
//    only where kernels can reach pageable memory, cudaDevAttrPageableMemoryAccess).
//
// Threads: a StagedCopier may be shared by any number of threads; every member function is
// thread-safe. Copies in one direction run one after another in the order they were submitted
// (their chunks flow back to back); the two directions run at the same time. A StagedCopy may
// be waited on from any thread, any number of times, even after the StagedCopier is gone.
//
// Errors: bad arguments throw std::invalid_argument at the call, before anything is copied.
// CUDA failures throw pinbench::StagedCopyError, from the call when the copy cannot start and
// from wait() when it fails later; the error says how many bytes had arrived. A copy is never
// silently partial, and a failure is reported only once no part of the engine will touch the
// copy's memory again.
//
// Destruction: ~StagedCopier() completes every copy already submitted, then stops its threads
// and frees its staging memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "pinbench/staged_options.hpp"

namespace pinbench {

// A CUDA failure during a staged copy, or while setting the engine up.
class StagedCopyError : public std::runtime_error {
 public:
  StagedCopyError(const std::string& what, cudaError_t error, std::size_t bytes_done,
                  std::size_t bytes)
      : std::runtime_error(what), error_(error), bytes_done_(bytes_done), bytes_(bytes) {}
  // The CUDA error; cudaSuccess when the failure was not CUDA's.
  cudaError_t cuda_error() const { return error_; }
  // How long a prefix of the destination is known to hold the copied bytes. Beyond it the
  // destination holds what it held before, or parts of the copy.
  std::size_t bytes_done() const { return bytes_done_; }
  std::size_t bytes() const { return bytes_; }

 private:
  cudaError_t error_;
  std::size_t bytes_done_;
  std::size_t bytes_;
};

// A copy in progress, returned by the asynchronous calls. Cheap to copy: copies share the copy.
class StagedCopy {
 public:
  StagedCopy() = default;  // nothing to wait for: done() is true and wait() returns at once

  // Blocks until the copy is complete; throws StagedCopyError if it failed. Idempotent.
  void wait() const;
  // Whether the copy is complete (successfully or not); never blocks.
  bool done() const;
  // Makes `stream` wait, on the device, for this copy's device work; the calling thread blocks
  // only until that work has been queued. To the device, that is when the last chunk has been
  // staged: later work on `stream` then sees the data. To the host, it is when the last chunk's
  // DMA has been queued: later work on `stream` may then overwrite the device source (the host
  // destination is complete only after wait()). Throws StagedCopyError if the copy already
  // failed.
  void stream_wait(cudaStream_t stream) const;

  std::size_t bytes() const;
  // False when the copy went straight to cudaMemcpyAsync (small, or page-locked host memory).
  bool staged() const;

  struct State;  // the engine's side; opaque

 private:
  friend class StagedCopier;
  explicit StagedCopy(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// What an engine has done since it was made: copies and bytes by path.
struct StagedCopierStats {
  std::uint64_t staged_copies = 0;  // through the staging rings
  std::uint64_t direct_copies = 0;  // straight to cudaMemcpyAsync
  std::uint64_t staged_bytes = 0;
  std::uint64_t direct_bytes = 0;
  // The budget the host threads were sized to, and how many there are (shared by both lanes).
  int cpu_budget = 0;
  int host_threads = 0;
  // What each direction got of them: seconds spent copying its slices, by the shared threads
  // and by callers helping, and the slices copied.
  double to_device_thread_s = 0.0;
  double to_host_thread_s = 0.0;
  std::uint64_t to_device_slices = 0;
  std::uint64_t to_host_slices = 0;
  // The most host threads that copied for each direction at once.
  int to_device_most_threads = 0;
  int to_host_most_threads = 0;
  // Copies to the host whose destination was found fresh and faulted in during the DMA, and
  // those of them whose range took huge pages.
  std::uint64_t prefaulted_copies = 0;
  std::uint64_t huge_page_copies = 0;
};

// One block of a batch (StagedCopier::copy_blocks_to_device, copy_blocks_to_host): `bytes` bytes
// at `host_offset` in the host arena and at `device_offset` in the device arena.
struct StagedBlock {
  std::size_t host_offset = 0;
  std::size_t device_offset = 0;
  std::size_t bytes = 0;
};

class StagedCopier {
 public:
  // Checks the options (std::invalid_argument), pins the staging rings and starts the threads
  // on the options' device (StagedCopyError when the staging memory cannot be allocated).
  explicit StagedCopier(const StagedCopyOptions& options = {});
  ~StagedCopier();
  StagedCopier(const StagedCopier&) = delete;
  StagedCopier& operator=(const StagedCopier&) = delete;

  // Host memory `src` -> device memory `dst`, `bytes` bytes, any alignment. `stream` must belong
  // to the engine's device (0 is the legacy default stream). Returns when the data is on the
  // device.
  void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream = 0);
  // Device memory `src` -> host memory `dst`. Returns when the data is in `dst`.
  void copy_to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t stream = 0);

  // Host memory `src` -> device memory `dst` as cudaMemcpyAsync does it from pageable memory:
  // returns once `src` has been read (the caller may reuse it), and work queued on `stream`
  // after the call runs after the copy. The calling thread copies slices while it waits. The
  // copy's last DMAs may still run: the returned handle says when it is complete.
  StagedCopy copy_to_device_ordered(void* dst, const void* src, std::size_t bytes,
                                    cudaStream_t stream = 0);

  // The same, returning at once.
  [[nodiscard]] StagedCopy copy_to_device_async(void* dst, const void* src, std::size_t bytes,
                                                cudaStream_t stream = 0);
  [[nodiscard]] StagedCopy copy_to_host_async(void* dst, const void* src, std::size_t bytes,
                                              cudaStream_t stream = 0);

  // Many blocks between a host arena and a device arena in one call (KV-cache pages, layers'
  // weights, embedding rows), returning when every block is at its destination. From pageable
  // memory the engine's host threads pack the blocks one after another into its staging
  // buffers (to the device) or unpack them (to the host), and each buffer's blocks move in one
  // cudaMemcpyBatchAsync: a device call per staging buffer, not per block. One block alone
  // follows copy_to_device's rule (small: straight to cudaMemcpyAsync); page-locked or
  // managed arenas get one cudaMemcpyAsync per block on `stream`. Blocks may have any size and
  // alignment; destinations must not overlap one another (std::invalid_argument), sources may.
  // The arguments are checked as copy_to_device checks them, over the span the blocks cover in
  // each arena. On failure, StagedCopyError::bytes_done() counts whole blocks in the order given
  // (and part of the next).
  void copy_blocks_to_device(void* device_arena, const void* host_arena, const StagedBlock* blocks,
                             std::size_t count, cudaStream_t stream = 0);
  void copy_blocks_to_host(void* host_arena, const void* device_arena, const StagedBlock* blocks,
                           std::size_t count, cudaStream_t stream = 0);

  const StagedCopyOptions& options() const;
  int device() const;
  // Page-locked bytes held for staging: fixed at construction, whatever is copied.
  std::size_t staging_bytes() const;
  StagedCopierStats stats() const;
  // Whether this CPU has the non-temporal stores that options().streaming_drain asks for
  // (x86-64 with AVX2); without them the host threads drain with memcpy.
  static bool streaming_stores_available();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench
