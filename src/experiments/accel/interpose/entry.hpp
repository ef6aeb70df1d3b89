// What accel's two ways in share (interpose.cpp, the runtime's entry points; driver_entry.cpp,
// the driver's): the process's router and counters, and the mark a thread carries while it is
// inside accel. A copy call that reaches accel while its thread is already inside (the shared
// runtime's cudaMemcpy, passed on, calling the driver's cuMemcpyHtoD_v2 that accel handed it;
// the engine's own runtime calls) goes straight to the function it names: each copy a program
// makes is counted once, where it entered.
#pragma once

#include <cuda_runtime_api.h>

#include "experiments/accel/interpose/counters.hpp"
#include "experiments/accel/interpose/router.hpp"

namespace pinbench::experiments::accel {

// Calls of accel's entry points, and of the engine's runtime calls, on this thread now.
inline thread_local int t_inside = 0;

struct Inside {
  Inside() { ++t_inside; }
  ~Inside() { --t_inside; }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

inline bool inside_accel() {
  return t_inside > 0;
}

Router& router();
ProcessCounters* counters();
// After a copy call: registers the exit handler that waits for routed copies, once an engine
// exists.
void after_copy();

// A copy call as it enters accel through `way_in` (kViaRuntime, kViaDriver): counted, then routed
// or passed on through `pass`.
template <typename Pass>
cudaError_t enter(const CopyCall& call, std::uint32_t way_in, Pass&& pass) {
  const Inside inside;
  ProcessCounters* c = counters();
  const std::uint32_t bits = kCalledUs | way_in;
  if ((__atomic_load_n(&c->reach, __ATOMIC_RELAXED) & bits) != bits) {
    __atomic_fetch_or(&c->reach, bits, __ATOMIC_RELAXED);
  }
  const cudaError_t result = router().copy(call, pass);
  after_copy();
  return result;
}

// The same, for a call a check made before the router settled: passed on, counted as `why`.
template <typename Pass>
cudaError_t enter_passing(const CopyCall& call, std::uint32_t way_in, Outcome why, Pass&& pass) {
  const Inside inside;
  __atomic_fetch_or(&counters()->reach, kCalledUs | way_in, __ATOMIC_RELAXED);
  return router().pass_on(call, why, pass);
}

}  // namespace pinbench::experiments::accel
