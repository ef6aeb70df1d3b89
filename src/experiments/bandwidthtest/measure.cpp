// The devblog's bandwidthtest, measured the way the rest of pinbench measures: for pageable and
// then pinned host memory, a source array of floats 0, 1, 2, ... goes host to device and comes
// back into a second, cleared host array of the same kind. Each direction is timed with CUDA
// events around each blocking cudaMemcpy (after warm-ups; the figure is the median), and the
// returned array is compared with the source byte for byte.
#include "experiments/bandwidthtest/measure.hpp"

#include <cstring>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "framework/case_builder.hpp"
#include "framework/errors.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::bandwidthtest {
namespace {

// Each copy on its own between two events on the legacy default stream, after the warm-ups.
Timed time_copies(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                  const BandwidthTestConfig& cfg) {
  Sampler sampler(StopRule::fixed(cfg.iterations), SampleClock::kCudaEvents);
  return sampler.run(
      [&](Sampler& s, int, int, Timed& out) {
        s.start(0);
        PINBENCH_CUDA_TRY(cudaMemcpy(dst, src, bytes, kind));
        s.stop(0);
        s.wait(0);
        out.samples_ms.push_back(s.elapsed_ms(0));
      },
      [&] {
        for (int i = 0; i < cfg.warmups; ++i) PINBENCH_CUDA_TRY(cudaMemcpy(dst, src, bytes, kind));
      });
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
  const auto start = SteadyClock::now();
  nlohmann::json written = nlohmann::json::object();
  put_fields(written, cfg);
  RunRecord record = start_record("bandwidthtest", std::move(written));

  const std::size_t n = cfg.bytes / sizeof(float);
  cuda::DeviceBuffer device(cfg.bytes);
  for (MemoryKind kind : {MemoryKind::kPageable, MemoryKind::kPinned}) {
    cuda::HostBuffer a(cfg.bytes, kind);
    cuda::HostBuffer b(cfg.bytes, kind);
    auto* fa = static_cast<float*>(a.data());
    for (std::size_t i = 0; i < n; ++i) fa[i] = static_cast<float>(i);
    std::memset(b.data(), 0, cfg.bytes);

    const Timed h2d = time_copies(device.data(), a.data(), cfg.bytes, cudaMemcpyHostToDevice, cfg);
    const Timed d2h = time_copies(b.data(), device.data(), cfg.bytes, cudaMemcpyDeviceToHost, cfg);
    // One check covers both directions: the bytes that came back are the bytes that went.
    const std::string gate = fmt::format("bandwidthtest/{}", to_string(kind));
    Gate g = bytes_gate(gate, first_mismatch(a.data(), b.data(), cfg.bytes), cfg.bytes);
    if (g.passed) g.detail = fmt::format("all {} bytes came back unchanged", cfg.bytes);
    const bool passed = add_gate(record, g);
    for (const auto& [direction, timed] : {std::pair{"h2d", &h2d}, std::pair{"d2h", &d2h}}) {
      const CaseSpec spec{"bandwidthtest", direction, to_string(kind), "cudaMemcpy",
                          "cuda_events",   cfg.bytes, cfg.warmups,     gate};
      record.cases.push_back(make_case(spec, *timed, passed));
    }
  }
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::bandwidthtest
