// The one sampling loop, on the host clock (which needs no GPU): how many samples each batch
// gets, and why sampling stops.
#include <gtest/gtest.h>

#include <thread>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "measure/run_record.hpp"
#include "measure/sampler.hpp"

namespace pinbench {
namespace {

// A batch that "times" a constant `ms` per sample and records the batch sizes it was given.
struct FakeBatch {
  double ms = 1.0;
  std::vector<int> counts;
  std::vector<int> firsts;
  int fail_at = -1;  // a sample number whose bytes are wrong

  Sampler::Batch fn() {
    return [this](Sampler&, int first, int count, Timed& out) {
      firsts.push_back(first);
      counts.push_back(count);
      for (int i = 0; i < count; ++i) {
        out.samples_ms.push_back(ms);
        if (first + i == fail_at) out.fail("sample " + std::to_string(first + i) + ": wrong");
      }
    };
  }
};

TEST(Sampler, AFixedCountIsExactlyThatManySamples) {
  FakeBatch b;
  Sampler s(StopRule::fixed(10), SampleClock::kHostClock);
  int warmups = 0;
  const Timed t = s.run(b.fn(), [&] { ++warmups; });
  EXPECT_EQ(warmups, 1);
  EXPECT_EQ(t.samples_ms.size(), 10u);
  EXPECT_EQ(t.stop, StopReason::kCount);
  // One sample per batch when a batch holds one.
  EXPECT_EQ(b.counts, std::vector<int>(10, 1));
  EXPECT_EQ(b.firsts.back(), 9);
}

TEST(Sampler, AFixedCountQueuedBackToBackIsOneBatch) {
  FakeBatch b;
  Sampler s(StopRule::fixed(10), SampleClock::kHostClock, 10);
  const Timed t = s.run(b.fn());
  EXPECT_EQ(b.counts, std::vector<int>{10});
  EXPECT_EQ(t.stop, StopReason::kCount);
}

TEST(Sampler, LatchedBatchesStartAtTheMinimumThenFillTheTargetWithinTheCap) {
  StopRule rule;
  rule.max_spread = 1e-9;  // never reached: the samples vary
  rule.min_samples = 10;
  rule.max_samples = 50;
  rule.time_cap_ms = 1e9;
  Sampler s(rule, SampleClock::kHostClock, 32);
  int n = 0;
  std::vector<int> counts;
  const Timed t = s.run([&](Sampler&, int, int count, Timed& out) {
    counts.push_back(count);
    for (int i = 0; i < count; ++i) out.samples_ms.push_back(++n % 2 ? 1.0 : 2.0);
  });
  // 20 ms of 1 or 2 ms samples: 10 or 20 a batch, never past the sample cap of 50.
  ASSERT_GE(counts.size(), 2u);
  EXPECT_EQ(counts[0], 10);
  for (std::size_t i = 1; i < counts.size(); ++i) {
    EXPECT_GE(counts[i], 2);
    EXPECT_LE(counts[i], 32);
  }
  EXPECT_EQ(t.samples_ms.size(), 50u);
  EXPECT_EQ(t.stop, StopReason::kSampleCap);
  EXPECT_EQ(s.next_batch(0, 0.0), 32);    // a sample too short to time fills the batch
  EXPECT_EQ(s.next_batch(48, 0.5), 2);    // never past the cap
  EXPECT_EQ(s.next_batch(10, 100.0), 2);  // a long sample still batches two
}

TEST(Sampler, SteadySamplesStopOnTheSpread) {
  FakeBatch b;
  StopRule rule;
  rule.min_samples = 5;
  Sampler s(rule, SampleClock::kHostClock);
  const Timed t = s.run(b.fn());
  EXPECT_EQ(t.samples_ms.size(), 5u);
  EXPECT_EQ(t.stop, StopReason::kSpread);
}

TEST(Sampler, NoisySamplesStopAtTheTimeCap) {
  StopRule rule;
  rule.min_samples = 2;
  rule.max_spread = 1e-9;
  rule.time_cap_ms = 5.0;
  Sampler s(rule, SampleClock::kHostClock);
  int n = 0;
  const Timed t = s.run([&](Sampler& sm, int, int, Timed& out) {
    sm.start(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + (++n % 2)));
    sm.stop(0);
    out.samples_ms.push_back(sm.elapsed_ms(0));
  });
  EXPECT_EQ(t.stop, StopReason::kTimeCap);
  EXPECT_GE(t.samples_ms.size(), 2u);
  EXPECT_GE(t.samples_ms[0], 1.0);
}

TEST(Sampler, WrongBytesStopSamplingAtOnce) {
  FakeBatch b;
  b.fail_at = 3;
  Sampler s(StopRule::fixed(10), SampleClock::kHostClock);
  const Timed t = s.run(b.fn());
  EXPECT_EQ(t.samples_ms.size(), 4u);
  EXPECT_TRUE(t.failed);
  EXPECT_EQ(t.detail, "sample 3: wrong");
  EXPECT_EQ(t.stop, StopReason::kGateFailed);
}

TEST(Sampler, TheWarmupMayUseTheClock) {
  Sampler s(StopRule::fixed(2), SampleClock::kHostClock);
  const Timed t = s.run(
      [](Sampler& sm, int, int, Timed& out) {
        sm.start(0);
        sm.stop(0);
        out.samples_ms.push_back(sm.elapsed_ms(0));
      },
      [&] {
        s.start(0);
        s.stop(0);
      });
  EXPECT_EQ(t.samples_ms.size(), 2u);
}

TEST(Sampler, ABatchThatTimesNothingIsABug) {
  Sampler s(StopRule::fixed(3), SampleClock::kHostClock);
  EXPECT_THROW(s.run([](Sampler&, int, int, Timed&) {}), std::logic_error);
}

TEST(Sampler, TheHostClockTimesFromStartToStop) {
  Sampler s(StopRule::fixed(1), SampleClock::kHostClock);
  const Timed t = s.run([](Sampler& sm, int, int, Timed& out) {
    sm.start(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    out.call_ms.push_back(sm.ms_since_start(0));
    sm.stop(0);
    out.samples_ms.push_back(sm.elapsed_ms(0));
  });
  ASSERT_EQ(t.samples_ms.size(), 1u);
  EXPECT_GE(t.samples_ms[0], 3.0);
  EXPECT_GE(t.samples_ms[0], t.call_ms[0]);
  EXPECT_THROW(Sampler(StopRule::fixed(1), SampleClock::kHostClock).event(0, 0), std::logic_error);
}

}  // namespace
// A gate that fails before timing leaves a case with no samples, which no reader accepts; the
// record keeps the failed gate and drops the case, so it still loads and says what failed.
TEST(FinishRecord, DropsCasesWithoutSamplesAndKeepsTheirGates) {
  RunRecord r = test::make_lesson_record();
  const std::size_t cases = r.cases.size();
  r.cases[0].samples_ms.clear();
  r.cases[0].verified = false;
  r.gates.push_back({r.cases[0].gate + " (before timing)", false, "byte 7 differs"});
  r.cases[0].gate += " (before timing)";
  finish_record(r, SteadyClock::now());
  EXPECT_EQ(r.cases.size(), cases - 1);
  EXPECT_FALSE(r.gates.back().passed);
  const RunRecord back = record_from_json(to_json(r));
  EXPECT_EQ(back.cases.size(), cases - 1);
  EXPECT_FALSE(back.all_gates_passed());
}

}  // namespace pinbench
