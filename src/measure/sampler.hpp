// The one sampling loop of every experiment: warm-ups, then batches of timed samples until the
// stop rule (framework/sampling.hpp) says why to stop, with a CUDA-event or a host clock.
//
// What a sample is stays with each experiment, as its file's opening comment says: the
// experiment's batch callback clears, times, copies and checks its own way, and reads the times
// from the sampler's clock. A batch holds one sample, or several queued together: behind the
// spin-kernel latch (measure/latch.hpp) where a case allows it, or back to back as the lesson's
// timed copies and the staged engine's back-to-back runs are. The sampler decides how many samples
// each batch gets (the first: the rule's minimum; then enough to fill about 20 ms, never past the
// sample cap), and records why it stopped: the count, the spread, a time or sample cap, or a failed
// check.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

#include "framework/case_builder.hpp"
#include "framework/sampling.hpp"
#include "cuda/stream.hpp"

namespace pinbench {

using SteadyClock = std::chrono::steady_clock;

// Milliseconds from `t0` to now on the steady clock.
double ms_since(SteadyClock::time_point t0);

enum class SampleClock { kCudaEvents, kHostClock };

class Sampler {
 public:
  // A batch of `count` samples, numbered from `first` within the case: appends `count` times to
  // out.samples_ms (and call_ms where it times calls) and calls out.fail() for wrong bytes.
  using Batch = std::function<void(Sampler& sampler, int first, int count, Timed& out)>;

  // `max_batch`: the most samples one batch may hold (1: each sample on its own).
  // `events_per_sample`: events the event clock keeps for each sample of a batch.
  Sampler(StopRule rule, SampleClock clock, int max_batch = 1, int events_per_sample = 2);

  // Runs `warmup` (if any), then batches until the rule stops them. Exceptions from either
  // propagate; a failed check stops sampling with StopReason::kGateFailed. `warmup` may use the
  // clock of the first batch's samples; the time cap counts from after it.
  Timed run(const Batch& batch, const std::function<void()>& warmup = {});

  // Inside a batch, around sample `i` of the batch (0 <= i < count). The event clock records an
  // event on `stream` (nullptr: the legacy default stream); the host clock reads the time, so
  // the caller has waited for the work before stop().
  void start(int i, cudaStream_t stream = nullptr);
  void stop(int i, cudaStream_t stream = nullptr);
  // Waits until sample i's stop has been reached (event clock); nothing for the host clock.
  void wait(int i);
  // Milliseconds from start(i) to stop(i); for events, once both have completed.
  double elapsed_ms(int i) const;
  // Host clock: milliseconds from start(i) to now (how long a call held the thread).
  double ms_since_start(int i) const;
  // The event clock's `which`-th event of sample i, for batches that time more than one
  // interval per sample (start(i) and stop(i) are events 0 and 1).
  cuda::Event& event(int i, int which);

  const StopRule& rule() const { return rule_; }
  // The samples the next batch gets, after `done` samples, the last of them `last_ms` long.
  int next_batch(int done, double last_ms) const;
  int first_batch() const;

 private:
  void reserve(int count);

  StopRule rule_;
  SampleClock clock_;
  int max_batch_;
  int events_per_sample_;
  std::vector<cuda::Event> events_;
  std::vector<SteadyClock::time_point> host_start_;
  std::vector<SteadyClock::time_point> host_stop_;
};

// The plainest batch, one sample: `work` (a copy queued on `stream`, say) between the clock's
// start and stop on `stream`, waited for, its time appended to samples_ms. With the host clock
// the work must be done when `work` returns.
Sampler::Batch one_timed_sample(cudaStream_t stream, std::function<void()> work);

}  // namespace pinbench
