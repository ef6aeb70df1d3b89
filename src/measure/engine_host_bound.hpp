// The host side's own rate in the staged engine's shape: threads copying pageable memory into a
// small ring of page-locked buffers (the fill, as the engine does to the device) or out of one
// (the drain, to the host), alone or while the copy engine moves data between other page-locked
// memory and the device. The staged engine cannot move pageable bytes faster than its host
// threads can copy them while its DMA runs, so the lesser of this rate and the pinned rate is
// its bound (docs/methodology.md, "The engine's bound").
//
// What is copied is the engine's: the same chunk size, ring depth, thread count, page-aligned
// slices (base/chunk_plan.hpp) and copy routines (memcpy to fill, with non-temporal stores
// for the last chunks, and non-temporal stores to drain, where the engine uses them). What is left
// out is the engine's own coordination: no device copy waits for a fill, no fill waits for a free
// slot.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "pinbench/staged_options.hpp"

namespace pinbench {

// One host-side job: `bytes` between `pageable` and a ring of `depth` buffers of `chunk_bytes`
// at `ring`, chunk k in ring slot k % depth.
struct HostJob {
  bool fill = true;  // pageable -> ring; false: ring -> pageable
  char* pageable = nullptr;
  char* ring = nullptr;
  std::size_t bytes = 0;
  std::size_t chunk_bytes = 0;
  int depth = 0;
  bool streaming = false;        // drain with non-temporal stores (transfer/host_copy.hpp)
  bool streaming_edges = false;  // fill the last two chunks with non-temporal stores, as the
                                 // engine does (it also streams its ramp, which this team has not)
};

// Bytes of page-locked memory a ring shaped like `r` takes.
std::size_t ring_bytes(const StagingRing& r);

// `bytes` between `pageable` and `ring` in the shape, and with the copy routines, of `engine`'s
// host side in one direction: its fill (to the device) or its drain.
HostJob engine_job(const StagedCopyOptions& engine, bool to_device, char* pageable, char* ring,
                   std::size_t bytes);

// Workers made once, sharing a job's slices with whoever calls help(). While an Awake lives they
// spin between jobs, so a timed job's start costs no wake-up; otherwise they sleep. (Spinning all
// run long, sixteen such threads on the H200 machine's 16 vCPUs took the CPUs the engine's own
// threads needed while the engine was measured.)
class HostTeam {
 public:
  explicit HostTeam(int threads);
  ~HostTeam();
  HostTeam(const HostTeam&) = delete;
  HostTeam& operator=(const HostTeam&) = delete;

  // Keeps `team`'s workers spinning for its lifetime: made before a case's first sample (the
  // wake-up is not timed), ended after its last.
  class Awake {
   public:
    explicit Awake(HostTeam& team);
    ~Awake();
    Awake(const Awake&) = delete;
    Awake& operator=(const Awake&) = delete;

   private:
    HostTeam& team_;
  };

  // Hands `job` to the workers, returning at once. `slice_threads`: the thread count the
  // engine cuts its chunks for (its pool, without the caller).
  void start(const HostJob& job, int slice_threads);
  // Copies slices of the current job on the calling thread until none is left.
  void help();
  // Waits until every slice of the current job has been copied.
  void wait();
  // How many workers are asleep now (for tests: none while an Awake lives, all soon after).
  int sleeping() const { return sleeping_.load(std::memory_order_acquire); }

 private:
  void work();
  void copy_slices();

  HostJob job_;
  std::size_t slices_per_chunk_ = 1;
  std::size_t total_slices_ = 0;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> copied_{0};
  std::atomic<int> finished_{0};  // workers done with the current job
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> awake_{0};  // live Awake objects
  std::atomic<int> sleeping_{0};
  std::mutex sleep_mutex_;  // with wake_: for workers with no Awake and no job
  std::condition_variable wake_;
  std::vector<std::thread> workers_;
};

// Queues `bytes` of copy-engine traffic on `stream` in copies of `chunk_bytes`, between the
// page-locked ring `pinned` (`depth` buffers) and as much device memory at `device`, to the
// device or to the host: the engine's DMA, without its host side. Throws CudaError.
void queue_dma(bool to_device, char* pinned, char* device, std::size_t chunk_bytes, int depth,
               std::size_t bytes, cudaStream_t stream);

}  // namespace pinbench
