// A trace of the run from CUPTI, NVIDIA's profiling interface, loaded at run time so pinbench
// needs no CUPTI to build, link or run. With it, pinbench records what the driver saw: every
// runtime API call, every copy with the memory kinds of its source and destination, every
// kernel, and the NVTX ranges around them. No CUDA types here, so the CLI can include it.
//
// One trace at a time per process. NVTX ranges reach the trace only when CUPTI is NVTX's
// injection library, which NVTX decides at its first call in the process: start the trace
// before any NVTX range opens.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/trace_model.hpp"

namespace pinbench::cuda {

// Where to look for CUPTI, in order. When `cupti_path` (the CUPTI_PATH variable) is set it is
// the only place: a file, or a folder holding libcupti.so.13 or libcupti.so; an explicit choice
// is never silently replaced. Otherwise: the loader's own search for libcupti.so.13
// (LD_LIBRARY_PATH, the system's cache), then $CUDA_HOME/lib64 and
// $CUDA_HOME/extras/CUPTI/lib64, then the same under /usr/local/cuda.
std::vector<std::string> cupti_candidates(const char* cupti_path, const char* cuda_home);

class CuptiTrace {
 public:
  // Loads CUPTI from the first candidate that loads and starts collecting. Returns nullptr and
  // sets `why_not` to one line when CUPTI is absent, of another major version, or held by
  // another profiler (Nsight Systems, Nsight Compute, a debugger).
  static std::unique_ptr<CuptiTrace> start(std::string* why_not);
  static std::unique_ptr<CuptiTrace> start(const std::vector<std::string>& candidates,
                                           std::string* why_not);

  CuptiTrace(const CuptiTrace&) = delete;
  CuptiTrace& operator=(const CuptiTrace&) = delete;
  ~CuptiTrace();  // stops collecting if finish() was not called; never throws

  // Flushes CUPTI's buffers, stops collecting and returns the trace, its times on CUPTI's clock
  // with the origin at start(). Call once, after the traced work has completed.
  Trace finish();

  const std::string& library() const { return library_; }  // the file CUPTI was loaded from

  struct State;  // CUPTI's functions and what the callbacks collected

 private:
  CuptiTrace() = default;
  void stop() noexcept;

  std::unique_ptr<State> state_;
  std::string library_;
  bool running_ = false;
};

}  // namespace pinbench::cuda
