// The devblog's bandwidthtest, measured the way the rest of pinbench measures: for pageable and
// then pinned host memory, a source array of floats 0, 1, 2, ... goes host to device and comes
// back into a second, cleared host array of the same kind. Each direction is timed with CUDA
// events around each blocking cudaMemcpy (after warm-ups; the figure is the median), and the
// returned array is compared with the source byte for byte.
#include "experiments/bandwidthtest.hpp"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/pattern.hpp"
#include "core/units.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "experiments/run_record.hpp"

namespace pinbench {
namespace {

std::vector<double> time_copies(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                                const BandwidthTestConfig& cfg) {
  for (int i = 0; i < cfg.warmups; ++i) PINBENCH_CUDA_TRY(cudaMemcpy(dst, src, bytes, kind));
  std::vector<double> ms;
  cuda::Event start;
  cuda::Event stop;
  for (int i = 0; i < cfg.iterations; ++i) {
    start.record();
    PINBENCH_CUDA_TRY(cudaMemcpy(dst, src, bytes, kind));
    stop.record();
    stop.synchronize();
    ms.push_back(cuda::Event::elapsed_ms(start, stop));
  }
  return ms;
}

}  // namespace

RunRecord run_bandwidthtest(const BandwidthTestConfig& cfg) {
  if (cfg.bytes < sizeof(float) || cfg.bytes % sizeof(float) != 0) {
    throw InputError(
        fmt::format("the transfer size must be a positive multiple of 4 bytes (it "
                    "holds floats), not {}",
                    cfg.bytes));
  }
  if (cfg.iterations < 1 || cfg.warmups < 0) {
    throw InputError("need at least one timed copy and no negative warm-ups");
  }
  cuda::require_device();
  if (cfg.bytes > cuda::device_free_bytes()) {
    throw InputError(
        fmt::format("{} does not fit in the device's free memory", format_size(cfg.bytes)));
  }
  const auto start = std::chrono::steady_clock::now();
  RunRecord record = start_record(
      "bandwidthtest",
      {{"bytes", cfg.bytes}, {"warmups", cfg.warmups}, {"iterations", cfg.iterations}});

  const std::size_t n = cfg.bytes / sizeof(float);
  cuda::DeviceBuffer device(cfg.bytes);
  for (MemoryKind kind : {MemoryKind::kPageable, MemoryKind::kPinned}) {
    cuda::HostBuffer a(cfg.bytes, kind);
    cuda::HostBuffer b(cfg.bytes, kind);
    auto* fa = static_cast<float*>(a.data());
    for (std::size_t i = 0; i < n; ++i) fa[i] = static_cast<float>(i);
    std::memset(b.data(), 0, cfg.bytes);

    const std::vector<double> h2d =
        time_copies(device.data(), a.data(), cfg.bytes, cudaMemcpyHostToDevice, cfg);
    const std::vector<double> d2h =
        time_copies(b.data(), device.data(), cfg.bytes, cudaMemcpyDeviceToHost, cfg);
    const auto mismatch = first_mismatch(a.data(), b.data(), cfg.bytes);
    const std::string gate = fmt::format("bandwidthtest/{}", to_string(kind));
    record.gates.push_back(
        {gate, !mismatch,
         mismatch ? fmt::format("first difference at byte {} of {}", *mismatch, cfg.bytes)
                  : fmt::format("all {} bytes came back unchanged", cfg.bytes)});
    for (const auto& [direction, samples] : {std::pair{"h2d", h2d}, std::pair{"d2h", d2h}}) {
      Case c;
      c.part = "bandwidthtest";
      c.direction = direction;
      c.memory = to_string(kind);
      c.method = "cudaMemcpy";
      c.timing = "cuda_events";
      c.bytes = cfg.bytes;
      c.warmups = cfg.warmups;
      c.samples_ms = samples;
      c.gate = gate;
      c.verified = !mismatch;
      record.cases.push_back(c);
    }
  }
  finish_record(record, start);
  return record;
}

}  // namespace pinbench
