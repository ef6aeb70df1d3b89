// `pinbench staged` and `pinbench staged --tune`.
//
// Every way a user could move pageable memory, in each direction and at each size: the staged
// engine (pinbench::StagedCopier), plain cudaMemcpyAsync from pageable memory, cudaMemcpyBatchAsync
// with each source access order, several threads each copying a slice on a stream of their own,
// cudaHostRegister + copy + cudaHostUnregister, and, where the device can read pageable memory,
// a kernel doing the copy; and cudaMemcpyAsync from page-locked memory as the ceiling. Every
// sample is timed with the host clock from the call to the copy's completion (the staged engine
// works on host threads, so that is the only honest figure, and every method is timed the same
// way), after its destination was cleared, and is checked byte for byte after it: a device
// destination is read back through page-locked memory, a host one compared directly. The
// odd sizes run from a host address 3 bytes and a device address 1 byte past a page (by default).
//
// In the same run, at every page-aligned size from 1 MiB up, the engine's bound
// (measure/engine_host_bound.hpp): its host threads copying in its shape alone ("host") and while
// the copy engine moves other page-locked data the same way ("host-under-dma"), as cases of part
// "bound". The analysis takes the lesser of that rate and pinned memory's as the engine's bound.
//
// The engine's CPU: around the timed samples of its cases (methods staged and
// staged-back-to-back), getrusage(RUSAGE_SELF) before and after each timed interval, summed into
// the case's extra (user and system seconds, voluntary and involuntary context switches, and
// the wall time they cover); and once per run, after the last case, the process while the
// engine sits idle (config.idle_engine). Whole-process figures: the engine's threads, the
// caller's, and whatever CUDA's own threads do; the other teams of the run sleep meanwhile.
#include "experiments/staged/measure.hpp"

#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "base/batch_copy.hpp"
#include "base/chunk_plan.hpp"
#include "base/cuda_error_text.hpp"
#include "base/nvtx_domain.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/copy_kernels.cuh"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "experiments/staged/analysis.hpp"
#include "framework/case_builder.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/engine_host_bound.hpp"
#include "measure/engine_stats.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench::experiments::staged {
namespace {

constexpr std::uint64_t kSeed = 0x57A6EDB;

// One reading of the process's CPU counters and the clock; add_since() sums what changed since
// it into an EngineCpu. Read outside timed intervals: getrusage is a system call.
struct CpuMark {
  rusage usage{};
  std::chrono::steady_clock::time_point at;

  static CpuMark now() {
    CpuMark m;
    (void)getrusage(RUSAGE_SELF, &m.usage);
    m.at = std::chrono::steady_clock::now();
    return m;
  }
  void add_since(EngineCpu& into) const {
    const CpuMark end = now();
    const auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    into.user_s += seconds(end.usage.ru_utime) - seconds(usage.ru_utime);
    into.sys_s += seconds(end.usage.ru_stime) - seconds(usage.ru_stime);
    const auto grown = [](long after, long before) {
      return static_cast<std::uint64_t>(std::max(0L, after - before));
    };
    into.voluntary += grown(end.usage.ru_nvcsw, usage.ru_nvcsw);
    into.involuntary += grown(end.usage.ru_nivcsw, usage.ru_nivcsw);
    into.wall_s += std::chrono::duration<double>(end.at - at).count();
  }
};

// How long the idle engine is left alone before it is measured (its threads' spins end within
// a few milliseconds), and how long it is measured.
constexpr std::chrono::milliseconds kIdleSettle{300};
constexpr std::chrono::milliseconds kIdleMeasured{1000};

// Threads made once that each copy one slice of a copy on a stream of their own: the
// multithread-driver method, as a user with a thread pool would write it.
class DriverTeam {
 public:
  explicit DriverTeam(int threads) {
    for (int i = 0; i < threads; ++i) streams_.emplace_back();
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~DriverTeam() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  DriverTeam(const DriverTeam&) = delete;
  DriverTeam& operator=(const DriverTeam&) = delete;

  // Splits the copy into one slice per thread and returns when every slice has completed.
  void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    std::unique_lock<std::mutex> lock(mutex_);
    dst_ = static_cast<char*>(dst);
    src_ = static_cast<const char*>(src);
    bytes_ = bytes;
    kind_ = kind;
    pending_ = static_cast<int>(workers_.size());
    error_.clear();
    error_code_ = 0;
    ++generation_;
    start_.notify_all();
    done_.wait(lock, [&] { return pending_ == 0; });
    if (!error_.empty()) throw CudaError(error_code_, error_);
  }

 private:
  void work(int index) {
    std::uint64_t seen = 0;
    while (true) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      const std::size_t n = workers_.size();
      const auto i = static_cast<std::size_t>(index);
      const std::size_t begin = bytes_ / n * i + std::min(i, bytes_ % n);
      const std::size_t len = bytes_ / n + (i < bytes_ % n ? 1 : 0);
      char* dst = dst_ + begin;
      const char* src = src_ + begin;
      const cudaMemcpyKind kind = kind_;
      lock.unlock();
      cudaError_t err = cudaSuccess;
      if (len > 0) {
        const cudaStream_t s = streams_[i].get();
        err = cudaMemcpyAsync(dst, src, len, kind, s);
        if (err == cudaSuccess) err = cudaStreamSynchronize(s);
        if (err != cudaSuccess) (void)cudaGetLastError();
      }
      lock.lock();
      if (err != cudaSuccess && error_.empty()) {
        // The first slice's failure, with CUDA's own code, so the run's exit says what failed.
        error_ = cuda_error_text("cudaMemcpyAsync of a slice", err);
        error_code_ = static_cast<int>(err);
      }
      if (--pending_ == 0) done_.notify_all();
    }
  }

  std::vector<cuda::Stream> streams_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
  int pending_ = 0;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  std::size_t bytes_ = 0;
  cudaMemcpyKind kind_ = cudaMemcpyDefault;
  std::string error_;
  int error_code_ = 0;  // the cudaError_t of error_
};

// The run's buffers, sized for its largest case plus room for the offsets. `src` holds the
// reference bytes and `ref` the same bytes on the device; nothing ever writes either again.
struct Buffers {
  Buffers(std::uint64_t bytes, bool pinned_source)
      : size(bytes),
        src(bytes, MemoryKind::kPageable),
        dst(bytes, MemoryKind::kPageable),
        pinned_aux(bytes, MemoryKind::kPinned),
        dev(bytes),
        ref(bytes) {
    fill_pattern(src.data(), bytes, kSeed);
    if (pinned_source) {
      pinned_src = cuda::HostBuffer(bytes, MemoryKind::kPinned);
      std::memcpy(pinned_src.data(), src.data(), bytes);
    }
    PINBENCH_CUDA_TRY(cudaMemcpy(ref.data(), src.data(), bytes, cudaMemcpyHostToDevice));
  }
  std::uint64_t size;
  cuda::HostBuffer src;         // pageable: the reference bytes, the h2d source
  cuda::HostBuffer dst;         // pageable: the d2h destination
  cuda::HostBuffer pinned_src;  // page-locked copy of src: the ceiling's h2d source
  cuda::HostBuffer pinned_aux;  // page-locked: the ceiling's d2h destination and the read-back
  cuda::DeviceBuffer dev;       // the h2d destination
  cuda::DeviceBuffer ref;       // the reference bytes on the device: the d2h source
};

// Memory never written: an anonymous mapping made anew before each sample (outside the timing),
// as a new `.cpu()` tensor or numpy.empty of this size gets it from the allocator.
class FreshHost {
 public:
  explicit FreshHost(std::size_t bytes) : bytes_(bytes) { renew(); }
  ~FreshHost() { release(); }
  FreshHost(const FreshHost&) = delete;
  FreshHost& operator=(const FreshHost&) = delete;
  void renew() {
    release();
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      throw std::runtime_error(
          fmt::format("could not map {} of fresh memory", format_size(bytes_)));
    }
    p_ = static_cast<char*>(p);
  }
  char* data() const { return p_; }

 private:
  void release() {
    if (p_ != nullptr) (void)munmap(p_, bytes_);
    p_ = nullptr;
  }
  std::size_t bytes_;
  char* p_ = nullptr;
};

// One case's two ends and what its destination must hold afterwards.
struct Leg {
  bool to_device = true;
  void* host = nullptr;    // source (h2d) or destination (d2h)
  void* device = nullptr;  // destination (h2d) or source (d2h)
  const void* expected = nullptr;
  std::size_t bytes = 0;
  // staged-fresh: the destination is this mapping, `host_offset` into it, mapped anew by clear()
  std::shared_ptr<FreshHost> fresh;
  std::size_t host_offset = 0;
  void* host_end() const { return fresh ? fresh->data() + host_offset : host; }
};

Leg make_leg(Buffers& b, Direction d, StagedMethod m, std::size_t bytes, std::uint64_t host_off,
             std::uint64_t dev_off) {
  Leg l;
  l.to_device = d == Direction::kH2D;
  l.bytes = bytes;
  if (l.to_device) {
    cuda::HostBuffer& h = m == StagedMethod::kPinned ? b.pinned_src : b.src;
    l.host = static_cast<char*>(h.data()) + host_off;
    l.device = static_cast<char*>(b.dev.data()) + dev_off;
    l.expected = static_cast<const char*>(b.src.data()) + host_off;
  } else if (m == StagedMethod::kStagedFresh) {
    l.fresh = std::make_shared<FreshHost>(bytes + host_off);
    l.host_offset = host_off;
    l.device = static_cast<char*>(b.ref.data()) + dev_off;
    l.expected = static_cast<const char*>(b.src.data()) + dev_off;
  } else {
    cuda::HostBuffer& h = m == StagedMethod::kPinned ? b.pinned_aux : b.dst;
    l.host = static_cast<char*>(h.data()) + host_off;
    l.device = static_cast<char*>(b.ref.data()) + dev_off;
    l.expected = static_cast<const char*>(b.src.data()) + dev_off;
  }
  return l;
}

// Everything the methods share: the stream, the engine, the driver team.
struct Methods {
  cudaStream_t stream = nullptr;
  StagedCopier* copier = nullptr;
  DriverTeam* team = nullptr;
  bool last_staged = false;  // whether the engine's last copy was staged (else direct)

  void sync() const { PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream)); }

  void batch(const Leg& l, cudaMemcpySrcAccessOrder order) const {
    void* dsts[1] = {l.to_device ? l.device : l.host_end()};
    const void* srcs[1] = {l.to_device ? static_cast<const void*>(l.host_end())
                                       : static_cast<const void*>(l.device)};
    std::size_t sizes[1] = {l.bytes};
    cudaMemcpyAttributes attr = batch_copy_attributes(l.to_device, order, cuda::selected_device());
    std::size_t first[1] = {0};
    PINBENCH_CUDA_TRY(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, first, 1, stream));
    sync();
  }

  // One copy of the leg by method `m`, returned from when it has completed.
  void run(StagedMethod m, const Leg& l) {
    const cudaMemcpyKind kind = l.to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    void* dst = l.to_device ? l.device : l.host_end();
    const void* src = l.to_device ? l.host_end() : l.device;
    switch (m) {
      case StagedMethod::kStaged:
      case StagedMethod::kStagedBackToBack:
      case StagedMethod::kStagedFresh: {
        // The synchronous call, as a program that wants the data now would make it.
        const std::uint64_t before = copier->stats().staged_copies;
        if (l.to_device) {
          copier->copy_to_device(dst, src, l.bytes, stream);
        } else {
          copier->copy_to_host(dst, src, l.bytes, stream);
        }
        last_staged = copier->stats().staged_copies != before;
        return;
      }
      case StagedMethod::kPinned:
      case StagedMethod::kPageableDriver:
        PINBENCH_CUDA_TRY(cudaMemcpyAsync(dst, src, l.bytes, kind, stream));
        sync();
        return;
      case StagedMethod::kBatchStream:
        batch(l, cudaMemcpySrcAccessOrderStream);
        return;
      case StagedMethod::kBatchDuringCall:
        batch(l, cudaMemcpySrcAccessOrderDuringApiCall);
        return;
      case StagedMethod::kBatchAny:
        batch(l, cudaMemcpySrcAccessOrderAny);
        return;
      case StagedMethod::kMultithreadDriver:
        team->copy(dst, src, l.bytes, kind);
        return;
      case StagedMethod::kRegisterCopy: {
        PINBENCH_CUDA_TRY(cudaHostRegister(l.host, l.bytes, cudaHostRegisterDefault));
        const cudaError_t err = cudaMemcpyAsync(dst, src, l.bytes, kind, stream);
        const cudaError_t synced = err == cudaSuccess ? cudaStreamSynchronize(stream) : err;
        PINBENCH_CUDA_TRY(cudaHostUnregister(l.host));
        PINBENCH_CUDA_TRY(synced);
        return;
      }
      case StagedMethod::kSmPageableKernel:
        cuda::launch_sm_copy(dst, src, l.bytes, stream);
        sync();
        return;
    }
  }
};

// Clears the leg's destination (outside any timed interval).
void clear(const Leg& l, cudaStream_t stream) {
  if (l.to_device) {
    PINBENCH_CUDA_TRY(cudaMemsetAsync(l.device, 0, l.bytes, stream));
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream));
  } else if (l.fresh) {
    l.fresh->renew();  // never written: nothing to clear, and no page of it exists yet
  } else {
    std::memset(l.host, 0, l.bytes);
  }
}

// The offset of the first byte of the leg's destination that differs from the reference, if any.
std::optional<std::size_t> check(const Leg& l, Buffers& b, cudaStream_t stream) {
  if (!l.to_device) return first_mismatch(l.host_end(), l.expected, l.bytes);
  PINBENCH_CUDA_TRY(
      cudaMemcpyAsync(b.pinned_aux.data(), l.device, l.bytes, cudaMemcpyDeviceToHost, stream));
  PINBENCH_CUDA_TRY(cudaStreamSynchronize(stream));
  return first_mismatch(b.pinned_aux.data(), l.expected, l.bytes);
}

// How the bound's team copies, as the record says.
std::string bound_copy_text(const StagedCopyOptions& engine, bool to_device) {
  const bool nt = StagedCopier::streaming_stores_available();
  if (to_device) {
    return engine.streaming_fill_edges && nt ? "memcpy, the last two chunks non-temporal stores"
                                             : "memcpy";
  }
  return engine.streaming_drain && nt ? "non-temporal stores" : "memcpy";
}

std::string sample_failure(int sample, std::size_t offset, std::size_t bytes) {
  return fmt::format("sample {}: the first differing byte is at offset {} of {}", sample, offset,
                     bytes);
}

// Warm-ups, then timed samples, a fixed count of them. `check_every`: each sample between a
// clear and a byte check. Otherwise the samples run back to back as one batch, with nothing
// between them: the destination is cleared before the warm-ups and checked after the last sample
// (every copy writes the same bytes). A CUDA or engine failure is the case's failure. `cpu`,
// when given, gets the process's CPU use over the timed samples (each sample's interval, or the
// batch's), not over the clears, checks and warm-ups.
Timed measure(Methods& methods, StagedMethod m, const Leg& l, Buffers& b, int warmups,
              int iterations, bool check_every = true, EngineCpu* cpu = nullptr) {
  const StopRule rule = StopRule::fixed(iterations);
  Timed out;
  try {
    if (check_every) {
      Sampler sampler(rule, SampleClock::kHostClock);
      out = sampler.run(
          [&](Sampler& s, int sample, int, Timed& t) {
            clear(l, methods.stream);
            const CpuMark mark = cpu != nullptr ? CpuMark::now() : CpuMark{};
            s.start(0);
            methods.run(m, l);
            s.stop(0);
            if (cpu != nullptr) mark.add_since(*cpu);
            t.samples_ms.push_back(s.elapsed_ms(0));
            if (const auto bad = check(l, b, methods.stream)) {
              t.fail(sample_failure(sample, *bad, l.bytes));
            }
          },
          [&] {
            for (int w = 0; w < warmups; ++w) methods.run(m, l);
          });
    } else {
      Sampler sampler(rule, SampleClock::kHostClock, iterations);
      out = sampler.run(
          [&](Sampler& s, int first, int count, Timed& t) {
            const CpuMark mark = cpu != nullptr ? CpuMark::now() : CpuMark{};
            for (int i = 0; i < count; ++i) {
              s.start(i);
              methods.run(m, l);
              s.stop(i);
              t.samples_ms.push_back(s.elapsed_ms(i));
            }
            if (cpu != nullptr) mark.add_since(*cpu);
            if (const auto bad = check(l, b, methods.stream)) {
              t.fail(sample_failure(first + count - 1, *bad, l.bytes));
            }
          },
          [&] {
            clear(l, methods.stream);
            for (int w = 0; w < warmups; ++w) methods.run(m, l);
          });
    }
  } catch (const std::exception& e) {
    out.fail(e.what());
  }
  return out;
}

// What the bound cases share: one team per direction, sized as the engine's ring (its pool, and
// the synchronous call's own thread where the engine lets it help), each ring's page-locked
// memory, and page-locked and device memory for the DMA that runs beside them.
struct BoundRig {
  explicit BoundRig(const StagedCopyOptions& o)
      : engine(o),
        fill_team(o.to_device.threads),
        drain_team(o.to_host.threads),
        fill_ring(ring_bytes(o.to_device), MemoryKind::kPinned),
        drain_ring(ring_bytes(o.to_host), MemoryKind::kPinned),
        dma_ring(std::max(ring_bytes(o.to_device), ring_bytes(o.to_host)), MemoryKind::kPinned),
        dma_dev(std::max(ring_bytes(o.to_device), ring_bytes(o.to_host))) {}
  const StagedCopyOptions& engine;
  HostTeam fill_team;
  HostTeam drain_team;
  cuda::HostBuffer fill_ring;
  cuda::HostBuffer drain_ring;
  cuda::HostBuffer dma_ring;
  cuda::DeviceBuffer dma_dev;
  cuda::Stream dma_stream;
};

// The host side alone or under DMA: its threads move `bytes` of the run's pageable memory in
// one direction, timed from handing the job out to its last slice; under DMA, the copy engine
// moves three times as many other page-locked bytes the same way (queued before the clock
// starts, waited for after it stops), so it runs for the whole host copy. Bytes are checked
// after the last sample: to the device, one untimed fill of the ring's slots, each once; to the
// host, the whole destination.
Timed measure_host(BoundRig& rig, Buffers& b, bool to_device, bool under_dma, std::size_t bytes,
                   int warmups, int iterations) {
  const StagingRing& ring = to_device ? rig.engine.to_device : rig.engine.to_host;
  HostTeam& team = to_device ? rig.fill_team : rig.drain_team;
  const HostTeam::Awake awake(team);  // spinning for this case's samples only
  const HostJob job =
      engine_job(rig.engine, to_device, static_cast<char*>(to_device ? b.src.data() : b.dst.data()),
                 static_cast<char*>((to_device ? rig.fill_ring : rig.drain_ring).data()), bytes);
  const std::size_t chunks = (bytes + ring.chunk_bytes - 1) / ring.chunk_bytes;
  if (!to_device) {
    // What the drain writes: the reference bytes' first chunks, one per slot.
    std::memcpy(job.ring, b.src.data(), std::min<std::size_t>(ring_bytes(ring), b.size));
  }
  const auto once = [&](Sampler* s) {
    if (under_dma) {
      queue_dma(to_device, static_cast<char*>(rig.dma_ring.data()),
                static_cast<char*>(rig.dma_dev.data()), ring.chunk_bytes, ring.depth, 3 * bytes,
                rig.dma_stream.get());
    }
    if (s != nullptr) s->start(0);
    team.start(job, ring.threads);
    if (rig.engine.caller_copies) team.help();
    team.wait();
    if (s != nullptr) s->stop(0);
    rig.dma_stream.synchronize();
  };
  Timed out;
  try {
    Sampler sampler(StopRule::fixed(iterations), SampleClock::kHostClock);
    out = sampler.run(
        [&](Sampler& s, int sample, int, Timed& t) {
          once(&s);
          t.samples_ms.push_back(s.elapsed_ms(0));
          if (sample + 1 < iterations) return;
          if (to_device) {
            // In a timed pass the threads run free over chunks that share a slot (the bound
            // has no flow control: it times the host side, not a staged copy), so which chunk
            // a slot holds last is not known. One untimed pass over the first chunks, each
            // slot written once, checks the bytes the same threads and slices move.
            HostJob check = job;
            check.bytes = std::min(bytes, ring_bytes(ring));
            team.start(check, ring.threads);
            if (rig.engine.caller_copies) team.help();
            team.wait();
            for (std::size_t off = 0, k = 0; off < check.bytes; off += ring.chunk_bytes, ++k) {
              const std::size_t len = std::min(ring.chunk_bytes, check.bytes - off);
              if (std::memcmp(job.ring + off, job.pageable + off, len) != 0) {
                t.fail(fmt::format(
                    "sample {}: chunk {} differs between the ring and pageable memory", sample, k));
                return;
              }
            }
          }
          if (!to_device) {
            for (std::size_t k = 0; k < chunks; ++k) {
              const std::size_t off = k * ring.chunk_bytes;
              const std::size_t len = std::min(ring.chunk_bytes, bytes - off);
              const char* slot =
                  job.ring + (k % static_cast<std::size_t>(ring.depth)) * ring.chunk_bytes;
              if (std::memcmp(job.pageable + off, slot, len) != 0) {
                t.fail(fmt::format("sample {}: drained chunk {} differs from its slot", sample, k));
                return;
              }
            }
          }
        },
        [&] {
          for (int w = 0; w < warmups; ++w) once(nullptr);
        });
  } catch (const std::exception& e) {
    out.fail(e.what());
  }
  return out;
}

// A staged run's record, buffers and methods, which every case uses.
struct StagedRun {
  const StagedBenchConfig& config;
  RunRecord& record;
  const ProgressFn& progress;
  Buffers& b;
  Methods& methods;
  std::optional<BoundRig>& rig;
  bool kinds_ok;          // every buffer is of the memory kind it should be
  std::size_t total = 0;  // the cases to measure, for the progress lines
  std::size_t n = 0;      // those begun
};

// A size measured, and how far past a page its host and device ends start.
struct Size {
  std::uint64_t bytes, host_off, dev_off;
};

// The configured methods this device can run; the others go to the config's "skipped", with why.
std::vector<StagedMethod> methods_to_run(const StagedBenchConfig& config, RunRecord& record) {
  const bool pageable_access = record.machine.pageable_memory_access != 0;
  nlohmann::json skipped = nlohmann::json::array();
  std::vector<StagedMethod> methods_run;
  for (StagedMethod m : config.methods) {
    if (m == StagedMethod::kSmPageableKernel && !pageable_access) {
      nlohmann::json skip = nlohmann::json::object();
      put_fields(skip, StagedSkip{to_string(m),
                                  "the device cannot reach pageable memory from a kernel "
                                  "(cudaDevAttrPageableMemoryAccess is 0)"});
      skipped.push_back(std::move(skip));
      continue;
    }
    methods_run.push_back(m);
  }
  record.config["skipped"] = skipped;
  return methods_run;
}

// The aligned sizes and the odd ones, smallest first.
std::vector<Size> sizes_to_run(const StagedBenchConfig& config) {
  std::vector<Size> sizes;
  for (std::uint64_t s : config.sizes) sizes.push_back({s, 0, 0});
  for (std::uint64_t s : config.odd_sizes)
    sizes.push_back({s, config.host_offset, config.device_offset});
  std::stable_sort(sizes.begin(), sizes.end(),
                   [](const Size& x, const Size& y) { return x.bytes < y.bytes; });
  return sizes;
}

// The engine's bound at one size and direction: its host threads alone, or under DMA.
void measure_bound_case(StagedRun& run, Direction d, std::uint64_t bytes, bool under_dma) {
  const StagedBenchConfig& config = run.config;
  const bool to_device = d == Direction::kH2D;
  const char* method = under_dma ? "host-under-dma" : "host";
  run.progress(fmt::format("[{}/{}] {} bound: {} {}", ++run.n, run.total, to_string(d), method,
                           format_size(bytes)));
  const PhaseRange range(fmt::format("bound {} {} {}", to_string(d), method, size_token(bytes)));
  const Timed r =
      measure_host(*run.rig, run.b, to_device, under_dma, bytes, config.warmups, config.iterations);
  const StagingRing& ring = to_device ? config.engine.to_device : config.engine.to_host;
  const CaseSpec spec{"bound",        to_string(d),
                      "pageable",     method,
                      "host_clock",   bytes,
                      config.warmups, gate_name({"bound", to_string(d), method}, bytes)};
  Case c = make_case(spec, r, run.kinds_ok);
  c.extra = {{"chunk_bytes", ring.chunk_bytes},
             {"depth", ring.depth},
             {"threads", ring.threads + (config.engine.caller_copies ? 1 : 0)},
             {"copy", bound_copy_text(config.engine, to_device)}};
  run.record.gates.push_back(
      sampled_gate(c.gate, r,
                   to_device ? "after the last sample, an untimed fill of each slot once left the "
                               "source's first chunks in their slots"
                             : "after the last sample the destination held every slot's bytes"));
  run.record.cases.push_back(std::move(c));
}

// One method at one size and direction.
void measure_method_case(StagedRun& run, Direction d, const Size& s, StagedMethod m) {
  const StagedBenchConfig& config = run.config;
  ++run.n;
  run.progress(fmt::format("[{}/{}] {} {} {}{}", run.n, run.total, to_string(d), to_string(m),
                           format_size(s.bytes), s.host_off || s.dev_off ? " unaligned" : ""));
  const Leg leg = make_leg(run.b, d, m, s.bytes, s.host_off, s.dev_off);
  const bool back_to_back = m == StagedMethod::kStagedBackToBack;
  const PhaseRange range(fmt::format("staged {} {} {}", to_string(d), to_string(m),
                                     size_token(s.bytes, s.host_off, s.dev_off)));
  const bool engine = m == StagedMethod::kStaged || back_to_back || m == StagedMethod::kStagedFresh;
  EngineCpu cpu;
  Timed r = measure(run.methods, m, leg, run.b, config.warmups, config.iterations, !back_to_back,
                    engine ? &cpu : nullptr);
  // A registration left behind would make every later "pageable" figure a pinned one.
  if (m == StagedMethod::kRegisterCopy && !r.failed &&
      cuda::observed_memory_kind(leg.host) != "pageable") {
    r.fail("the host buffer is still registered after cudaHostUnregister");
  }
  const CaseSpec spec{"staged",
                      to_string(d),
                      m == StagedMethod::kPinned ? "pinned" : "pageable",
                      to_string(m),
                      "host_clock",
                      s.bytes,
                      config.warmups,
                      gate_name({"staged", to_string(d), to_string(m)},
                                size_token(s.bytes, s.host_off, s.dev_off))};
  Case c = make_case(spec, r, run.kinds_ok);
  c.extra = {{"host_offset", s.host_off}, {"device_offset", s.dev_off}};
  if (engine && !r.failed) c.extra["path"] = run.methods.last_staged ? "staged" : "direct";
  if (engine && cpu.wall_s > 0.0) put_engine_cpu(c.extra, cpu);
  if (m == StagedMethod::kMultithreadDriver) c.extra["threads"] = config.driver_threads;
  std::string passed =
      back_to_back ? fmt::format("after {} copies back to back, the destination held all {} bytes",
                                 config.warmups + static_cast<int>(r.samples_ms.size()), s.bytes)
                   : every_sample_detail(r.samples_ms.size(), s.bytes);
  run.record.gates.push_back(sampled_gate(c.gate, r, passed));
  run.record.cases.push_back(std::move(c));
}

// The engine idle, after every case: its threads' spins have long ended, and what is left is
// what an engine made once and kept costs a program between its copies.
void measure_idle_engine(RunRecord& record, const ProgressFn& progress) {
  progress("the engine idle: 0.3 s to settle, then 1 s measured");
  std::this_thread::sleep_for(kIdleSettle);
  EngineCpu idle;
  const CpuMark mark = CpuMark::now();
  std::this_thread::sleep_for(kIdleMeasured);
  mark.add_since(idle);
  nlohmann::json j = nlohmann::json::object();
  put_fields(j, IdleEngineConfig{std::chrono::duration<double>(kIdleSettle).count()});
  put_engine_cpu(j, idle);
  record.config["idle_engine"] = j;
}

}  // namespace

RunRecord run_staged(const StagedBenchConfig& config, const ProgressFn& progress) {
  const auto start = SteadyClock::now();
  config.validate();
  RunRecord record = start_record("staged", to_json(config));
  const std::string problem = staged_fit_problem(config, cuda::device_free_bytes(),
                                                 host_memory_bytes(), host_available_bytes());
  if (!problem.empty()) throw InputError(problem);
  record.config["timing"] = "host clock from the call to the copy's completion, every method alike";
  record.config["engine"]["streaming_stores"] = StagedCopier::streaming_stores_available();

  const auto has = [&](StagedMethod m) {
    return std::find(config.methods.begin(), config.methods.end(), m) != config.methods.end();
  };
  const bool pinned_source =
      has(StagedMethod::kPinned) && std::find(config.directions.begin(), config.directions.end(),
                                              Direction::kH2D) != config.directions.end();
  progress(fmt::format("allocating {} of host memory and {} of page-locked staging",
                       format_size(4 * (config.largest() + 2 * kHostPageBytes)),
                       format_size(staging_bytes(config.engine))));
  Buffers b(config.largest() + 2 * kHostPageBytes, pinned_source);
  StagedCopier copier(config.engine);
  DriverTeam team(config.driver_threads);
  cuda::Stream stream;
  Methods methods{stream.get(), &copier, &team};

  record.gates.push_back(kind_gate("kind/source", b.src.data(), "pageable"));
  record.gates.push_back(kind_gate("kind/destination", b.dst.data(), "pageable"));
  record.gates.push_back(kind_gate("kind/read-back", b.pinned_aux.data(), "pinned"));
  if (pinned_source)
    record.gates.push_back(kind_gate("kind/pinned-source", b.pinned_src.data(), "pinned"));
  const bool kinds_ok = gates_passed(record.gates);

  const std::vector<StagedMethod> methods_run = methods_to_run(config, record);
  const std::vector<Size> sizes = sizes_to_run(config);
  std::vector<std::uint64_t> bound_sizes;
  for (std::uint64_t s : config.sizes) {
    if (s >= kMiB) bound_sizes.push_back(s);
  }
  std::optional<BoundRig> rig;
  if (!bound_sizes.empty()) rig.emplace(config.engine);
  record.config["bound"] =
      "the engine's host threads in its shape, alone (host) and while the copy engine moves "
      "other page-locked data the same way for the whole host copy (host-under-dma), at every "
      "aligned size from 1 MiB";

  const bool fresh = std::find(methods_run.begin(), methods_run.end(),
                               StagedMethod::kStagedFresh) != methods_run.end();
  const bool h2d = std::find(config.directions.begin(), config.directions.end(), Direction::kH2D) !=
                   config.directions.end();
  StagedRun run{config, record, progress, b, methods, rig, kinds_ok};
  run.total =
      config.directions.size() * (sizes.size() * methods_run.size() + 2 * bound_sizes.size()) -
      (fresh && h2d ? sizes.size() : 0);
  for (Direction d : config.directions) {
    const bool to_device = d == Direction::kH2D;
    for (std::uint64_t bytes : bound_sizes) {
      for (const bool under_dma : {false, true}) {
        if (stop_before_next_case(record)) break;
        measure_bound_case(run, d, bytes, under_dma);
      }
      if (record.incomplete) break;
    }
    if (record.incomplete) break;
    for (const Size& s : sizes) {
      for (StagedMethod m : methods_run) {
        if (m == StagedMethod::kStagedFresh && to_device) continue;  // a destination method
        if (stop_before_next_case(record)) break;
        measure_method_case(run, d, s, m);
      }
      if (record.incomplete) break;
    }
    if (record.incomplete) break;
  }
  if (!record.incomplete) measure_idle_engine(record, progress);
  put_engine_threads(record.config["engine"], copier.stats());
  finish_record(record, start);
  return record;
}

RunRecord run_staged_tune(const StagedTuneConfig& config, const ProgressFn& progress) {
  const auto start = SteadyClock::now();
  config.validate();
  RunRecord record = start_record("staged-tune", to_json(config));
  StagedBenchConfig fit;
  fit.sizes = config.sizes;
  fit.odd_sizes.clear();
  fit.engine = config.engine;
  fit.force = config.force;
  std::uint64_t biggest_ring = 0;
  for (const StagingRing& r : config.shapes()) {
    biggest_ring =
        std::max<std::uint64_t>(biggest_ring, r.chunk_bytes * static_cast<std::uint64_t>(r.depth));
  }
  fit.engine.to_device = {static_cast<std::size_t>(biggest_ring), 1, 1};  // only its size counts
  fit.engine.to_host = {0, 0, 0};
  if (const std::string p = staged_fit_problem(fit, cuda::device_free_bytes(), host_memory_bytes(),
                                               host_available_bytes());
      !p.empty()) {
    throw InputError(p);
  }
  record.config["engine"]["streaming_stores"] = StagedCopier::streaming_stores_available();

  std::uint64_t largest = 0;
  for (std::uint64_t s : config.sizes) largest = std::max(largest, s);
  Buffers b(largest + 2 * kHostPageBytes, false);
  cuda::Stream stream;
  record.gates.push_back(kind_gate("kind/source", b.src.data(), "pageable"));
  record.gates.push_back(kind_gate("kind/destination", b.dst.data(), "pageable"));
  const bool kinds_ok = gates_passed(record.gates);

  const std::vector<StagingRing> shapes = config.shapes();
  const std::size_t total = config.directions.size() * shapes.size();
  std::size_t n = 0;
  for (Direction d : config.directions) {
    for (const StagingRing& shape : shapes) {
      if (stop_before_next_case(record)) break;
      ++n;
      const std::string name =
          fmt::format("{}x{}/{}t", size_token(shape.chunk_bytes), shape.depth, shape.threads);
      progress(fmt::format("[{}/{}] {} {}", n, total, to_string(d), name));
      // The measured direction gets the shape; the other a token ring.
      StagedCopyOptions o = config.engine;
      o.edge_chunk_bytes = std::min<std::size_t>(o.edge_chunk_bytes, shape.chunk_bytes);
      const StagingRing token{std::max<std::size_t>(o.edge_chunk_bytes, 64 * kKiB), 2, 1};
      o.to_device = d == Direction::kH2D ? shape : token;
      o.to_host = d == Direction::kH2D ? token : shape;
      o.max_staging_bytes = staging_bytes(o);
      StagedCopier copier(o);
      Methods methods{stream.get(), &copier, nullptr};
      for (std::uint64_t bytes : config.sizes) {
        const Leg leg = make_leg(b, d, StagedMethod::kStaged, bytes, 0, 0);
        const Timed r = measure(methods, StagedMethod::kStaged, leg, b, config.warmups,
                                config.iterations, /*check_every=*/false);
        const CaseSpec spec{"tune",         to_string(d),
                            "pageable",     name,
                            "host_clock",   bytes,
                            config.warmups, gate_name({"tune", to_string(d), name}, bytes)};
        Case c = make_case(spec, r, kinds_ok);
        c.extra = {
            {"chunk_bytes", shape.chunk_bytes}, {"depth", shape.depth}, {"threads", shape.threads}};
        record.gates.push_back(
            sampled_gate(c.gate, r, "after the last copy the destination held every byte"));
        record.cases.push_back(std::move(c));
      }
    }
    if (record.incomplete) break;
  }
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::staged
