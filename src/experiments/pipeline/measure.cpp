// `pinbench pipeline`: the Day 54 program. A host array of floats (1 GiB by default) goes through
// a device window (64 MiB) in chunks: copy a chunk in, run y = 3 x + 0.5 on it in place, copy it
// out, round-robin over N streams with the window cut into N slots, so the copy in of one chunk
// can overlap the kernel and the copy out of another. The source is a page-locked array (plain
// cudaMemcpyAsync) or a pageable one through the staged engine (its asynchronous calls, ordered
// on each chunk's stream).
//
// In the same run, for each N, the bound: the array's bytes each way copied at once on two
// streams from page-locked memory in the same chunks, and the kernel alone over the array on
// device-resident data. The pipeline cannot beat the slower of the two. Overlap efficiency is
// bound / measured time. Through the staged engine the host side is a third bound: its threads
// fill and drain the array's bytes at once, in the engine's shape (measure/engine_host_bound.hpp),
// while the copy engine moves as many page-locked bytes each way; the host's memory carries all of
// it. Everything is timed with the host clock from the first call to the last completion. Inputs
// are multiples of 1/4 below 2^14, so 3 x + 0.5 is exact and the whole output is compared with the
// expected floats bit for bit after every run.
#include "experiments/pipeline/measure.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/kernels.cuh"
#include "cuda/stream.hpp"
#include "experiments/pipeline/kernels.cuh"
#include "framework/case_builder.hpp"
#include "framework/errors.hpp"
#include "framework/host_info.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"
#include "measure/engine_host_bound.hpp"
#include "measure/engine_stats.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench::experiments::pipeline {
namespace {

constexpr float kScale = 3.0f;
constexpr float kOffset = 0.5f;

float input_value(std::size_t i) {
  return static_cast<float>(i % 65536) * 0.25f;
}

std::uint32_t bits(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Runs f(begin, end) over [0, n) on several host threads: filling and checking a GiB of floats
// on one thread would take longer than the pipeline itself.
template <typename F>
void parallel_for(std::size_t n, F f) {
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t begin = n / threads * t;
    const std::size_t end = t + 1 == threads ? n : n / threads * (t + 1);
    pool.emplace_back([=] { f(begin, end); });
  }
  for (std::thread& th : pool) th.join();
}

void fill_input(float* in, std::size_t n) {
  parallel_for(n, [in](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) in[i] = input_value(i);
  });
}

// The index of the first output float that is not 3 x + 0.5 of its input, if any.
std::optional<std::size_t> first_wrong(const float* out, std::size_t n) {
  std::vector<std::size_t> first(16, n);
  std::atomic<int> slot{0};
  parallel_for(n, [&](std::size_t b, std::size_t e) {
    const int me = slot.fetch_add(1);
    for (std::size_t i = b; i < e; ++i) {
      if (bits(out[i]) != bits(kScale * input_value(i) + kOffset)) {
        first[static_cast<std::size_t>(me)] = i;
        return;
      }
    }
  });
  const std::size_t worst = *std::min_element(first.begin(), first.end());
  if (worst < n) return worst;
  return std::nullopt;
}

struct Chunking {
  std::size_t chunk = 0;
  std::size_t count = 0;
  std::size_t len(std::size_t k, std::size_t total) const {
    return std::min(chunk, total - k * chunk);
  }
};

// What one (source, N) pipeline run needs.
struct Setup {
  const PipelineConfig& cfg;
  std::vector<cuda::Stream>& streams;
  cuda::DeviceBuffer& window;
  unsigned blocks_full = 1;  // kernel grid for a full chunk and for the array's tail chunk
  unsigned blocks_tail = 1;
  int n = 1;
  Chunking c;

  float* slot(std::size_t k) const {
    return reinterpret_cast<float*>(static_cast<char*>(window.data()) + (k % n) * c.chunk);
  }
  cudaStream_t stream(std::size_t k) const { return streams[k % n].get(); }
  unsigned blocks(std::size_t len) const { return len == c.chunk ? blocks_full : blocks_tail; }
  void sync() const {
    for (int i = 0; i < n; ++i) streams[static_cast<std::size_t>(i)].synchronize();
  }
};

void run_pinned(const Setup& s, float* in, float* out) {
  const std::size_t total = s.cfg.array_bytes;
  for (std::size_t k = 0; k < s.c.count; ++k) {
    const std::size_t off = k * s.c.chunk;
    const std::size_t len = s.c.len(k, total);
    char* host_in = reinterpret_cast<char*>(in) + off;
    char* host_out = reinterpret_cast<char*>(out) + off;
    PINBENCH_CUDA_TRY(
        cudaMemcpyAsync(s.slot(k), host_in, len, cudaMemcpyHostToDevice, s.stream(k)));
    kernels::launch_affine(s.slot(k), len / sizeof(float), kScale, kOffset, s.cfg.kernel_rounds,
                           s.blocks(len), s.stream(k));
    PINBENCH_CUDA_TRY(
        cudaMemcpyAsync(host_out, s.slot(k), len, cudaMemcpyDeviceToHost, s.stream(k)));
  }
  s.sync();
}

// The engine keeps copies on one stream in order, so chunk k + N's copy in waits for chunk k's
// copy out of the same slot without help; the kernel waits for its chunk through stream_wait.
void run_staged(const Setup& s, StagedCopier& copier, float* in, float* out) {
  const std::size_t total = s.cfg.array_bytes;
  std::vector<StagedCopy> copies;
  copies.reserve(2 * s.c.count);
  try {
    for (std::size_t k = 0; k < s.c.count; ++k) {
      const std::size_t off = k * s.c.chunk;
      const std::size_t len = s.c.len(k, total);
      const char* host_in = reinterpret_cast<const char*>(in) + off;
      char* host_out = reinterpret_cast<char*>(out) + off;
      copies.push_back(copier.copy_to_device_async(s.slot(k), host_in, len, s.stream(k)));
      copies.back().stream_wait(s.stream(k));
      kernels::launch_affine(s.slot(k), len / sizeof(float), kScale, kOffset, s.cfg.kernel_rounds,
                             s.blocks(len), s.stream(k));
      copies.push_back(copier.copy_to_host_async(host_out, s.slot(k), len, s.stream(k)));
    }
    for (const StagedCopy& c : copies) c.wait();
  } catch (...) {
    // Nothing may still write into the arrays when the next run clears them.
    for (const StagedCopy& c : copies) {
      try {
        c.wait();
      } catch (const std::exception&) {
      }
    }
    throw;
  }
  s.sync();
}

// Both directions at once, page-locked, the array's bytes each way in the pipeline's chunks.
void run_copy_bound(const Setup& s, const float* in, float* out, void* a, const void* b,
                    cudaStream_t sa, cudaStream_t sb) {
  const std::size_t total = s.cfg.array_bytes;
  for (std::size_t k = 0; k < s.c.count; ++k) {
    const std::size_t off = k * s.c.chunk;
    const std::size_t len = s.c.len(k, total);
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(a, reinterpret_cast<const char*>(in) + off, len,
                                      cudaMemcpyHostToDevice, sa));
    PINBENCH_CUDA_TRY(
        cudaMemcpyAsync(reinterpret_cast<char*>(out) + off, b, len, cudaMemcpyDeviceToHost, sb));
  }
  PINBENCH_CUDA_TRY(cudaStreamSynchronize(sa));
  PINBENCH_CUDA_TRY(cudaStreamSynchronize(sb));
}

// The kernel alone over the array's worth of chunks, on data already in the window.
void run_kernel_bound(const Setup& s) {
  const std::size_t total = s.cfg.array_bytes;
  for (std::size_t k = 0; k < s.c.count; ++k) {
    const std::size_t len = s.c.len(k, total);
    kernels::launch_affine(s.slot(k), len / sizeof(float), kScale, kOffset, s.cfg.kernel_rounds,
                           s.blocks(len), s.stream(k));
  }
  s.sync();
}

// Warm-ups, then a fixed count of timed runs, each checked after it: the host clock from the
// first call to the last completion. `prepare` runs before every run, outside the timing.
template <typename Prepare, typename Run, typename Check>
Timed repeat(int warmups, int iterations, Prepare prepare, Run run, Check check) {
  Timed t;
  try {
    Sampler sampler(StopRule::fixed(iterations), SampleClock::kHostClock);
    t = sampler.run(
        [&](Sampler& s, int sample, int, Timed& out) {
          prepare();
          s.start(0);
          run();
          s.stop(0);
          out.samples_ms.push_back(s.elapsed_ms(0));
          if (std::string bad = check(); !bad.empty()) {
            out.fail(fmt::format("run {}: {}", sample, bad));
          }
        },
        [&] {
          for (int w = 0; w < warmups; ++w) {
            prepare();
            run();
          }
        });
  } catch (const std::exception& e) {
    t.fail(e.what());
  }
  return t;
}

// The engine's work on the whole array both ways at once, without its coordination: its fill
// threads copy the pageable input into a ring shaped like its to-device ring, its drain threads
// copy a ring shaped like its to-host ring into the pageable output, and the copy engine moves
// the array's bytes each way between other page-locked rings and the device, all started
// together and timed until the last of the four is done. The host's memory carries all of it
// at once, as it does under the pipeline. (A copy engine kept busy for the whole host copy
// instead, as the staged benchmark's host-under-dma does, would take more of the memory than
// the pipeline's own DMA ever can, and the engine beat that figure: it is no bound.)
struct HostBothWays {
  explicit HostBothWays(const StagedCopyOptions& o)
      : engine(o),
        fill(o.to_device.threads),
        drain(o.to_host.threads),
        fill_ring(ring_bytes(o.to_device), MemoryKind::kPinned),
        drain_ring(ring_bytes(o.to_host), MemoryKind::kPinned),
        dma_in(ring_bytes(o.to_device), MemoryKind::kPinned),
        dma_out(ring_bytes(o.to_host), MemoryKind::kPinned),
        dev_in(ring_bytes(o.to_device)),
        dev_out(ring_bytes(o.to_host)) {}
  void run(char* in, char* out, std::size_t bytes, SteadyClock::time_point* t0,
           SteadyClock::time_point* t1) {
    queue_dma(true, static_cast<char*>(dma_in.data()), static_cast<char*>(dev_in.data()),
              engine.to_device.chunk_bytes, engine.to_device.depth, bytes, s_in.get());
    queue_dma(false, static_cast<char*>(dma_out.data()), static_cast<char*>(dev_out.data()),
              engine.to_host.chunk_bytes, engine.to_host.depth, bytes, s_out.get());
    const HostJob f = engine_job(engine, true, in, static_cast<char*>(fill_ring.data()), bytes);
    const HostJob d = engine_job(engine, false, out, static_cast<char*>(drain_ring.data()), bytes);
    *t0 = SteadyClock::now();
    fill.start(f, engine.to_device.threads);
    drain.start(d, engine.to_host.threads);
    fill.wait();
    drain.wait();
    s_in.synchronize();
    s_out.synchronize();
    *t1 = SteadyClock::now();
  }
  const StagedCopyOptions& engine;
  HostTeam fill, drain;
  cuda::HostBuffer fill_ring, drain_ring, dma_in, dma_out;
  cuda::DeviceBuffer dev_in, dev_out;
  cuda::Stream s_in, s_out;
};

// Every pipeline case moves the whole array and is timed with the host clock.
CaseSpec spec_of(const char* part, const std::string& method, const char* direction,
                 const char* memory, const PipelineConfig& cfg, const std::string& gate) {
  return {part, direction, memory, method, "host_clock", cfg.array_bytes, cfg.warmups, gate};
}

auto nothing() {
  return [] {};
}

// A pipeline run's record, buffers, streams and engine, which every stream count's cases use.
struct PipelineRun {
  const PipelineConfig& config;
  RunRecord& record;
  const ProgressFn& progress;
  cuda::HostBuffer& pinned_in;
  cuda::HostBuffer& pinned_out;
  cuda::HostBuffer& pageable_in;
  cuda::HostBuffer& pageable_out;
  std::vector<cuda::Stream>& streams;
  cuda::DeviceBuffer& window;
  cuda::DeviceBuffer& bound_a;
  cuda::DeviceBuffer& bound_b;
  cuda::HostBuffer& bound_check;
  StagedCopier* copier;     // null without the staged source
  HostBothWays* host_both;  // likewise
  bool kinds_ok;            // every buffer is of the memory kind it should be
  std::size_t steps = 0;
  std::size_t step = 0;

  // "[3/12] 4 streams: WHAT", as the next step.
  void say(int n, const std::string& what) {
    progress(fmt::format("[{}/{}] {} streams: {}", ++step, steps, n, what));
  }
};

// The copy bound. bound_b holds the array's first chunk, so every chunk of the output must
// equal it; bound_a must end up holding the array's last chunk.
void measure_copy_bound(PipelineRun& run, const Setup& s, const std::string& method,
                        const nlohmann::json& extra) {
  const PipelineConfig& config = run.config;
  const std::size_t total = config.array_bytes;
  run.say(s.n, "both copy directions at once");
  PINBENCH_CUDA_TRY(
      cudaMemcpy(run.bound_b.data(), run.pinned_in.data(), s.c.chunk, cudaMemcpyHostToDevice));
  auto* in_f = static_cast<float*>(run.pinned_in.data());
  auto* out_f = static_cast<float*>(run.pinned_out.data());
  const Timed copy_bound = repeat(
      config.warmups, config.iterations, nothing(),
      [&] {
        run_copy_bound(s, in_f, out_f, run.bound_a.data(), run.bound_b.data(), run.streams[0].get(),
                       run.streams[1].get());
      },
      [&]() -> std::string {
        for (std::size_t k = 0; k < s.c.count; ++k) {
          const std::size_t len = s.c.len(k, total);
          if (std::memcmp(static_cast<char*>(run.pinned_out.data()) + k * s.c.chunk,
                          run.pinned_in.data(), len) != 0) {
            return fmt::format("device-to-host chunk {} differs from the bytes sent", k);
          }
        }
        const std::size_t last = s.c.count - 1;
        const std::size_t len = s.c.len(last, total);
        PINBENCH_CUDA_TRY(
            cudaMemcpy(run.bound_check.data(), run.bound_a.data(), len, cudaMemcpyDeviceToHost));
        if (std::memcmp(run.bound_check.data(),
                        static_cast<char*>(run.pinned_in.data()) + last * s.c.chunk, len) != 0) {
          return "the host-to-device copies did not deliver the last chunk";
        }
        return "";
      });
  Case cb =
      make_case(spec_of("bound-copy", method, "bidir", "pinned", config, "bound-copy/" + method),
                copy_bound, run.kinds_ok);
  cb.extra = extra;
  run.record.gates.push_back(
      sampled_gate(cb.gate, copy_bound, "every chunk arrived in both directions"));
  run.record.cases.push_back(std::move(cb));
}

void measure_kernel_bound(PipelineRun& run, const Setup& s, const std::string& method,
                          const nlohmann::json& extra) {
  const PipelineConfig& config = run.config;
  run.say(s.n, "the kernel alone");
  const Timed kernel_bound = repeat(
      config.warmups, config.iterations, nothing(), [&] { run_kernel_bound(s); },
      [] { return std::string(); });
  Case ck =
      make_case(spec_of("bound-kernel", method, "d2d", "device", config, "bound-kernel/" + method),
                kernel_bound);
  ck.extra = extra;
  ck.extra["rounds"] = config.kernel_rounds;
  run.record.gates.push_back(sampled_gate(
      ck.gate, kernel_bound, "timing only: the pipeline's check covers what the kernel computes"));
  run.record.cases.push_back(std::move(ck));
}

// The engine's host side, both ways at once (HostBothWays).
void measure_host_bound(PipelineRun& run, const Setup& s, const std::string& method,
                        const nlohmann::json& extra) {
  const PipelineConfig& config = run.config;
  const std::size_t total = config.array_bytes;
  HostBothWays* host_both = run.host_both;
  run.say(s.n, "the engine's host side, both ways at once");
  auto* pin = static_cast<char*>(run.pageable_in.data());
  auto* pout = static_cast<char*>(run.pageable_out.data());
  Timed hb;
  try {
    // Spinning for this case only: asleep, they leave the CPUs to the engine's own threads.
    const HostTeam::Awake fill_awake(host_both->fill);
    const HostTeam::Awake drain_awake(host_both->drain);
    Sampler sampler(StopRule::fixed(config.iterations), SampleClock::kHostClock);
    hb = sampler.run(
        [&](Sampler&, int sample, int, Timed& out) {
          SteadyClock::time_point t0, t1;
          host_both->run(pin, pout, total, &t0, &t1);
          out.samples_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
          // The drained output holds the drain ring's slots in turn.
          const auto* ring = static_cast<const char*>(host_both->drain_ring.data());
          const std::size_t chunk = config.engine.to_host.chunk_bytes;
          const auto depth = static_cast<std::size_t>(config.engine.to_host.depth);
          for (std::size_t off = 0, k = 0; off < total; off += chunk, ++k) {
            if (std::memcmp(pout + off, ring + (k % depth) * chunk, std::min(chunk, total - off)) !=
                0) {
              out.fail(fmt::format("run {}: drained chunk {} differs from its slot", sample, k));
              return;
            }
          }
        },
        [&] {
          SteadyClock::time_point t0, t1;
          for (int w = 0; w < config.warmups; ++w) host_both->run(pin, pout, total, &t0, &t1);
        });
  } catch (const std::exception& e) {
    hb.fail(e.what());
  }
  Case ch =
      make_case(spec_of("bound-host", method, "bidir", "pageable", config, "bound-host/" + method),
                hb, run.kinds_ok);
  ch.extra = extra;
  ch.extra["fill_threads"] = config.engine.to_device.threads;
  ch.extra["drain_threads"] = config.engine.to_host.threads;
  run.record.gates.push_back(
      sampled_gate(ch.gate, hb, "every drained chunk held its slot's bytes"));
  run.record.cases.push_back(std::move(ch));
}

// The pipeline itself, from one source.
void measure_pipeline(PipelineRun& run, const Setup& s, const std::string& method,
                      const nlohmann::json& extra, PipelineSource source) {
  const PipelineConfig& config = run.config;
  const std::size_t total = config.array_bytes;
  const std::size_t floats = total / sizeof(float);
  const bool from_pinned = source == PipelineSource::kPinned;
  run.say(s.n, fmt::format("the pipeline from {} memory",
                           from_pinned ? "page-locked" : "pageable (staged)"));
  auto* in = static_cast<float*>((from_pinned ? run.pinned_in : run.pageable_in).data());
  auto* out = static_cast<float*>((from_pinned ? run.pinned_out : run.pageable_out).data());
  const Timed t = repeat(
      config.warmups, config.iterations,
      // Cleared before each run (outside the timing), so a chunk that never came back
      // cannot pass for one that did.
      [&] { std::memset(out, 0, total); },
      [&] {
        if (from_pinned) {
          run_pinned(s, in, out);
        } else {
          run_staged(s, *run.copier, in, out);
        }
      },
      [&]() -> std::string {
        if (const auto bad = first_wrong(out, floats)) {
          return fmt::format("output float {} (chunk {}) is not 3 x + 0.5 of its input", *bad,
                             *bad * sizeof(float) / s.c.chunk);
        }
        return "";
      });
  const std::string gate = fmt::format("pipeline/{}/{}", to_string(source), method);
  Case c = make_case(
      spec_of("pipeline", method, "bidir", from_pinned ? "pinned" : "pageable", config, gate), t,
      run.kinds_ok);
  c.extra = extra;
  c.extra["source"] = to_string(source);
  run.record.gates.push_back(
      sampled_gate(gate, t,
                   fmt::format("every one of {} runs returned all {} floats exactly",
                               t.samples_ms.size(), floats)));
  run.record.cases.push_back(std::move(c));
}

// Every case of `n` streams: the bounds, then the pipeline from each source.
void measure_streams(PipelineRun& run, int n) {
  const PipelineConfig& config = run.config;
  const std::size_t total = config.array_bytes;
  Chunking chunking;
  chunking.chunk = config.chunk_bytes(n);
  chunking.count = (total + chunking.chunk - 1) / chunking.chunk;
  const Setup s{config,
                run.streams,
                run.window,
                cuda::scale_copy_blocks(chunking.chunk / sizeof(float)),
                cuda::scale_copy_blocks(chunking.len(chunking.count - 1, total) / sizeof(float)),
                n,
                chunking};
  const std::string method = fmt::format("streams={}", n);
  const nlohmann::json extra = {{"streams", n}, {"chunk_bytes", s.c.chunk}, {"chunks", s.c.count}};
  measure_copy_bound(run, s, method, extra);
  measure_kernel_bound(run, s, method, extra);
  if (run.host_both != nullptr && !stop_before_next_case(run.record)) {
    measure_host_bound(run, s, method, extra);
  }
  for (PipelineSource source : config.sources) {
    if (stop_before_next_case(run.record)) break;
    measure_pipeline(run, s, method, extra, source);
  }
}

}  // namespace

RunRecord run_pipeline(const PipelineConfig& config, const ProgressFn& progress) {
  const auto start = SteadyClock::now();
  config.validate();
  RunRecord record = start_record("pipeline", to_json(config));
  const std::string problem = pipeline_fit_problem(config, cuda::device_free_bytes(),
                                                   host_memory_bytes(), host_available_bytes());
  if (!problem.empty()) throw InputError(problem);
  record.config["timing"] = "host clock from the first call to the last completion";
  record.config["engine"]["streaming_stores"] = StagedCopier::streaming_stores_available();

  const bool staged = std::find(config.sources.begin(), config.sources.end(),
                                PipelineSource::kStaged) != config.sources.end();
  const std::size_t total = config.array_bytes;
  const std::size_t floats = total / sizeof(float);
  progress(fmt::format("allocating {} of page-locked and {} of pageable memory",
                       format_size(2 * total), format_size(staged ? 2 * total : 0)));
  cuda::HostBuffer pinned_in(total, MemoryKind::kPinned);
  cuda::HostBuffer pinned_out(total, MemoryKind::kPinned);
  cuda::HostBuffer pageable_in;
  cuda::HostBuffer pageable_out;
  fill_input(static_cast<float*>(pinned_in.data()), floats);
  record.gates.push_back(kind_gate("kind/pinned-in", pinned_in.data(), MemoryKind::kPinned));
  record.gates.push_back(kind_gate("kind/pinned-out", pinned_out.data(), MemoryKind::kPinned));
  std::unique_ptr<StagedCopier> copier;
  if (staged) {
    pageable_in = cuda::HostBuffer(total, MemoryKind::kPageable);
    pageable_out = cuda::HostBuffer(total, MemoryKind::kPageable);
    std::memcpy(pageable_in.data(), pinned_in.data(), total);
    record.gates.push_back(
        kind_gate("kind/pageable-in", pageable_in.data(), MemoryKind::kPageable));
    record.gates.push_back(
        kind_gate("kind/pageable-out", pageable_out.data(), MemoryKind::kPageable));
    copier = std::make_unique<StagedCopier>(config.engine);
  }
  const bool kinds_ok = gates_passed(record.gates);

  const int most = *std::max_element(config.streams.begin(), config.streams.end());
  std::vector<cuda::Stream> streams(static_cast<std::size_t>(std::max(most, 2)));
  cuda::DeviceBuffer window(config.window_bytes);
  std::uint64_t largest_chunk = 0;
  for (int n : config.streams) largest_chunk = std::max(largest_chunk, config.chunk_bytes(n));
  cuda::DeviceBuffer bound_a(largest_chunk);
  cuda::DeviceBuffer bound_b(largest_chunk);
  cuda::HostBuffer bound_check(largest_chunk, MemoryKind::kPinned);

  std::unique_ptr<HostBothWays> host_both;
  if (staged) host_both = std::make_unique<HostBothWays>(config.engine);
  PipelineRun run{config,      record,       progress,     pinned_in,       pinned_out,
                  pageable_in, pageable_out, streams,      window,          bound_a,
                  bound_b,     bound_check,  copier.get(), host_both.get(), kinds_ok};
  run.steps = config.streams.size() * (2 + (staged ? 1 : 0) + config.sources.size());
  for (int n : config.streams) {
    if (stop_before_next_case(record)) break;
    measure_streams(run, n);
  }
  if (copier) put_engine_threads(record.config["engine"], copier->stats());
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::pipeline
