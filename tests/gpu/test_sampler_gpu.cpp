// The one sampler on the event clock: events around stream work, batches queued back to back,
// and several intervals per sample.
#include <cuda_runtime_api.h>

#include "framework/units.hpp"
#include "cuda/buffers.hpp"
#include "cuda/check.hpp"
#include "cuda/stream.hpp"
#include "measure/sampler.hpp"
#include "gpu_test.hpp"

namespace pinbench {
namespace {

TEST(GpuSampler, TheEventClockTimesStreamWorkInBatches) {
  PINBENCH_REQUIRE_GPU();
  cuda::DeviceBuffer dev(16 * kMiB);
  cuda::Stream stream;
  Sampler sampler(StopRule::fixed(6), SampleClock::kCudaEvents, 4);
  std::vector<int> counts;
  const Timed t = sampler.run([&](Sampler& s, int, int count, Timed& out) {
    counts.push_back(count);
    for (int i = 0; i < count; ++i) {
      s.start(i, stream.get());
      PINBENCH_CUDA_TRY(cudaMemsetAsync(dev.data(), i, 16 * kMiB, stream.get()));
      s.stop(i, stream.get());
    }
    s.wait(count - 1);
    for (int i = 0; i < count; ++i) out.samples_ms.push_back(s.elapsed_ms(i));
  });
  EXPECT_EQ(t.stop, StopReason::kCount);
  ASSERT_EQ(t.samples_ms.size(), 6u);
  for (double ms : t.samples_ms) EXPECT_GT(ms, 0.0);
  // Four fit the first batch; the sample cap leaves two for the next.
  EXPECT_EQ(counts, (std::vector<int>{4, 2}));
}

TEST(GpuSampler, ExtraEventsTimeMoreThanOneIntervalPerSample) {
  PINBENCH_REQUIRE_GPU();
  cuda::DeviceBuffer dev(16 * kMiB);
  cuda::Stream stream;
  Sampler sampler(StopRule::fixed(2), SampleClock::kCudaEvents, 1, 3);
  std::vector<double> whole;
  const Timed t = sampler.run([&](Sampler& s, int, int, Timed& out) {
    s.start(0, stream.get());
    PINBENCH_CUDA_TRY(cudaMemsetAsync(dev.data(), 1, 16 * kMiB, stream.get()));
    s.stop(0, stream.get());
    PINBENCH_CUDA_TRY(cudaMemsetAsync(dev.data(), 2, 16 * kMiB, stream.get()));
    s.event(0, 2).record(stream.view());
    s.event(0, 2).synchronize();
    out.samples_ms.push_back(s.elapsed_ms(0));
    whole.push_back(cuda::Event::elapsed_ms(s.event(0, 0), s.event(0, 2)));
  });
  ASSERT_EQ(t.samples_ms.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_GT(whole[i], t.samples_ms[i]);
  EXPECT_THROW(sampler.event(0, 3), std::logic_error);
}

}  // namespace
}  // namespace pinbench
