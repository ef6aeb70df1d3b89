// `pinbench host`: how much every GPU of the host gets alone and when all copy at once. Each GPU
// has a thread of its own, its host buffers allocated by a thread bound to its NUMA node and its
// own streams. A round releases the chosen GPUs' threads at one instant (an atomic flag they
// spin on, set once all are waiting); each thread reads the host clock, queues its copies (h2d,
// d2h, or both at once on two streams), waits for them and reads the clock again. A GPU's rate in
// a round is its bytes over its own interval; the aggregate is all GPUs' bytes over the union of
// their intervals, so a GPU that started late or finished early is not credited with time it
// did not copy. Rounds are samples of the one sampler (host clock, fixed count). "Alone" runs the
// same round with one GPU. Every round ends with the bytes checked: what reached the device (or
// the host) is compared with the source. With two or more GPUs, cudaMemcpyPeerAsync between each
// ordered pair, first without and then with peer access, on events of the source GPU.
#include "experiments/host/measure.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "framework/case_builder.hpp"
#include "framework/pattern.hpp"
#include "framework/units.hpp"
#include "measure/gpu_host_buffers.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"

namespace pinbench::experiments::host {
namespace {

constexpr std::uint64_t kSeed = 0x405;

// One GPU's buffers for one memory kind: the up source and the down destination on the host,
// and a device buffer for each direction, so both directions can run at once.
struct GpuLane {
  GpuInfo* gpu = nullptr;
  HostPair host;
  cuda::DeviceBuffer up, down;
  cuda::Stream s_up, s_down;
  double start_ms = 0.0, end_ms = 0.0;  // the last round, from the round's epoch
};

struct Interval {
  double start, end;
};

double union_length(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  double total = 0.0, cur_s = 0.0, cur_e = -1.0;
  bool open = false;
  for (const Interval& i : v) {
    if (!open || i.start > cur_e) {
      if (open) total += cur_e - cur_s;
      cur_s = i.start;
      cur_e = i.end;
      open = true;
    } else {
      cur_e = std::max(cur_e, i.end);
    }
  }
  if (open) total += cur_e - cur_s;
  return total;
}

// One round over `lanes`: every thread released at one instant; returns each lane's interval.
std::vector<Interval> round_of(std::vector<GpuLane*>& lanes, const std::string& direction,
                               std::size_t bytes, int copies) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::exception_ptr> failures(lanes.size());
  std::vector<Interval> out(lanes.size());
  const auto epoch = SteadyClock::now();
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        GpuLane& l = *lanes[i];
        PINBENCH_CUDA_TRY(cudaSetDevice(l.gpu->index));
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        out[i].start = ms_since(epoch);
        for (int k = 0; k < copies; ++k) {
          if (direction != "d2h") {
            PINBENCH_CUDA_TRY(cudaMemcpyAsync(l.up.data(), l.host.src.data(), bytes,
                                              cudaMemcpyHostToDevice, l.s_up.get()));
          }
          if (direction != "h2d") {
            PINBENCH_CUDA_TRY(cudaMemcpyAsync(l.host.dst.data(), l.down.data(), bytes,
                                              cudaMemcpyDeviceToHost, l.s_down.get()));
          }
        }
        l.s_up.synchronize();
        l.s_down.synchronize();
        out[i].end = ms_since(epoch);
      } catch (...) {
        failures[i] = std::current_exception();
        ready.fetch_add(1);
      }
    });
  }
  while (ready.load() < static_cast<int>(lanes.size())) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  return out;
}

// Whether the last round delivered: the device's up buffer holds the source, and the host's
// destination holds what the device's down buffer held (the source, uploaded at set-up).
std::optional<std::size_t> lane_mismatch(GpuLane& l, const std::string& direction,
                                         std::size_t bytes) {
  PINBENCH_CUDA_TRY(cudaSetDevice(l.gpu->index));
  if (direction != "d2h") {
    cuda::HostBuffer back(bytes, MemoryKind::kPageable);
    PINBENCH_CUDA_TRY(cudaMemcpy(back.data(), l.up.data(), bytes, cudaMemcpyDeviceToHost));
    if (auto m = first_mismatch(back.data(), l.host.src.data(), bytes)) return m;
  }
  if (direction != "h2d") return first_mismatch(l.host.dst.data(), l.host.src.data(), bytes);
  return std::nullopt;
}

void measure_set(RunRecord& record, std::vector<std::unique_ptr<GpuLane>>& all,
                 const std::vector<std::size_t>& chosen, const std::string& part,
                 const std::string& direction, MemoryKind kind, const HostConfig& cfg) {
  std::vector<GpuLane*> lanes;
  for (std::size_t i : chosen) lanes.push_back(all[i].get());
  for (GpuLane* l : lanes) std::memset(l->host.dst.data(), 0, cfg.bytes);
  const std::uint64_t per_gpu = cfg.bytes * cfg.copies_per_round * (direction == "bidir" ? 2 : 1);
  std::vector<Timed> per(lanes.size());
  Sampler sampler(StopRule::fixed(cfg.rounds), SampleClock::kHostClock);
  const Timed aggregate = sampler.run(
      [&](Sampler&, int, int, Timed& out) {
        const std::vector<Interval> iv =
            round_of(lanes, direction, cfg.bytes, cfg.copies_per_round);
        for (std::size_t i = 0; i < iv.size(); ++i)
          per[i].samples_ms.push_back(iv[i].end - iv[i].start);
        out.samples_ms.push_back(union_length(iv));
      },
      [&] { round_of(lanes, direction, cfg.bytes, 1); });
  const std::string mem = to_string(kind);
  const std::string set =
      part == "alone" ? fmt::format("gpu{}", lanes.front()->gpu->index) : std::string("all");
  const std::string gate = fmt::format("host/{}/{}/{}/{}", part, set, direction, mem);
  std::optional<std::size_t> bad;
  for (GpuLane* l : lanes) {
    if (!bad) bad = lane_mismatch(*l, direction, cfg.bytes);
  }
  const bool passed = add_gate(record, bytes_gate(gate, bad, cfg.bytes));
  const std::string method = direction == "bidir" ? "cudaMemcpyAsync x2" : "cudaMemcpyAsync";
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    per[i].stop = aggregate.stop;
    Case c =
        make_case({part, direction, mem, method, "host_clock", per_gpu, 1, gate}, per[i], passed);
    c.extra["gpu"] = lanes[i]->gpu->index;
    c.extra["gpus"] = static_cast<int>(lanes.size());
    record.cases.push_back(std::move(c));
  }
  if (part == "together") {
    Case c = make_case(
        {"aggregate", direction, mem, method, "host_clock", per_gpu * lanes.size(), 1, gate},
        aggregate, passed);
    c.extra["gpus"] = static_cast<int>(lanes.size());
    record.cases.push_back(std::move(c));
  }
}

void measure_peers(RunRecord& record, std::vector<std::unique_ptr<GpuLane>>& all,
                   const HostConfig& cfg) {
  const std::size_t bytes = std::min<std::uint64_t>(cfg.bytes, 64ull << 20);
  for (bool access : {false, true}) {
    for (auto& a : all) {
      for (auto& b : all) {
        if (a.get() == b.get()) continue;
        const int from = a->gpu->index, to = b->gpu->index;
        if (stop_before_next_case(record)) return;
        PINBENCH_CUDA_TRY(cudaSetDevice(from));
        if (access) {
          int can = 0;
          PINBENCH_CUDA_TRY(cudaDeviceCanAccessPeer(&can, from, to));
          if (!can) continue;
          const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
          if (e == cudaErrorPeerAccessAlreadyEnabled) {
            (void)cudaGetLastError();
          } else {
            PINBENCH_CUDA_TRY(e);
          }
        }
        // a's up buffer holds the source (a round uploaded it); b's down buffer receives it.
        Sampler sampler(StopRule::fixed(cfg.rounds * 2), SampleClock::kCudaEvents);
        const cudaStream_t s = a->s_up.get();
        const auto copy = [&] {
          PINBENCH_CUDA_TRY(cudaMemcpyPeerAsync(b->down.data(), to, a->up.data(), from, bytes, s));
        };
        const Timed t = sampler.run(one_timed_sample(s, copy), copy);
        PINBENCH_CUDA_TRY(cudaStreamSynchronize(s));
        cuda::HostBuffer back(bytes, MemoryKind::kPageable);
        PINBENCH_CUDA_TRY(cudaSetDevice(to));
        PINBENCH_CUDA_TRY(cudaMemcpy(back.data(), b->down.data(), bytes, cudaMemcpyDeviceToHost));
        const std::string gate =
            fmt::format("host/peer/{}to{}/{}", from, to, access ? "peer_access" : "no_peer_access");
        const bool passed = add_gate(
            record,
            bytes_gate(gate, first_mismatch(back.data(), a->host.src.data(), bytes), bytes));
        Case c = make_case(
            {"peer", "d2d", "device", "cudaMemcpyPeerAsync", "cuda_events", bytes, 1, gate}, t,
            passed);
        c.extra["gpu"] = from;
        c.extra["peer"] = to;
        c.extra["peer_access"] = access;
        record.cases.push_back(std::move(c));
      }
    }
  }
}

}  // namespace

RunRecord run_host(const HostConfig& cfg) {
  cuda::require_device();
  std::vector<int> devices = cfg.devices;
  if (devices.empty()) {
    for (int i = 0; i < cuda::device_count(); ++i) devices.push_back(i);
  }
  const auto start = SteadyClock::now();
  HostConfig written = cfg;
  written.devices = devices;
  nlohmann::json config = nlohmann::json::object();
  put_fields(config, written);
  RunRecord record = start_record("host", std::move(config));
  for (int d : devices) record.machine.gpus.push_back(cuda::query_gpu(d));
  std::vector<std::size_t> everyone;
  for (std::size_t i = 0; i < devices.size(); ++i) everyone.push_back(i);
  std::vector<std::unique_ptr<GpuLane>> pinned_lanes;
  for (MemoryKind kind : {MemoryKind::kPinned, MemoryKind::kPageable}) {
    std::vector<std::unique_ptr<GpuLane>> lanes;
    for (GpuInfo& g : record.machine.gpus) {
      PINBENCH_CUDA_TRY(cudaSetDevice(g.index));
      auto l = std::make_unique<GpuLane>(
          GpuLane{&g, place_host_pair(g, cfg.bytes, kind, kSeed, cfg.place_on_gpu_node),
                  cuda::DeviceBuffer(cfg.bytes), cuda::DeviceBuffer(cfg.bytes), cuda::Stream(),
                  cuda::Stream()});
      PINBENCH_CUDA_TRY(
          cudaMemcpy(l->down.data(), l->host.src.data(), cfg.bytes, cudaMemcpyHostToDevice));
      if (kind == MemoryKind::kPinned) {
        read_link_under_load(g, l->up.data(), l->host.src.data(), cfg.bytes, 4, l->s_up);
        record.config["placement_by_gpu"][fmt::format("gpu{}", g.index)] = l->host.placement;
      }
      lanes.push_back(std::move(l));
    }
    for (const char* direction : {"h2d", "d2h", "bidir"}) {
      for (std::size_t i = 0; i < lanes.size(); ++i) {
        if (stop_before_next_case(record)) break;
        measure_set(record, lanes, {i}, "alone", direction, kind, cfg);
      }
      if (stop_before_next_case(record)) break;
      measure_set(record, lanes, everyone, "together", direction, kind, cfg);
    }
    if (kind == MemoryKind::kPinned) pinned_lanes = std::move(lanes);
    if (record.incomplete) break;
  }
  if (pinned_lanes.size() >= 2 && !record.incomplete) measure_peers(record, pinned_lanes, cfg);
  PINBENCH_CUDA_TRY(cudaSetDevice(cuda::selected_device()));
  finish_record(record, start);
  return record;
}

}  // namespace pinbench::experiments::host
