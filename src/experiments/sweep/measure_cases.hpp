// The sweep's measuring engine, shared by measure.cpp; not a public interface.
//
// Two timing methods, chosen per case:
//  - latch: for host memory the driver can DMA directly (page-locked kinds). A spin kernel holds
//    the stream while warm-ups, clears, event pairs, copies and checks are queued; the host then
//    releases it, so enqueue cost never lands between a start and a stop event.
//  - blocking: for pageable and managed memory. The driver may stage such a copy and hold the
//    host inside the call until the stream drains, so a copy queued behind a spinning kernel
//    could wait for the kernel's timeout. Each sample is issued on its own, between two events,
//    and the stream is synchronised before the next.
// Every sample's destination is cleared before the copy and compared with the reference bytes
// after it, outside the timed interval.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuda/buffers.hpp"
#include "cuda/stream.hpp"
#include "experiments/sweep/measure.hpp"
#include "experiments/sweep/plan.hpp"
#include "framework/record.hpp"

namespace pinbench::experiments::sweep {

// Buffers for one host-memory kind, sized for the largest case.
struct KindBuffers {
  KindBuffers(MemoryKind kind, std::size_t bytes, const cuda::HostBuffer& expected);
  MemoryKind kind;
  cuda::HostBuffer host;             // source of h2d, destination of d2h
  cuda::HostBuffer host2;            // destination of the d2h half of bidir
  cuda::DeviceBuffer dev;            // destination of h2d
  cuda::DeviceBuffer ref;            // the reference bytes on the device: source of d2h
  const cuda::HostBuffer& expected;  // the reference bytes on the host (pageable)
};

class Measurer {
 public:
  Measurer(const SweepConfig& config, bool pageable_access, const SweepHooks& hooks);
  ~Measurer();
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  // Appends the case's gate and its Case to `record` (bidir: three cases, each direction and the
  // total). Returns why nothing was measured (an SM kernel on pageable memory the device cannot
  // reach), or "" when the case ran.
  std::string measure(KindBuffers& b, Direction direction, CopyMethod method, std::size_t bytes,
                      RunRecord& record);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench::experiments::sweep
