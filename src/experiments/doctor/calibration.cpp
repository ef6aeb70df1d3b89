// The doctor's calibration: for each size the program copied most (at most four per direction,
// at most 256 MiB), cudaMemcpyAsync on a non-blocking stream from pageable and from page-locked
// host memory. Each sample is timed on the host clock: how long the call held the thread
// (call_ms, the cost a pageable async copy adds to its caller) and how long until the copy was
// done (samples_ms, from which the rate comes). Five samples after one warm-up, then the bytes
// that arrived are compared with what was sent, so a rate is only shown for a copy that was
// right. Then the same from pageable memory through the staged engine, as `pinbench accel` would
// copy it (method kAccelMethod): to the device the call returns once the source is read and the
// stream waits for the copy, to the host once the data is in place. A few seconds at most;
// docs/doctor.md says how the findings use the figures.
#include "experiments/doctor/calibration.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/stream.hpp"
#include "experiments/doctor/analysis.hpp"
#include "framework/case_builder.hpp"
#include "framework/pattern.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench {

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

void calibrate_doctor(RunRecord& record, const std::vector<CalibrationSize>& sizes) {
  cuda::require_device();
  cuda::Stream stream;
  // The engine accel would make, once; without it (page-locked memory short), no accel figures.
  std::unique_ptr<StagedCopier> engine;
  try {
    engine = std::make_unique<StagedCopier>();
  } catch (const std::exception& e) {
    record.note += std::string(record.note.empty() ? "" : " ") +
                   "No staged engine for the accel estimate: " + e.what() + ".";
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
      fill_pattern(sent.data(), bytes, 0xd0c7);
      std::memset(back.data(), 0, bytes);
      // h2d copies `sent` to the device; d2h first puts it there, then copies it into `back`.
      void* host = h2d ? sent.data() : back.data();
      if (!h2d)
        PINBENCH_CUDA_TRY(cudaMemcpy(device.data(), sent.data(), bytes, cudaMemcpyHostToDevice));
      const auto copy = [&] {
        if (through_engine) {
          if (h2d) {
            (void)engine->copy_to_device_ordered(device.data(), host, bytes, stream.get());
          } else {
            engine->copy_to_host(host, device.data(), bytes, stream.get());
          }
          return;
        }
        if (h2d) {
          PINBENCH_CUDA_TRY(
              cudaMemcpyAsync(device.data(), host, bytes, cudaMemcpyHostToDevice, stream.get()));
        } else {
          PINBENCH_CUDA_TRY(
              cudaMemcpyAsync(host, device.data(), bytes, cudaMemcpyDeviceToHost, stream.get()));
        }
      };
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
      if (h2d)
        PINBENCH_CUDA_TRY(cudaMemcpy(back.data(), device.data(), bytes, cudaMemcpyDeviceToHost));
      const std::optional<std::size_t> mismatch = first_mismatch(sent.data(), back.data(), bytes);
      if (mismatch) t.fail(mismatch_detail(*mismatch, bytes));
      add_gate(record, sampled_gate(gate, t, every_sample_detail(t.samples_ms.size(), bytes)));
      record.cases.push_back(make_case(
          {"doctor-calibration", size.direction, memory,
           through_engine ? kAccelMethod : "cudaMemcpyAsync", "host_clock", bytes, 1, gate},
          t, kinds_ok));
    }
  }
}

}  // namespace pinbench
