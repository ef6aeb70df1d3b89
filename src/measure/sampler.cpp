#include "measure/sampler.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace pinbench {
namespace {

// How long one batch of queued samples should run: long enough that the latch's release and
// the read-back of the checks are small beside it, short enough to stay under the latch's
// timeout with room to spare.
constexpr double kBatchTargetMs = 20.0;

}  // namespace

double ms_since(SteadyClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
}

Sampler::Sampler(StopRule rule, SampleClock clock, int max_batch, int events_per_sample)
    : rule_(rule),
      clock_(clock),
      max_batch_(std::max(1, max_batch)),
      events_per_sample_(std::max(2, events_per_sample)) {}

int Sampler::first_batch() const {
  return std::clamp(rule_.min_samples, 1, max_batch_);
}

int Sampler::next_batch(int done, double last_ms) const {
  const int left = rule_.max_samples - done;
  if (max_batch_ == 1) return 1;
  const double per = std::max(last_ms, 1e-3);
  const double fits = std::min(kBatchTargetMs / per, static_cast<double>(max_batch_));
  const int k = std::clamp(static_cast<int>(fits), std::min(2, max_batch_), max_batch_);
  return std::max(1, std::min(k, left));
}

void Sampler::reserve(int count) {
  if (clock_ == SampleClock::kCudaEvents) {
    const auto need = static_cast<std::size_t>(count) * events_per_sample_;
    while (events_.size() < need) events_.emplace_back();
  } else {
    host_start_.resize(std::max<std::size_t>(host_start_.size(), count));
    host_stop_.resize(host_start_.size());
  }
}

Timed Sampler::run(const Batch& batch, const std::function<void()>& warmup) {
  int count = first_batch();
  // Before the warm-ups, which may use the clock's first sample (the sweep's bidir warm-ups
  // record its events).
  reserve(count);
  if (warmup) warmup();
  Timed out;
  const auto t0 = SteadyClock::now();
  while (true) {
    reserve(count);
    const std::size_t before = out.samples_ms.size();
    batch(*this, static_cast<int>(before), count, out);
    if (out.failed) {
      out.stop = StopReason::kGateFailed;
      return out;
    }
    if (out.samples_ms.size() == before) throw std::logic_error("a sampling batch timed nothing");
    out.stop = should_stop(rule_, out.samples_ms, ms_since(t0));
    if (out.stop != StopReason::kContinue) return out;
    count = next_batch(static_cast<int>(out.samples_ms.size()), out.samples_ms.back());
  }
}

void Sampler::start(int i, cudaStream_t stream) {
  if (clock_ == SampleClock::kCudaEvents) {
    event(i, 0).record(cuda::StreamView(stream));
  } else {
    host_start_.at(static_cast<std::size_t>(i)) = SteadyClock::now();
  }
}

void Sampler::stop(int i, cudaStream_t stream) {
  if (clock_ == SampleClock::kCudaEvents) {
    event(i, 1).record(cuda::StreamView(stream));
  } else {
    host_stop_.at(static_cast<std::size_t>(i)) = SteadyClock::now();
  }
}

void Sampler::wait(int i) {
  if (clock_ == SampleClock::kCudaEvents) event(i, 1).synchronize();
}

double Sampler::elapsed_ms(int i) const {
  const auto k = static_cast<std::size_t>(i);
  if (clock_ == SampleClock::kCudaEvents) {
    const std::size_t base = k * static_cast<std::size_t>(events_per_sample_);
    return cuda::Event::elapsed_ms(events_.at(base), events_.at(base + 1));
  }
  return std::chrono::duration<double, std::milli>(host_stop_.at(k) - host_start_.at(k)).count();
}

double Sampler::ms_since_start(int i) const {
  return ms_since(host_start_.at(static_cast<std::size_t>(i)));
}

cuda::Event& Sampler::event(int i, int which) {
  if (clock_ != SampleClock::kCudaEvents || which < 0 || which >= events_per_sample_) {
    throw std::logic_error("Sampler::event: no such event");
  }
  return events_.at(static_cast<std::size_t>(i) * events_per_sample_ +
                    static_cast<std::size_t>(which));
}

Sampler::Batch one_timed_sample(cudaStream_t stream, std::function<void()> work) {
  return [stream, work = std::move(work)](Sampler& sampler, int, int, Timed& out) {
    sampler.start(0, stream);
    work();
    sampler.stop(0, stream);
    sampler.wait(0);
    out.samples_ms.push_back(sampler.elapsed_ms(0));
  };
}

}  // namespace pinbench
