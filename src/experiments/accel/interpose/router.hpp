// The decisions of `pinbench accel`'s library: each copy call the program makes either goes
// through a staged engine (pinbench::StagedCopier, one per device, made on the first copy it
// takes) or passes on to the runtime exactly as it was made, and each is counted with its reason
// (counters.hpp).
//
// A copy is routed only when the engine keeps the runtime's meaning: a host-to-device or
// device-to-host copy (explicit, or cudaMemcpyDefault between pageable and device memory) of at
// least the engine's direct threshold for its direction, between pageable host memory and device
// memory, contiguous (a 2D copy only when its rows touch), on a stream that is not being
// captured, with no earlier error pending, and, on a default stream, for the current device.
// Anything else, and anything the engine's own checks refuse, passes on unchanged, so the
// runtime answers it as it would have.
//
// What routed copies keep:
//  - to the device, cudaMemcpyAsync: the engine starts after the work queued before it on the
//    stream, the call returns once the source has been read, and later work on the stream waits
//    for the copy (StagedCopier::copy_to_device_ordered); cudaMemcpy returns once it is complete;
//  - to the host, both return once the data is in the destination, as from pageable memory;
//  - a CUDA failure is returned as the runtime's cudaError_t, and the program's next
//    cudaGetLastError / cudaPeekAtLastError reports it (last_error()).
//
// The CUDA runtime calls here are the program's own runtime's (runtime_names.hpp in the library,
// the simulated runtime in tests/sim).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "experiments/accel/interpose/counters.hpp"
#include "pinbench/staged_copy.hpp"

namespace pinbench::experiments::accel {

// One copy call as the program made it. `stream` is the stream the runtime would use: the
// per-thread entry points (_ptsz, _ptds) have already turned 0 into cudaStreamPerThread.
struct CopyCall {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t width = 0;   // bytes per row; a 1D copy is one row
  std::size_t height = 1;  // rows
  std::size_t dpitch = 0;  // 2D only: bytes from one row to the next
  std::size_t spitch = 0;
  cudaMemcpyKind kind = cudaMemcpyDefault;
  cudaStream_t stream = nullptr;
  bool synchronous = false;  // cudaMemcpy, cudaMemcpy2D
  // Made through the driver's entry points (cuMemcpyHtoD_v2 and kin): a failure is returned as
  // the driver's CUresult, and no runtime's last error is kept for it.
  bool driver = false;
};

struct Decision {
  Outcome outcome = Outcome::kRouted;
  Way way = Way::kOther;
  std::size_t bytes = 0;
  int device = 0;  // of the device memory, when routed
};

class Router {
 public:
  // `counters` is where this process counts; it may be replaced (after a fork).
  explicit Router(ProcessCounters* counters);
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // Routes `call` or passes it on through `pass` (the runtime's own entry point, called with
  // the program's arguments), counts it, and returns what the program gets back.
  template <typename Pass>
  cudaError_t copy(const CopyCall& call, Pass&& pass) {
    const auto t0 = std::chrono::steady_clock::now();
    Decision d = decide(call);
    cudaError_t result = cudaSuccess;
    if (d.outcome == Outcome::kRouted) d.outcome = route(call, d, result);
    if (d.outcome != Outcome::kRouted && d.outcome != Outcome::kFailed) result = pass();
    count(d, std::chrono::steady_clock::now() - t0);
    return result;
  }

  // Passes `call` on through `pass` without asking, counted as `why` (a check made before the
  // router could be asked, such as a driver call's context).
  template <typename Pass>
  cudaError_t pass_on(const CopyCall& call, Outcome why, Pass&& pass) {
    const auto t0 = std::chrono::steady_clock::now();
    Decision d;
    d.outcome = why;
    d.way = call.kind == cudaMemcpyHostToDevice   ? Way::kToDevice
            : call.kind == cudaMemcpyDeviceToHost ? Way::kToHost
                                                  : Way::kOther;
    d.bytes = call.width * call.height;
    const cudaError_t result = pass();
    count(d, std::chrono::steady_clock::now() - t0);
    return result;
  }

  // Whether the call would be routed, and why not: no CUDA work is done beyond the queries.
  Decision decide(const CopyCall& call);

  // What cudaGetLastError (reset) or cudaPeekAtLastError returns, given what the runtime's own
  // returned: the runtime's when it holds one (it is newer, or sticky), else a routed copy's
  // failure that the runtime never saw.
  cudaError_t last_error(cudaError_t from_runtime, bool reset);

  // In a forked child: count into `fresh`, and never touch the parent's engines (their threads
  // do not exist here). Only what is safe after fork().
  void forked(ProcessCounters* fresh);

  // Waits, up to `limit`, for the routed copies whose device work may still be running (to the
  // device, after their calls returned). At exit, before the runtime is torn down.
  void quiesce(std::chrono::milliseconds limit);

  // The engine's thresholds: copies below them pass on (StagedCopyOptions' defaults).
  std::size_t threshold(Way way) const;

 private:
  Outcome route(const CopyCall& call, const Decision& d, cudaError_t& result);
  pinbench::StagedCopier* engine(int device);
  void count(const Decision& d, std::chrono::steady_clock::duration took);

  ProcessCounters* counters_;
  bool forked_ = false;
  const pinbench::StagedCopyOptions options_;
  std::mutex mutex_;  // guards engines_, refused_ and in_flight_
  std::map<int, std::unique_ptr<pinbench::StagedCopier>> engines_;
  std::map<int, std::string> refused_;           // why no engine could be made on a device
  std::vector<pinbench::StagedCopy> in_flight_;  // ordered copies to the device, maybe running
};

}  // namespace pinbench::experiments::accel
