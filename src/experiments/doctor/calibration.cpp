// The doctor's calibration: for each size the program copied most (at most four per direction,
// at most 256 MiB), cudaMemcpyAsync on a non-blocking stream from pageable and from page-locked
// host memory. Each sample is timed on the host clock: how long the call held the thread
// (call_ms, the cost a pageable async copy adds to its caller) and how long until the copy was
// done (samples_ms, from which the rate comes). Five samples after one warm-up, then the bytes
// that arrived are compared with what was sent, so a rate is only shown for a copy that was
// right. Then the same from pageable memory through the staged engine, as `pinbench accel` would
// copy it (method kAccelMethod): to the device the call returns once the source is read and the
// stream waits for the copy, to the host once the data is in place.
//
// Where the program's plan asks (doctor_calibration_plan): kSmallCopyBatch small page-locked
// copies one cudaMemcpyAsync each, the same in one cudaMemcpyBatchAsync, and their bytes in one
// contiguous copy (small-copy-storm's cost per call); and, on a host of two NUMA nodes or more,
// the copies with the host buffer bound to each node involved (set_mempolicy), its pages' node
// gated (numa-placement's cost). A few seconds at most; docs/doctor.md says how the findings use
// the figures.
#include "experiments/doctor/calibration.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "base/batch_copy.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "experiments/doctor/analysis.hpp"
#include "framework/case_builder.hpp"
#include "framework/numa.hpp"
#include "framework/pattern.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench::experiments::doctor {

std::vector<CalibrationSize> calibration_sizes(
    const std::vector<std::pair<std::string, std::uint64_t>>& copies, std::size_t per_direction,
    std::uint64_t max_bytes) {
  std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> moved;
  for (const auto& [direction, bytes] : copies) {
    if ((direction == "h2d" || direction == "d2h") && bytes > 0) {
      moved[{direction, std::min(bytes, max_bytes)}] += bytes;
    }
  }
  std::vector<CalibrationSize> out;
  for (const char* direction : {"h2d", "d2h"}) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes;  // moved, bytes
    for (const auto& [key, total] : moved) {
      if (key.first == direction) sizes.emplace_back(total, key.second);
    }
    std::stable_sort(sizes.begin(), sizes.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < sizes.size() && i < per_direction; ++i) {
      out.push_back({direction, sizes[i].second});
    }
  }
  return out;
}

namespace {

// Fills `sent`, clears `back` (and, to the device, `device`), runs `copy` (which moves `bytes`
// between the host and `device` on `stream`: from `sent` to the device, or from the device into
// `back`) once as a warm-up and five times timed on the host clock, and compares the bytes that
// arrived with those sent: a sample set whose bytes were wrong is failed.
Timed sample_copy(const std::function<void()>& copy, bool h2d, const cuda::HostBuffer& sent,
                  const cuda::HostBuffer& back, const cuda::DeviceBuffer& device, std::size_t bytes,
                  const cuda::Stream& stream) {
  fill_pattern(sent.data(), bytes, 0xd0c7);
  std::memset(back.data(), 0, bytes);
  if (h2d) {
    PINBENCH_CUDA_TRY(cudaMemset(device.data(), 0, bytes));
  } else {
    PINBENCH_CUDA_TRY(cudaMemcpy(device.data(), sent.data(), bytes, cudaMemcpyHostToDevice));
  }
  // Done before the copies start on `stream`, a non-blocking stream that would not wait for it.
  PINBENCH_CUDA_TRY(cudaDeviceSynchronize());
  Sampler sampler(StopRule::fixed(5), SampleClock::kHostClock);
  Timed t = sampler.run(
      [&](Sampler& s, int, int, Timed& out) {
        s.start(0);
        copy();
        out.call_ms.push_back(s.ms_since_start(0));
        stream.synchronize();
        s.stop(0);
        out.samples_ms.push_back(s.elapsed_ms(0));
      },
      [&] {
        copy();
        stream.synchronize();
      });
  if (h2d) PINBENCH_CUDA_TRY(cudaMemcpy(back.data(), device.data(), bytes, cudaMemcpyDeviceToHost));
  const std::optional<std::size_t> mismatch = first_mismatch(sent.data(), back.data(), bytes);
  if (mismatch) t.fail(mismatch_detail(*mismatch, bytes));
  return t;
}

// One cudaMemcpyAsync of `bytes` between `host` and `device`.
void copy_async(bool h2d, void* host, void* device, std::size_t bytes, const cuda::Stream& s) {
  if (h2d) {
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, s.get()));
  } else {
    PINBENCH_CUDA_TRY(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s.get()));
  }
}

void add_note(RunRecord& record, const std::string& note) {
  record.note += (record.note.empty() ? "" : " ") + note;
}

// small-copy-storm's figures: kSmallCopyBatch page-locked copies of `copy_bytes`, one call each,
// one batch, and one contiguous copy of their bytes.
void calibrate_small_copies(RunRecord& record, const DoctorCalibrationPlan::Small& small,
                            const cuda::Stream& stream) {
  const std::size_t each = small.copy_bytes;
  const std::size_t count = kSmallCopyBatch;
  const std::size_t bytes = each * count;
  const bool h2d = small.direction == "h2d";
  cuda::DeviceBuffer device(bytes);
  cuda::HostBuffer sent(bytes, MemoryKind::kPinned);
  cuda::HostBuffer back(bytes, MemoryKind::kPinned);
  char* host = static_cast<char*>(h2d ? sent.data() : back.data());
  char* dev = static_cast<char*>(device.data());
  std::vector<void*> dsts(count);
  std::vector<const void*> srcs(count);
  std::vector<std::size_t> sizes(count, each);
  for (std::size_t i = 0; i < count; ++i) {
    dsts[i] = h2d ? static_cast<void*>(dev + i * each) : host + i * each;
    srcs[i] = h2d ? static_cast<const void*>(host + i * each) : dev + i * each;
  }
  cudaMemcpyAttributes attr =
      batch_copy_attributes(h2d, cudaMemcpySrcAccessOrderStream, cuda::selected_device());
  std::size_t attr_index = 0;
  const auto batch = [&] {
    return cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), count, &attr, &attr_index,
                                1, stream.get());
  };
  const std::string kind_gate_name = gate_name({"doctor", "small", small.direction}, bytes);
  const bool kinds_ok =
      add_gate(record, kind_gate(kind_gate_name + "/kind", host, MemoryKind::kPinned));
  for (const std::string* method : {&kEachMethod, &kBatchMethod, &kContiguousMethod}) {
    if (stop_before_next_case(record)) return;
    std::function<void()> copy;
    if (*method == kEachMethod) {
      copy = [&] {
        for (std::size_t i = 0; i < count; ++i)
          copy_async(h2d, host + i * each, dev + i * each, each, stream);
      };
    } else if (*method == kBatchMethod) {
      // A driver without batches says so once, before any timing: no batched figure then.
      if (const cudaError_t e = batch(); e != cudaSuccess) {
        (void)cudaGetLastError();
        add_note(record, fmt::format("No batched small-copy figure: cudaMemcpyBatchAsync returned "
                                     "{}.",
                                     cudaGetErrorName(e)));
        continue;
      }
      stream.synchronize();
      copy = [&] { PINBENCH_CUDA_TRY(batch()); };
    } else {
      copy = [&] { copy_async(h2d, host, dev, bytes, stream); };
    }
    const std::string gate = gate_name({"doctor", "small", small.direction,
                                        *method == kEachMethod    ? "each"
                                        : *method == kBatchMethod ? "batch"
                                                                  : "contiguous"},
                                       bytes);
    Timed t = sample_copy(copy, h2d, sent, back, device, bytes, stream);
    add_gate(record, sampled_gate(gate, t, every_sample_detail(t.samples_ms.size(), bytes)));
    Case c = make_case(
        {kSmallCopyPart, small.direction, "pinned", *method, "host_clock", bytes, 1, gate}, t,
        kinds_ok);
    c.extra["chunks"] = count;
    record.cases.push_back(std::move(c));
  }
}

// numa-placement's figures: the copy with its host buffer bound to each node of `numa`.
void calibrate_numa(RunRecord& record, const DoctorCalibrationPlan::Numa& numa,
                    const cuda::Stream& stream) {
  const std::size_t bytes = numa.bytes;
  const bool h2d = numa.direction == "h2d";
  const MemoryKind kind = numa.memory == "pinned" ? MemoryKind::kPinned : MemoryKind::kPageable;
  cuda::DeviceBuffer device(bytes);
  for (int node : numa.nodes) {
    if (stop_before_next_case(record)) return;
    if (!bind_thread_memory_to_node(node)) {
      add_note(record, fmt::format("No NUMA figure for node {}: the kernel refused to bind "
                                   "memory there.",
                                   node));
      continue;
    }
    std::unique_ptr<cuda::HostBuffer> sent, back;
    try {
      sent = std::make_unique<cuda::HostBuffer>(bytes, kind);
      back = std::make_unique<cuda::HostBuffer>(bytes, kind);
    } catch (...) {
      reset_thread_memory_node();
      throw;
    }
    reset_thread_memory_node();
    void* host = h2d ? sent->data() : back->data();
    const std::string gate = gate_name(
        {"doctor", "numa", numa.direction, numa.memory, fmt::format("node{}", node)}, bytes);
    // The pages must lie where the case says, or its rate says nothing of that node.
    const int seen = page_node(host);
    const bool placed = add_gate(
        record, {gate + "/node", seen == node,
                 fmt::format("the host buffer's pages lie on node {} (asked {})", seen, node)});
    const bool kinds_ok = add_gate(record, kind_gate(gate + "/kind", host, kind)) && placed;
    Timed t = sample_copy([&] { copy_async(h2d, host, device.data(), bytes, stream); }, h2d, *sent,
                          *back, device, bytes, stream);
    add_gate(record, sampled_gate(gate, t, every_sample_detail(t.samples_ms.size(), bytes)));
    Case c = make_case(
        {kNumaPart, numa.direction, numa.memory, fmt::format("cudaMemcpyAsync, host node {}", node),
         "host_clock", bytes, 1, gate},
        t, kinds_ok);
    c.extra["host_numa_node"] = node;
    record.cases.push_back(std::move(c));
  }
}

}  // namespace

void calibrate_doctor(RunRecord& record, const std::vector<CalibrationSize>& sizes) {
  cuda::require_device();
  cuda::Stream stream;
  // The engine accel would make, once; without it (page-locked memory short), no accel figures.
  std::unique_ptr<StagedCopier> engine;
  try {
    engine = std::make_unique<StagedCopier>();
  } catch (const std::exception& e) {
    add_note(record, std::string("No staged engine for the accel estimate: ") + e.what() + ".");
  }
  for (const CalibrationSize& size : sizes) {
    const std::size_t bytes = size.bytes;
    const bool h2d = size.direction == "h2d";
    cuda::DeviceBuffer device(bytes);
    for (int way = 0; way < 3; ++way) {
      // pageable, page-locked, then pageable through the engine
      const bool through_engine = way == 2;
      if (through_engine && !engine) continue;
      const MemoryKind kind = way == 1 ? MemoryKind::kPinned : MemoryKind::kPageable;
      if (stop_before_next_case(record)) return;
      cuda::HostBuffer sent(bytes, kind);
      cuda::HostBuffer back(bytes, kind);
      const std::string memory = to_string(kind);
      const std::string gate =
          gate_name({"doctor", size.direction, through_engine ? "accel" : memory}, bytes);
      const bool kinds_ok = add_gate(record, kind_gate(gate + "/kind", sent.data(), kind));
      // h2d copies `sent` to the device; d2h copies the device's copy of it into `back`.
      void* host = h2d ? sent.data() : back.data();
      const auto copy = [&] {
        if (!through_engine) {
          copy_async(h2d, host, device.data(), bytes, stream);
        } else if (h2d) {
          (void)engine->copy_to_device_ordered(device.data(), host, bytes, stream.get());
        } else {
          engine->copy_to_host(host, device.data(), bytes, stream.get());
        }
      };
      Timed t = sample_copy(copy, h2d, sent, back, device, bytes, stream);
      add_gate(record, sampled_gate(gate, t, every_sample_detail(t.samples_ms.size(), bytes)));
      record.cases.push_back(make_case(
          {"doctor-calibration", size.direction, memory,
           through_engine ? kAccelMethod : "cudaMemcpyAsync", "host_clock", bytes, 1, gate},
          t, kinds_ok));
    }
  }
}

void calibrate_doctor_plan(RunRecord& record, const DoctorCalibrationPlan& plan) {
  if (plan.empty()) return;
  cuda::require_device();
  cuda::Stream stream;
  for (const DoctorCalibrationPlan::Small& small : plan.small) {
    calibrate_small_copies(record, small, stream);
  }
  for (const DoctorCalibrationPlan::Numa& numa : plan.numa) calibrate_numa(record, numa, stream);
}

}  // namespace pinbench::experiments::doctor
