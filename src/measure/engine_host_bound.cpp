// The host team of engine_host_bound.hpp. Slices are claimed from one counter over the whole job,
// chunk after chunk, so threads move on to the next chunk as the engine's pool does.
#include "measure/engine_host_bound.hpp"

#include <algorithm>

#include "base/chunk_plan.hpp"
#include "cuda/check.hpp"
#include "transfer/host_copy.hpp"

namespace pinbench {

std::size_t ring_bytes(const StagingRing& r) {
  return r.chunk_bytes * static_cast<std::size_t>(r.depth);
}

HostJob engine_job(const StagedCopyOptions& engine, bool to_device, char* pageable, char* ring,
                   std::size_t bytes) {
  const StagingRing& r = to_device ? engine.to_device : engine.to_host;
  HostJob job;
  job.fill = to_device;
  job.pageable = pageable;
  job.ring = ring;
  job.bytes = bytes;
  job.chunk_bytes = r.chunk_bytes;
  job.depth = r.depth;
  job.streaming = !to_device && engine.streaming_drain;
  job.streaming_edges = to_device && engine.streaming_fill_edges;
  return job;
}

HostTeam::HostTeam(int threads) {
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

HostTeam::~HostTeam() {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stop_.store(true, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

HostTeam::Awake::Awake(HostTeam& team) : team_(team) {
  {
    std::lock_guard<std::mutex> lock(team_.sleep_mutex_);
    team_.awake_.fetch_add(1, std::memory_order_acq_rel);
  }
  team_.wake_.notify_all();
}

HostTeam::Awake::~Awake() {
  team_.awake_.fetch_sub(1, std::memory_order_acq_rel);
}

void HostTeam::start(const HostJob& job, int slice_threads) {
  job_ = job;
  slices_per_chunk_ = slice_count(job.chunk_bytes, slice_threads);
  const std::size_t chunks = (job.bytes + job.chunk_bytes - 1) / job.chunk_bytes;
  total_slices_ = chunks * slices_per_chunk_;
  copied_.store(0, std::memory_order_relaxed);
  next_.store(0, std::memory_order_relaxed);
  finished_.store(0, std::memory_order_relaxed);
  {
    // Under the mutex, so a worker deciding to sleep either sees the job or is woken for it.
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    generation_.fetch_add(1, std::memory_order_acq_rel);  // publishes the job
  }
  if (awake_.load(std::memory_order_acquire) == 0) wake_.notify_all();
}

void HostTeam::copy_slices() {
  std::size_t done = 0;
  while (true) {
    const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= total_slices_) break;
    const std::size_t chunk = i / slices_per_chunk_;
    const std::size_t offset = chunk * job_.chunk_bytes;
    const std::size_t len = std::min(job_.chunk_bytes, job_.bytes - offset);
    char* host = job_.pageable + offset;
    char* slot = job_.ring + (chunk % static_cast<std::size_t>(job_.depth)) * job_.chunk_bytes;
    const Chunk s = slice_of(len, reinterpret_cast<std::uintptr_t>(host), slices_per_chunk_,
                             i % slices_per_chunk_);
    if (s.bytes != 0) {
      using transfer::Stores;
      if (job_.fill) {
        const bool edge = job_.streaming_edges && (chunk + 2) * job_.chunk_bytes >= job_.bytes;
        transfer::copy_with(edge ? Stores::kStreaming : Stores::kCached, slot + s.offset,
                            host + s.offset, s.bytes);
      } else {
        transfer::copy_with(job_.streaming ? Stores::kStreaming : Stores::kCached, host + s.offset,
                            slot + s.offset, s.bytes);
      }
    }
    ++done;
  }
  if (done != 0) copied_.fetch_add(done, std::memory_order_acq_rel);
}

void HostTeam::help() {
  copy_slices();
}

void HostTeam::wait() {
  // Every worker too, so none is still inside this job when the next one is written.
  while (copied_.load(std::memory_order_acquire) < total_slices_ ||
         finished_.load(std::memory_order_acquire) < static_cast<int>(workers_.size())) {
    std::this_thread::yield();
  }
}

void HostTeam::work() {
  std::uint64_t seen = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    const std::uint64_t g = generation_.load(std::memory_order_acquire);
    if (g == seen) {
      if (awake_.load(std::memory_order_acquire) > 0) {
        std::this_thread::yield();
      } else {
        std::unique_lock<std::mutex> lock(sleep_mutex_);
        sleeping_.fetch_add(1, std::memory_order_acq_rel);
        wake_.wait(lock, [&] {
          return stop_.load(std::memory_order_acquire) ||
                 awake_.load(std::memory_order_acquire) > 0 ||
                 generation_.load(std::memory_order_acquire) != seen;
        });
        sleeping_.fetch_sub(1, std::memory_order_acq_rel);
      }
      continue;
    }
    seen = g;
    copy_slices();
    finished_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void queue_dma(bool to_device, char* pinned, char* device, std::size_t chunk_bytes, int depth,
               std::size_t bytes, cudaStream_t stream) {
  const std::size_t n = (bytes + chunk_bytes - 1) / chunk_bytes;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t at = (k % static_cast<std::size_t>(depth)) * chunk_bytes;
    const std::size_t len = std::min(chunk_bytes, bytes - k * chunk_bytes);
    if (to_device) {
      PINBENCH_CUDA_TRY(
          cudaMemcpyAsync(device + at, pinned + at, len, cudaMemcpyHostToDevice, stream));
    } else {
      PINBENCH_CUDA_TRY(
          cudaMemcpyAsync(pinned + at, device + at, len, cudaMemcpyDeviceToHost, stream));
    }
  }
}

}  // namespace pinbench
