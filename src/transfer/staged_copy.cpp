// The public staged copy engine (include/pinbench/staged_copy.hpp): argument checks with
// cudaPointerGetAttributes, the direct path for small and page-locked copies, and two lanes
// (lane.hpp), one per direction, each with its own ring of page-locked staging memory and
// stream, sharing one pool of host threads sized to the process's CPUs (cpu_budget.hpp).
//
// A staged copy is ordered after the caller's stream by an event recorded on that stream at the
// call, which the lane's stream waits on just before the copy's first DMA. Its own end is an
// event recorded on the lane's stream just after its last DMA, which stream_wait() hands to any
// stream. Both events belong to the copy's State and live as long as any handle or the lane
// needs them.
//
// Copies made through the engine on one stream keep their order, as copies on a stream do: the
// engine remembers the last staged copy made on each stream, and the next copy on it (staged or
// direct) waits for that one's end event as well. The wait can only be queued once the earlier
// copy's device work is queued, so the next copy first waits for that on the host: the caller's
// thread blocks for a direct copy; the lane's coordinator polls for a staged one, moving its
// other chunks meanwhile (a pipeline's copies in and out on one stream wait on each other
// across the two lanes, and a blocked coordinator would stop the other chunks of its lane). Each
// copy waits only for copies made before it, and a lane reaches a copy's first DMA only after every
// earlier copy of that lane has queued all of its own, so these waits cannot form a cycle.
#include "pinbench/staged_copy.hpp"

#include <cuda.h>  // types of the one driver entry point looked up at run time, nothing linked

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "base/nvtx_domain.hpp"
#include "transfer/copy_state.hpp"
#include "transfer/cpu_budget.hpp"
#include "transfer/cuda_queue.hpp"
#include "transfer/device_guard.hpp"
#include "transfer/host_copy.hpp"
#include "transfer/lane.hpp"
#include "transfer/testing.hpp"

namespace pinbench {

using transfer::check_cuda;
using transfer::describe_cuda_error;

namespace transfer::testing {
namespace {
std::atomic<bool> fail_allocation{false};
}  // namespace
void fail_next_staging_allocation() {
  fail_allocation.store(true);
}
}  // namespace transfer::testing

namespace {

// While the other direction is idle, a copy to the device of at least this many bytes takes
// every one of the shared host threads, and smaller ones (and batches of blocks) the ring's
// `threads`; back to the host always the ring's `threads`. On the H200 machine (16 CPUs, 13
// shared threads; 2026-12-03, two alternating rounds,
// data/evidence/h200-2026-12-03-limit.json#threads-8/): to the device at 64 MiB 0.73-0.76 of
// page-locked memory's rate with 13 threads against 0.65-0.66 with 8, but a batch of 16 blocks of
// 64 KiB 12.6-12.7 GB/s with 13 against 14.4-15.6 with 8; back to the host at 64 MiB back to back
// 0.86-0.88 with 13 against 0.92-0.93 with 8, at 256 MiB 0.94-0.95 against 0.96. Between 1 and 64
// MiB the crossing was not measured. A copy to the host into a fresh destination takes every thread
// once its pages are being faulted in (lane.cpp): with 8, five runs of 64 MiB to 1 GiB moved
// at 15.3-22.4 GB/s, where 13 threads had moved 20.8-33.1 on the loan before.
constexpr std::size_t kWideToDeviceFromBytes = std::size_t{16} << 20;

// Events for copies, made once and reused: creating and destroying two per copy would cost a
// small copy more than its own transfer. Shared by the engine and every copy's State, so a
// handle that outlives the engine still gives its events back safely.
class EventPool {
 public:
  EventPool() = default;
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;
  ~EventPool() {
    for (cudaEvent_t e : free_) (void)cudaEventDestroy(e);
  }
  // Needs the engine's device current. Throws StagedCopyError.
  cudaEvent_t take();
  void give(cudaEvent_t e) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      free_.push_back(e);
    } catch (...) {
      (void)cudaEventDestroy(e);
    }
  }

 private:
  std::mutex mutex_;
  std::vector<cudaEvent_t> free_;
};

}  // namespace

struct StagedCopy::State {
  std::size_t bytes = 0;
  const char* what = "";                          // "host-to-device copy" or "device-to-host copy"
  std::shared_ptr<transfer::CopyState> progress;  // staged copies only
  std::shared_ptr<EventPool> events;
  cudaEvent_t before = nullptr;  // staged: the caller's stream at the call
  cudaEvent_t done = nullptr;    // after the copy's last device operation

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // An event given back may still be pending; recording it again for another copy is allowed,
  // and nothing waits on this copy's record any more.
  ~State() {
    if (before != nullptr) events->give(before);
    if (done != nullptr) events->give(done);
  }

  [[noreturn]] void throw_failure(cudaError_t err, const std::string& cause,
                                  std::size_t delivered) const {
    throw StagedCopyError("pinbench: " + std::string(what) + " of " + std::to_string(bytes) +
                              " bytes failed after " + std::to_string(delivered) +
                              " bytes had arrived: " + cause,
                          err, delivered, bytes);
  }
};

namespace {

std::string bytes_text(std::size_t b) {
  if (b % (1u << 20) == 0) return std::to_string(b >> 20) + " MiB";
  return std::to_string(b) + " bytes";
}

std::invalid_argument bad_argument(const char* what, const std::string& why) {
  return std::invalid_argument(std::string("pinbench: ") + what + ": " + why);
}

void check_or_throw(cudaError_t err, const char* call) {
  if (err != cudaSuccess) {
    throw StagedCopyError("pinbench: " + describe_cuda_error(call, err), err, 0, 0);
  }
}

using DeviceGuard = transfer::DeviceGuard<&check_or_throw>;

cudaEvent_t EventPool::take() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      const cudaEvent_t e = free_.back();
      free_.pop_back();
      return e;
    }
  }
  cudaEvent_t e = nullptr;
  check_or_throw(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  return e;
}

struct PinnedBlock {
  void* ptr = nullptr;
  PinnedBlock() = default;
  PinnedBlock(const PinnedBlock&) = delete;
  PinnedBlock& operator=(const PinnedBlock&) = delete;
  ~PinnedBlock() {
    if (ptr != nullptr) (void)cudaFreeHost(ptr);
  }
};

void allocate_staging(PinnedBlock& block, std::size_t bytes, const char* direction) {
  cudaError_t err = cudaErrorMemoryAllocation;
  if (!transfer::testing::fail_allocation.exchange(false)) {
    err = cudaHostAlloc(&block.ptr, bytes, cudaHostAllocDefault);
  }
  if (err != cudaSuccess) {
    block.ptr = nullptr;
    throw StagedCopyError("pinbench: could not allocate " + bytes_text(bytes) +
                              " of page-locked staging memory for " + direction +
                              " copies: " + describe_cuda_error("cudaHostAlloc", err),
                          err, 0, 0);
  }
}

enum class HostMemory { kPageable, kPageLocked, kManaged };

cudaPointerAttributes attributes(const void* p, const char* what, const char* role) {
  cudaPointerAttributes a{};
  const cudaError_t err = cudaPointerGetAttributes(&a, p);
  if (err != cudaSuccess) {
    throw bad_argument(what, std::string("CUDA cannot tell what the ") + role +
                                 " is: " + describe_cuda_error("cudaPointerGetAttributes", err));
  }
  return a;
}

// cuMemGetAddressRange, found through the runtime so that nothing links libcuda: the one way to
// learn where a device allocation ends.
using AddressRangeFn = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);

AddressRangeFn find_address_range() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault,
                                       &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<AddressRangeFn>(fn);
}

}  // namespace

struct StagedCopier::Impl {
  StagedCopyOptions options;
  int device = 0;
  bool only_device = false;  // the machine has no other CUDA device: every stream is this one's
  AddressRangeFn address_range = nullptr;
  // The last staged copy made on each stream. cudaStreamPerThread names a different stream in
  // every thread, so it is told apart by thread.
  std::mutex order_mutex;
  std::map<std::pair<cudaStream_t, std::thread::id>, std::weak_ptr<StagedCopy::State>> last_staged;
  std::shared_ptr<EventPool> events = std::make_shared<EventPool>();
  std::atomic<std::uint64_t> staged_copies{0}, direct_copies{0}, staged_bytes{0}, direct_bytes{0};
  // Declared before the lanes, so they are freed after the lanes have stopped using them.
  PinnedBlock to_device_staging;
  PinnedBlock to_host_staging;
  transfer::CudaQueue* to_device_queue = nullptr;  // owned by its lane
  transfer::CudaQueue* to_host_queue = nullptr;
  transfer::CpuBudget budget;
  // The host threads both lanes share (cpu_budget.hpp), and the lanes' doorbells its channels
  // ring; declared before the lanes, which use them until they have stopped.
  transfer::Doorbell to_device_bell;
  transfer::Doorbell to_host_bell;
  std::unique_ptr<transfer::HostCopyPool> pool;
  std::unique_ptr<transfer::Lane> to_device;
  std::unique_ptr<transfer::Lane> to_host;

  // The lanes are stopped first, with the engine's device current: they finish the copies
  // already submitted, and free their streams and events on the device that made them.
  ~Impl() {
    try {
      const DeviceGuard guard(device);
      to_host.reset();
      to_device.reset();
    } catch (const std::exception&) {
      to_host.reset();
      to_device.reset();
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  explicit Impl(const StagedCopyOptions& o) : options(o) {
    if (const std::string problem = staged_options_problem(o); !problem.empty()) {
      throw std::invalid_argument("pinbench: StagedCopyOptions: " + problem);
    }
    int count = 0;
    check_or_throw(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    only_device = count == 1;
    if (o.device >= 0) {
      if (o.device >= count) {
        throw std::invalid_argument("pinbench: StagedCopyOptions: device " +
                                    std::to_string(o.device) + " does not exist (" +
                                    std::to_string(count) + " CUDA devices)");
      }
      device = o.device;
    } else {
      check_or_throw(cudaGetDevice(&device), "cudaGetDevice");
    }
    const DeviceGuard guard(device);
    address_range = find_address_range();
    allocate_staging(to_device_staging,
                     o.to_device.chunk_bytes * static_cast<std::size_t>(o.to_device.depth),
                     "host-to-device");
    allocate_staging(to_host_staging,
                     o.to_host.chunk_bytes * static_cast<std::size_t>(o.to_host.depth),
                     "device-to-host");
    const transfer::LaneShape in = shape(transfer::Flow::kToDevice, o.to_device);
    const transfer::LaneShape out = shape(transfer::Flow::kToHost, o.to_host);
    budget = transfer::cpu_budget();
    pool = std::make_unique<transfer::HostCopyPool>(
        transfer::host_threads_for(budget, o.host_threads, o.to_device.threads + o.to_host.threads),
        std::vector<transfer::HostCopyPool::ChannelSpec>{
            transfer::Lane::channel_spec(in, &to_device_bell),
            transfer::Lane::channel_spec(out, &to_host_bell)});
    to_device = make_lane(in, 0, to_device_bell, to_device_staging.ptr, cudaMemcpyHostToDevice,
                          to_device_queue);
    to_host =
        make_lane(out, 1, to_host_bell, to_host_staging.ptr, cudaMemcpyDeviceToHost, to_host_queue);
  }

  transfer::LaneShape shape(transfer::Flow flow, const StagingRing& ring) const {
    transfer::LaneShape shape;
    shape.flow = flow;
    shape.chunk_bytes = ring.chunk_bytes;
    shape.depth = ring.depth;
    shape.threads = ring.threads;
    shape.edge_chunk_bytes = options.edge_chunk_bytes;
    const auto streaming = [](bool on) {
      return on ? transfer::Stores::kStreaming : transfer::Stores::kCached;
    };
    if (flow == transfer::Flow::kToHost) {
      shape.stores = shape.edge_stores = streaming(options.streaming_drain);
      shape.prefault_from_bytes = options.prefault_from_bytes;
      shape.huge_pages = options.fresh_huge_pages;
    } else {
      shape.stores = transfer::Stores::kCached;
      shape.edge_stores = streaming(options.streaming_fill_edges);
      shape.wide_from_bytes = kWideToDeviceFromBytes;
    }
    shape.caller_drives = options.caller_copies && options.caller_drives;
    return shape;
  }

  std::unique_ptr<transfer::Lane> make_lane(const transfer::LaneShape& shape, int channel,
                                            transfer::Doorbell& bell, void* staging,
                                            cudaMemcpyKind kind, transfer::CudaQueue*& queue_out) {
    std::unique_ptr<transfer::CudaQueue> queue;
    try {
      queue = std::make_unique<transfer::CudaQueue>(device, shape.depth, kind);
    } catch (const transfer::TransferFailure& e) {
      throw StagedCopyError(std::string("pinbench: ") + e.what(),
                            static_cast<cudaError_t>(e.code()), 0, 0);
    }
    queue_out = queue.get();
    return std::make_unique<transfer::Lane>(shape, staging, std::move(queue), *pool, channel, bell);
  }

  void check_stream(cudaStream_t stream, const char* what) const {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err != cudaSuccess) {
      throw bad_argument(
          what, "the stream cannot be used: " + describe_cuda_error("cudaStreamIsCapturing", err));
    }
    if (capture != cudaStreamCaptureStatusNone) {
      throw bad_argument(what,
                         "the stream is being captured into a graph; a staged copy runs on host "
                         "threads and cannot be captured");
    }
    if (only_device) return;  // saves a driver call on every copy, small ones included
    int stream_device = device;
    err = cudaStreamGetDevice(stream, &stream_device);
    if (err != cudaSuccess) {
      throw bad_argument(
          what, "the stream cannot be used: " + describe_cuda_error("cudaStreamGetDevice", err));
    }
    if (stream_device != device) {
      throw bad_argument(what, "the stream belongs to device " + std::to_string(stream_device) +
                                   "; this engine copies for device " + std::to_string(device));
    }
  }

  HostMemory check_host(const void* p, std::size_t bytes, const char* what,
                        const char* role) const {
    const cudaPointerAttributes a = attributes(p, what, role);
    switch (a.type) {
      case cudaMemoryTypeUnregistered:
        return HostMemory::kPageable;
      case cudaMemoryTypeManaged:
        return HostMemory::kManaged;
      case cudaMemoryTypeDevice:
        throw bad_argument(what, std::string("the ") + role + " is device memory (of device " +
                                     std::to_string(a.device) + "); it must be host memory");
      case cudaMemoryTypeHost: {
        // The driver would take the whole range for page-locked memory because its first byte
        // is; a range that runs out of the locked allocation must not reach it.
        const cudaPointerAttributes last =
            attributes(static_cast<const char*>(p) + (bytes - 1), what, role);
        if (last.type != cudaMemoryTypeHost) {
          throw bad_argument(what, std::string("the ") + role +
                                       " starts in page-locked memory but its last byte is not "
                                       "page-locked: the range runs past the allocation");
        }
        return HostMemory::kPageLocked;
      }
    }
    return HostMemory::kPageable;
  }

  void check_device(const void* p, std::size_t bytes, const char* what, const char* role) const {
    const cudaPointerAttributes a = attributes(p, what, role);
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) {
      throw bad_argument(what, std::string("the ") + role +
                                   " is host memory; it must be device memory (cudaMalloc)");
    }
    if (a.type == cudaMemoryTypeDevice && a.device != device) {
      throw bad_argument(what, std::string("the ") + role + " is memory of device " +
                                   std::to_string(a.device) + "; this engine copies for device " +
                                   std::to_string(device));
    }
    if (address_range == nullptr) return;
    CUdeviceptr base = 0;
    std::size_t size = 0;
    const auto at = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
    if (address_range(&base, &size, at) != CUDA_SUCCESS) return;  // not an allocation it knows
    const CUdeviceptr end = base + size;
    if (bytes > end - at) {
      throw bad_argument(what, std::string("the ") + role + " range runs " +
                                   std::to_string(bytes - (end - at)) +
                                   " bytes past the end of its device allocation of " +
                                   std::to_string(size) + " bytes");
    }
  }

  static std::pair<cudaStream_t, std::thread::id> stream_key(cudaStream_t stream) {
    return {stream, stream == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id()};
  }

  // The staged copy made last on `stream` if it may still be running, and, when `next` is given,
  // `next` as the new last one.
  std::shared_ptr<StagedCopy::State> exchange_last(cudaStream_t stream,
                                                   const std::shared_ptr<StagedCopy::State>& next) {
    std::lock_guard<std::mutex> lock(order_mutex);
    if (last_staged.size() > 64) {
      for (auto it = last_staged.begin(); it != last_staged.end();) {
        it = it->second.expired() ? last_staged.erase(it) : std::next(it);
      }
    }
    std::weak_ptr<StagedCopy::State>& slot = last_staged[stream_key(stream)];
    std::shared_ptr<StagedCopy::State> previous = slot.lock();
    if (next) slot = next;
    if (previous && previous->progress->finished()) previous.reset();
    return previous;
  }

  // Makes `stream` (or, through the returned State, the lane) wait for the last staged copy
  // made on it. The wait can only be queued once that copy's device work is, so this blocks
  // until then.
  static void wait_for_previous(const std::shared_ptr<StagedCopy::State>& previous,
                                cudaStream_t stream) {
    if (!previous) return;
    previous->progress->wait_device_work_queued();
    if (previous->progress->failed()) return;  // finished: nothing of it is left to wait for
    check_cuda(cudaStreamWaitEvent(stream, previous->done, 0), "cudaStreamWaitEvent");
  }

  // One copy the driver makes alone (a batch's block, or a whole copy).
  struct Piece {
    void* dst;
    const void* src;
    std::size_t bytes;
  };

  // Copies cudaMemcpyAsync makes alone, one call each: small, or page-locked or managed host
  // memory. The synchronous calls wait for them with the stream and need no event, so a small
  // copy costs little more than the driver's own call.
  StagedCopy direct(bool to_dev, HostMemory host, const std::vector<Piece>& pieces,
                    cudaStream_t stream, bool synchronous, const char* what) {
    std::size_t bytes = 0;
    for (const Piece& p : pieces) bytes += p.bytes;
    auto state = std::make_shared<StagedCopy::State>();
    state->bytes = bytes;
    state->what = what;
    state->events = events;
    const cudaMemcpyKind kind = host == HostMemory::kManaged ? cudaMemcpyDefault
                                : to_dev                     ? cudaMemcpyHostToDevice
                                                             : cudaMemcpyDeviceToHost;
    try {
      wait_for_previous(exchange_last(stream, nullptr), stream);
    } catch (const transfer::TransferFailure& e) {
      state->throw_failure(static_cast<cudaError_t>(e.code()), e.what(), 0);
    }
    cudaError_t err = cudaSuccess;
    for (const Piece& p : pieces) {
      err = cudaMemcpyAsync(p.dst, p.src, p.bytes, kind, stream);
      if (err != cudaSuccess) {
        // What was queued before it may still be in flight: let it land before saying so.
        (void)cudaStreamSynchronize(stream);
        state->throw_failure(err, describe_cuda_error("cudaMemcpyAsync", err), 0);
      }
    }
    direct_copies.fetch_add(pieces.size(), std::memory_order_relaxed);
    direct_bytes.fetch_add(bytes, std::memory_order_relaxed);
    if (synchronous) {
      err = cudaStreamSynchronize(stream);
      if (err != cudaSuccess) {
        state->throw_failure(err, describe_cuda_error("cudaStreamSynchronize", err), 0);
      }
      return StagedCopy();
    }
    state->done = events->take();
    err = cudaEventRecord(state->done, stream);
    if (err != cudaSuccess) {
      state->throw_failure(err, describe_cuda_error("cudaEventRecord", err), 0);
    }
    return StagedCopy(std::move(state));
  }

  // `caller_helps`: the calling thread helps the lane until the copy ends (help_until).
  StagedCopy staged(bool to_dev, void* dst, const void* src, std::size_t bytes, cudaStream_t stream,
                    const char* what, bool caller_helps,
                    std::shared_ptr<const std::vector<BatchBlock>> blocks = nullptr) {
    check_stream(stream, what);
    auto state = std::make_shared<StagedCopy::State>();
    state->bytes = bytes;
    state->what = what;
    state->events = events;
    state->done = events->take();
    state->before = events->take();
    if (const cudaError_t err = cudaEventRecord(state->before, stream); err != cudaSuccess) {
      state->throw_failure(err, describe_cuda_error("cudaEventRecord", err), 0);
    }
    state->progress = std::make_shared<transfer::CopyState>(bytes);
    const std::shared_ptr<StagedCopy::State> previous = exchange_last(stream, state);

    transfer::CudaQueue* queue = to_dev ? to_device_queue : to_host_queue;
    const cudaStream_t lane_stream = queue->stream();
    transfer::Job job;
    job.dst = dst;
    job.src = src;
    job.bytes = bytes;
    // The lambdas hold the States, so their events outlive the lane's use of them.
    job.device_ready = [previous] {
      return !previous || previous->progress->device_work_queued() ||
             previous->progress->finished();
    };
    job.before_device = [state, previous, lane_stream] {
      wait_for_previous(previous, lane_stream);
      check_cuda(cudaStreamWaitEvent(lane_stream, state->before, 0), "cudaStreamWaitEvent");
    };
    job.after_device = [state, lane_stream] {
      check_cuda(cudaEventRecord(state->done, lane_stream), "cudaEventRecord");
    };
    job.state = state->progress;
    job.blocks = std::move(blocks);
    staged_copies.fetch_add(1, std::memory_order_relaxed);
    staged_bytes.fetch_add(bytes, std::memory_order_relaxed);
    (to_dev ? to_device : to_host)->submit(std::move(job), caller_helps);
    return StagedCopy(std::move(state));
  }

  // copy_blocks_to_device, copy_blocks_to_host.
  void blocks(transfer::Flow flow, void* dst_arena, const void* src_arena, const StagedBlock* list,
              std::size_t count, cudaStream_t stream);

  // How a call returns: at once, once the copy is complete, or (to the device) once the source
  // has been read and `stream` waits for the copy's end.
  enum class Return { kAtOnce, kComplete, kSourceRead };

  StagedCopy submit(transfer::Flow flow, void* dst, const void* src, std::size_t bytes,
                    cudaStream_t stream, Return returns) {
    const bool synchronous = returns != Return::kAtOnce;
    const bool to_dev = flow == transfer::Flow::kToDevice;
    const char* what = to_dev ? "host-to-device copy" : "device-to-host copy";
    if (bytes == 0) return StagedCopy();
    if (dst == nullptr) throw bad_argument(what, "the destination is null");
    if (src == nullptr) throw bad_argument(what, "the source is null");
    const auto d = reinterpret_cast<std::uintptr_t>(dst);
    const auto s = reinterpret_cast<std::uintptr_t>(src);
    if (d + bytes < d || s + bytes < s) {
      throw bad_argument(what, "the range runs past the end of the address space");
    }
    if (d < s + bytes && s < d + bytes) {
      throw bad_argument(what, "the source and destination ranges overlap");
    }

    // The whole call on the caller's thread: a synchronous copy's start and end on the timeline.
    const EngineRange range(to_dev ? "copy to device" : "copy to host");
    const DeviceGuard guard(device);
    const HostMemory host = to_dev ? check_host(src, bytes, what, "source")
                                   : check_host(dst, bytes, what, "destination");
    if (to_dev) {
      check_device(dst, bytes, what, "destination");
    } else {
      check_device(src, bytes, what, "source");
    }
    const StagingRing& ring = to_dev ? options.to_device : options.to_host;
    if (host != HostMemory::kPageable || bytes < ring.direct_below_bytes) {
      // From pageable memory the driver's own copy returns once the source is read, as
      // kSourceRead asks; from page-locked memory it returns at once, so the call waits.
      const bool wait = returns == Return::kComplete ||
                        (returns == Return::kSourceRead && host != HostMemory::kPageable);
      return direct(to_dev, host, {{dst, src, bytes}}, stream, wait, what);
    }
    StagedCopy copy = staged(to_dev, dst, src, bytes, stream, what,
                             returns != Return::kAtOnce && options.caller_copies);
    transfer::Lane& lane = to_dev ? *to_device : *to_host;
    if (returns == Return::kSourceRead) {
      // The source is read once every chunk is staged, which is when the last DMA is queued.
      if (options.caller_copies) {
        lane.help_until(*copy.state_->progress, transfer::Lane::Until::kDeviceWorkQueued);
      }
      copy.stream_wait(stream);
      return copy;
    }
    if (synchronous) {
      // This thread would only wait: let it copy slices too. Safe here, where the engine cannot
      // be destroyed under it (the caller is inside one of its calls).
      if (options.caller_copies) {
        lane.help_until(*copy.state_->progress, transfer::Lane::Until::kFinished);
      }
      copy.wait();
    }
    return copy;
  }
};

namespace {

// The span [first, end) of an arena that a batch's blocks cover on one side.
struct Span {
  std::size_t first = std::numeric_limits<std::size_t>::max();
  std::size_t end = 0;
  void add(std::size_t offset, std::size_t bytes) {
    first = std::min(first, offset);
    end = std::max(end, offset + bytes);
  }
};

}  // namespace

void StagedCopier::Impl::blocks(transfer::Flow flow, void* dst_arena, const void* src_arena,
                                const StagedBlock* list, std::size_t count, cudaStream_t stream) {
  const bool to_dev = flow == transfer::Flow::kToDevice;
  const char* what = to_dev ? "batch of blocks to the device" : "batch of blocks to the host";
  if (count == 0) return;
  if (list == nullptr) throw bad_argument(what, "the block list is null");
  if (dst_arena == nullptr) throw bad_argument(what, "the destination arena is null");
  if (src_arena == nullptr) throw bad_argument(what, "the source arena is null");
  auto batch = std::make_shared<std::vector<BatchBlock>>();
  batch->reserve(count);
  std::vector<std::pair<std::size_t, std::size_t>> written;  // (offset, block) in the destination
  Span host_span, device_span;
  std::size_t total = 0;
  const std::size_t most = std::numeric_limits<std::size_t>::max();
  for (std::size_t i = 0; i < count; ++i) {
    const StagedBlock& b = list[i];
    batch->push_back({b.host_offset, b.device_offset, b.bytes});
    if (b.bytes == 0) continue;
    if (b.host_offset > most - b.bytes || b.device_offset > most - b.bytes ||
        total > most - b.bytes) {
      throw bad_argument(what,
                         "block " + std::to_string(i) + " runs past the end of the address space");
    }
    total += b.bytes;
    host_span.add(b.host_offset, b.bytes);
    device_span.add(b.device_offset, b.bytes);
    written.emplace_back(to_dev ? b.device_offset : b.host_offset, i);
  }
  if (total == 0) return;
  std::sort(written.begin(), written.end());
  for (std::size_t k = 1; k < written.size(); ++k) {
    const StagedBlock& before = list[written[k - 1].second];
    const std::size_t end = (to_dev ? before.device_offset : before.host_offset) + before.bytes;
    if (written[k].first < end) {
      throw bad_argument(what, "blocks " + std::to_string(written[k - 1].second) + " and " +
                                   std::to_string(written[k].second) +
                                   " overlap in the destination");
    }
  }
  char* host_arena = static_cast<char*>(to_dev ? const_cast<void*>(src_arena) : dst_arena);
  char* device_arena = static_cast<char*>(to_dev ? dst_arena : const_cast<void*>(src_arena));
  if (reinterpret_cast<std::uintptr_t>(host_arena) > most - host_span.end ||
      reinterpret_cast<std::uintptr_t>(device_arena) > most - device_span.end) {
    throw bad_argument(what, "the blocks run past the end of the address space");
  }

  const EngineRange range(to_dev ? "blocks to device" : "blocks to host");
  const DeviceGuard guard(device);
  const HostMemory kind = check_host(host_arena + host_span.first, host_span.end - host_span.first,
                                     what, to_dev ? "source arena" : "destination arena");
  check_device(device_arena + device_span.first, device_span.end - device_span.first, what,
               to_dev ? "destination arena" : "source arena");
  const StagingRing& ring = to_dev ? options.to_device : options.to_host;
  if (kind != HostMemory::kPageable || (written.size() == 1 && total < ring.direct_below_bytes)) {
    std::vector<Piece> pieces;
    pieces.reserve(written.size());
    for (const BatchBlock& b : *batch) {
      if (b.bytes == 0) continue;
      char* h = host_arena + b.host_offset;
      char* d = device_arena + b.device_offset;
      pieces.push_back({to_dev ? d : h, to_dev ? h : d, b.bytes});
    }
    direct(to_dev, kind, pieces, stream, true, what);
    return;
  }
  StagedCopy copy = staged(to_dev, dst_arena, src_arena, total, stream, what, options.caller_copies,
                           std::move(batch));
  if (options.caller_copies) {
    (to_dev ? *to_device : *to_host)
        .help_until(*copy.state_->progress, transfer::Lane::Until::kFinished);
  }
  copy.wait();
}

void StagedCopier::copy_blocks_to_device(void* device_arena, const void* host_arena,
                                         const StagedBlock* blocks, std::size_t count,
                                         cudaStream_t stream) {
  impl_->blocks(transfer::Flow::kToDevice, device_arena, host_arena, blocks, count, stream);
}

void StagedCopier::copy_blocks_to_host(void* host_arena, const void* device_arena,
                                       const StagedBlock* blocks, std::size_t count,
                                       cudaStream_t stream) {
  impl_->blocks(transfer::Flow::kToHost, host_arena, device_arena, blocks, count, stream);
}

StagedCopier::StagedCopier(const StagedCopyOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}

StagedCopier::~StagedCopier() = default;

void StagedCopier::copy_to_device(void* dst, const void* src, std::size_t bytes,
                                  cudaStream_t stream) {
  impl_->submit(transfer::Flow::kToDevice, dst, src, bytes, stream, Impl::Return::kComplete);
}

void StagedCopier::copy_to_host(void* dst, const void* src, std::size_t bytes,
                                cudaStream_t stream) {
  impl_->submit(transfer::Flow::kToHost, dst, src, bytes, stream, Impl::Return::kComplete);
}

StagedCopy StagedCopier::copy_to_device_ordered(void* dst, const void* src, std::size_t bytes,
                                                cudaStream_t stream) {
  return impl_->submit(transfer::Flow::kToDevice, dst, src, bytes, stream,
                       Impl::Return::kSourceRead);
}

StagedCopy StagedCopier::copy_to_device_async(void* dst, const void* src, std::size_t bytes,
                                              cudaStream_t stream) {
  return impl_->submit(transfer::Flow::kToDevice, dst, src, bytes, stream, Impl::Return::kAtOnce);
}

StagedCopy StagedCopier::copy_to_host_async(void* dst, const void* src, std::size_t bytes,
                                            cudaStream_t stream) {
  return impl_->submit(transfer::Flow::kToHost, dst, src, bytes, stream, Impl::Return::kAtOnce);
}

StagedCopierStats StagedCopier::stats() const {
  StagedCopierStats out;
  out.staged_copies = impl_->staged_copies.load(std::memory_order_relaxed);
  out.direct_copies = impl_->direct_copies.load(std::memory_order_relaxed);
  out.staged_bytes = impl_->staged_bytes.load(std::memory_order_relaxed);
  out.direct_bytes = impl_->direct_bytes.load(std::memory_order_relaxed);
  out.cpu_budget = impl_->budget.usable;
  out.host_threads = impl_->pool->threads();
  const auto in = impl_->pool->stats(0);
  const auto back = impl_->pool->stats(1);
  out.to_device_thread_s = 1e-9 * static_cast<double>(in.busy_ns);
  out.to_host_thread_s = 1e-9 * static_cast<double>(back.busy_ns);
  out.to_device_slices = in.slices;
  out.to_host_slices = back.slices;
  out.to_device_most_threads = in.most_workers;
  out.to_host_most_threads = back.most_workers;
  out.prefaulted_copies = impl_->to_host->prefaulted_copies();
  out.huge_page_copies = impl_->to_host->huge_page_copies();
  return out;
}

const StagedCopyOptions& StagedCopier::options() const {
  return impl_->options;
}

int StagedCopier::device() const {
  return impl_->device;
}

bool StagedCopier::streaming_stores_available() {
  return transfer::streaming_stores_available();
}

std::size_t StagedCopier::staging_bytes() const {
  return pinbench::staging_bytes(impl_->options);
}

void StagedCopy::wait() const {
  if (!state_) return;
  const State& s = *state_;
  if (s.progress) {
    s.progress->wait_finished();
    if (s.progress->failed()) {
      s.throw_failure(static_cast<cudaError_t>(s.progress->code()), s.progress->message(),
                      s.progress->delivered());
    }
    return;
  }
  if (const cudaError_t err = cudaEventSynchronize(s.done); err != cudaSuccess) {
    s.throw_failure(err, describe_cuda_error("cudaEventSynchronize", err), 0);
  }
}

bool StagedCopy::done() const {
  if (!state_) return true;
  if (state_->progress) return state_->progress->finished();
  const cudaError_t err = cudaEventQuery(state_->done);
  if (err == cudaErrorNotReady) return false;
  if (err != cudaSuccess) (void)cudaGetLastError();  // wait() reports it
  return true;
}

void StagedCopy::stream_wait(cudaStream_t stream) const {
  if (!state_) return;
  const State& s = *state_;
  if (s.progress) {
    s.progress->wait_device_work_queued();
    if (s.progress->failed()) {
      s.progress->wait_finished();  // report a failure only once nothing touches the memory
      s.throw_failure(static_cast<cudaError_t>(s.progress->code()), s.progress->message(),
                      s.progress->delivered());
    }
  }
  if (const cudaError_t err = cudaStreamWaitEvent(stream, s.done, 0); err != cudaSuccess) {
    s.throw_failure(err, describe_cuda_error("cudaStreamWaitEvent", err), 0);
  }
}

std::size_t StagedCopy::bytes() const {
  return state_ ? state_->bytes : 0;
}

bool StagedCopy::staged() const {
  return state_ && state_->progress != nullptr;
}

}  // namespace pinbench
