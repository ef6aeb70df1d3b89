// `pinbench check`: each GPU of the host in turn, alone. Its link is read while 64 MiB copies
// keep it busy; then 64 MiB copies from pinned and from pageable memory, each direction, are
// timed with CUDA events around each cudaMemcpyAsync on a stream of the GPU (pinned) or each
// cudaMemcpy (pageable), sampled until the spread is under 2% or 250 ms have passed; the bytes
// that come back are compared with the bytes that went. Last, 1000 round trips of 4 KiB of pinned
// memory (there, back, synchronise), each timed on the host clock, for the p50 and p99. Host
// buffers are allocated by this thread bound to the GPU's NUMA node. The verdicts come from the
// record alone (experiments/check/analysis.hpp), so a replay judges as the live run did.
//
// Last for each GPU, the pin rate: one cudaHostAlloc of the pin size (2 GiB by default) with the
// GPU current, as a serving engine pins its pool, timed on the host clock from the call to its
// return, then its cudaFreeHost, timed too. The host's limits on pinning are read once, before
// anything is pinned (base/pin_limits.hpp): a pin size past a per-call limit is pinned in one
// call of the most that limit allows, one past a limit on the total is not attempted, and the
// limits that bite are written as warnings (pin_check.hpp).
#include "experiments/check/measure.hpp"

#include <cstring>

#include <fmt/format.h>

#include "base/cuda_error_text.hpp"
#include "base/pin_limits.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "experiments/check/analysis.hpp"
#include "experiments/check/pin_check.hpp"
#include "framework/case_builder.hpp"
#include "framework/host_info.hpp"
#include "framework/host_pin_facts.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/gpu_host_buffers.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::check {
namespace {

constexpr std::uint64_t kSeed = 0xc4ec4;
constexpr std::size_t kRoundTripBytes = 4096;

StopRule rate_rule() {
  StopRule r;
  r.max_spread = 0.02;
  r.time_cap_ms = 250.0;
  r.min_samples = 5;
  r.max_samples = 200;
  return r;
}

// One copy per sample between two events on `stream`; pageable copies are blocking cudaMemcpy,
// as programs make them.
Timed time_copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, bool async,
                const cuda::Stream& stream) {
  Sampler sampler(rate_rule(), SampleClock::kCudaEvents);
  const cudaStream_t s = async ? stream.get() : nullptr;
  const auto copy = [&] {
    if (async) {
      PINBENCH_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, s));
    } else {
      PINBENCH_CUDA_TRY(cudaMemcpy(dst, src, bytes, kind));
    }
  };
  return sampler.run(one_timed_sample(s, copy), [&] {
    copy();
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(s));
  });
}

// The pin rate of `gpu` (current): one cudaHostAlloc of `bytes`, gated by the driver's word on
// its first and last byte, and its cudaFreeHost. A failed call is a failed gate naming the error:
// the case then has no figure and fails its floor.
void check_pin(RunRecord& record, const GpuInfo& gpu, std::uint64_t bytes) {
  const std::string gate = fmt::format("check/gpu{}/pin", gpu.index);
  void* p = nullptr;
  const auto t0 = SteadyClock::now();
  const cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
  const double pin_ms = ms_since(t0);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // an allocation's failure is not sticky: clear it
    add_gate(record, {gate, false,
                      cuda_error_text("cudaHostAlloc", err) +
                          fmt::format(" pinning {} in one call", format_size(bytes))});
    return;
  }
  Gate kinds = kind_gate(gate, p, MemoryKind::kPinned);
  const Gate last = kind_gate(gate, static_cast<const char*>(p) + bytes - 1, MemoryKind::kPinned);
  if (kinds.passed && !last.passed) kinds = last;
  if (kinds.passed) {
    kinds.detail = fmt::format(
        "cudaPointerGetAttributes calls the first and last byte of the {} pinned page-locked",
        format_size(bytes));
  }
  const auto t1 = SteadyClock::now();
  PINBENCH_CUDA_TRY(cudaFreeHost(p));
  const double unpin_ms = ms_since(t1);
  const bool passed = add_gate(record, kinds);
  for (const auto& [method, ms] :
       {std::pair{kPinMethod, pin_ms}, std::pair{kUnpinMethod, unpin_ms}}) {
    Timed t;
    t.samples_ms = {ms};
    t.stop = StopReason::kCount;
    const CaseSpec spec{kPinPart, "host", "pinned", method, "host_clock", bytes, 0, gate};
    Case c = make_case(spec, t, passed);
    c.extra["gpu"] = gpu.index;
    record.cases.push_back(std::move(c));
  }
}

void check_gpu(RunRecord& record, GpuInfo& gpu, const CheckConfig& cfg, const CheckPinPlan& pin) {
  PINBENCH_CUDA_TRY(cudaSetDevice(gpu.index));
  const std::string g = fmt::format("gpu{}", gpu.index);
  cuda::Stream stream;
  cuda::DeviceBuffer device(cfg.bytes);
  HostPair pinned =
      place_host_pair(gpu, cfg.bytes, MemoryKind::kPinned, kSeed, cfg.place_on_gpu_node);
  read_link_under_load(gpu, device.data(), pinned.src.data(), cfg.bytes, 8, stream);
  HostPair pageable =
      place_host_pair(gpu, cfg.bytes, MemoryKind::kPageable, kSeed, cfg.place_on_gpu_node);
  record.config["placement_by_gpu"][g] = pinned.placement;

  for (HostPair* pair : {&pinned, &pageable}) {
    const MemoryKind kind = pair->src.kind();
    const bool async = kind == MemoryKind::kPinned;
    if (stop_before_next_case(record)) return;
    std::memset(pair->dst.data(), 0, cfg.bytes);
    const Timed h2d = time_copy(device.data(), pair->src.data(), cfg.bytes, cudaMemcpyHostToDevice,
                                async, stream);
    const Timed d2h = time_copy(pair->dst.data(), device.data(), cfg.bytes, cudaMemcpyDeviceToHost,
                                async, stream);
    const std::string gate = fmt::format("check/{}/{}", g, to_string(kind));
    const bool kind_ok = add_gate(record, kind_gate(gate + "/kind", pair->src.data(), kind));
    Gate bytes =
        bytes_gate(gate, first_mismatch(pair->src.data(), pair->dst.data(), cfg.bytes), cfg.bytes);
    if (bytes.passed) {
      bytes.detail =
          fmt::format("all {} bytes went to the device and came back unchanged", cfg.bytes);
    }
    const bool passed = add_gate(record, bytes) && kind_ok;
    for (const auto& [direction, timed] : {std::pair{"h2d", &h2d}, std::pair{"d2h", &d2h}}) {
      const CaseSpec spec{"check",
                          direction,
                          to_string(kind),
                          async ? "cudaMemcpyAsync" : "cudaMemcpy",
                          "cuda_events",
                          cfg.bytes,
                          1,
                          gate};
      Case c = make_case(spec, *timed, passed);
      c.extra["gpu"] = gpu.index;
      record.cases.push_back(std::move(c));
    }
  }

  if (stop_before_next_case(record)) return;
  // The round trip: what a small synchronous exchange with the GPU costs, p50 and p99.
  std::memset(pinned.dst.data(), 0, kRoundTripBytes);
  Sampler sampler(StopRule::fixed(cfg.round_trips), SampleClock::kHostClock);
  const cudaStream_t s = stream.get();
  const auto trip = [&] {
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(device.data(), pinned.src.data(), kRoundTripBytes,
                                      cudaMemcpyHostToDevice, s));
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(pinned.dst.data(), device.data(), kRoundTripBytes,
                                      cudaMemcpyDeviceToHost, s));
    PINBENCH_CUDA_TRY(cudaStreamSynchronize(s));
  };
  const Timed rt = sampler.run(
      [&](Sampler& sm, int, int, Timed& out) {
        sm.start(0);
        trip();
        sm.stop(0);
        out.samples_ms.push_back(sm.elapsed_ms(0));
      },
      [&] {
        for (int i = 0; i < 20; ++i) trip();
      });
  const std::string gate = fmt::format("check/{}/round_trip", g);
  const bool passed = add_gate(
      record,
      bytes_gate(gate, first_mismatch(pinned.src.data(), pinned.dst.data(), kRoundTripBytes),
                 kRoundTripBytes));
  const CaseSpec spec{"check",      "round_trip",    "pinned", "cudaMemcpyAsync",
                      "host_clock", kRoundTripBytes, 20,       gate};
  Case c = make_case(spec, rt, passed);
  c.extra["gpu"] = gpu.index;
  record.cases.push_back(std::move(c));

  if (pin.bytes == 0 || stop_before_next_case(record)) return;
  check_pin(record, gpu, pin.bytes);
}

nlohmann::json config_json(const CheckConfig& cfg) {
  nlohmann::json j = {{"round_trip_bytes", kRoundTripBytes}, {"floors", to_json(cfg.floors)}};
  put_fields(j, cfg);
  put_fields(j, rate_rule());
  return j;
}

}  // namespace

RunRecord run_check(const CheckConfig& cfg) {
  cuda::require_device();
  const int n = cuda::device_count();
  std::vector<int> devices = cfg.devices;
  if (devices.empty()) {
    for (int i = 0; i < n; ++i) devices.push_back(i);
  }
  const auto start = SteadyClock::now();
  RunRecord record = start_record("check", config_json(cfg));
  record.config["devices"] = devices;
  // The limits on pinning, read before anything is pinned.
  const PinLimits limits = read_pin_limits();
  const CheckPinPlan pin = check_pin_plan(limits, cfg.pin_bytes);
  nlohmann::json facts = nlohmann::json::object();
  put_fields(facts, host_pin_facts(limits));
  record.config["pin_limits"] = std::move(facts);
  record.config["pin_warnings"] = to_json(pin_warnings(limits, cfg.pin_bytes));
  if (!pin.refused.empty()) record.config["pin_refused"] = pin.refused;
  for (int d : devices) record.machine.gpus.push_back(cuda::query_gpu(d));
  for (GpuInfo& gpu : record.machine.gpus) {
    if (stop_before_next_case(record)) break;
    check_gpu(record, gpu, cfg, pin);
  }
  PINBENCH_CUDA_TRY(cudaSetDevice(cuda::selected_device()));
  finish_record(record, start);
  return record;
}

RunRecord no_gpu_check_record(const CheckConfig& cfg, const std::string& why) {
  RunRecord record = start_host_record("check", why);
  record.machine.hostname = host_name();
  record.config = config_json(cfg);
  CheckRecordConfig written;
  written.no_gpu = why;
  put_fields(record.config, written);
  record.note = "no GPU checked: " + why;
  return record;
}

}  // namespace pinbench::experiments::check
