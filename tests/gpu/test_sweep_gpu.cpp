// The sweep, the bandwidthtest and the race on a real GPU: every kind is what it claims, every
// sample is checked, a planted corruption is caught, and the race shows old and new bytes.
#include <algorithm>
#include <cstdint>

#include "cuda/buffers.hpp"
#include "experiments/bandwidthtest/measure.hpp"
#include "experiments/race/analysis.hpp"
#include "experiments/race/measure.hpp"
#include "experiments/sweep/analysis.hpp"
#include "experiments/sweep/measure.hpp"
#include "experiments/sweep/plan.hpp"
#include "framework/errors.hpp"
#include "framework/units.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::bandwidthtest;
using namespace experiments::race;
using namespace experiments::sweep;
namespace {

const ProgressFn kQuiet = [](const std::string&) {};

SweepConfig small_sweep() {
  SweepConfig c = SweepConfig::defaults();
  c.sizes = {64 * kKiB, kMiB + 48};  // the second is not a multiple of 16 or of a page
  c.stop.min_samples = 3;
  c.stop.max_samples = 6;
  c.stop.time_cap_ms = 50;
  c.warmups = 1;
  c.pin_cost_bytes = 0;
  return c;
}

TEST(GpuSweep, EveryKindIsWhatItClaims) {
  PINBENCH_REQUIRE_GPU();
  for (MemoryKind k : all_memory_kinds()) {
    const cuda::HostBuffer b(kMiB, k);
    EXPECT_EQ(cuda::observed_memory_kind(b.data()), cuda::expected_observed_kind(k))
        << to_string(k);
    if (is_page_locked(k) || k == MemoryKind::kManaged) {
      EXPECT_NE(b.device_pointer(), nullptr) << to_string(k);
    } else {
      EXPECT_THROW(b.device_pointer(), std::logic_error) << to_string(k);
    }
  }
}

TEST(GpuSweep, SmallSweepPassesEveryGate) {
  PINBENCH_REQUIRE_GPU();
  const SweepConfig c = small_sweep();
  const RunRecord r = run_sweep(c, kQuiet);
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  std::size_t measured = 0;
  for (const Case& k : r.cases) {
    EXPECT_TRUE(k.verified) << k.gate;
    EXPECT_GE(k.samples_ms.size(), 3u) << k.gate;
    EXPECT_LE(k.samples_ms.size(), 6u) << k.gate;
    EXPECT_EQ(k.timing, is_page_locked(parse_memory_kind(k.memory)) ? "latch" : "blocking")
        << k.gate;
    ++measured;
  }
  // Every kind x direction x method x size either ran (bidir: three cases) or was skipped.
  const std::size_t skipped = r.config["skipped"].size();
  std::size_t expected = 0;
  for (int combo = 0; combo < 7 * 2 * 2; ++combo) expected += 1 + 1 + 3;  // h2d, d2h, bidir
  const std::size_t skipped_cases = skipped / 3 * 5;  // a skipped kind/method/size loses 5
  EXPECT_EQ(skipped % 3, 0u);
  EXPECT_EQ(measured, expected - skipped_cases);
  for (const auto& s : r.config["skipped"]) {
    EXPECT_EQ(s["method"], "sm");
    EXPECT_TRUE(s["memory"] == "pageable" || s["memory"] == "pageable-thp");
  }
  const std::vector<RateRow> rows = rate_rows(r, "sweep");
  for (const RateRow& row : rows) EXPECT_TRUE(row.median_gb_per_s.has_value()) << row.memory;
  // The sweep's rule: spread, time cap or sample cap, never a failed check here, on the case
  // itself (extra no longer carries a copy).
  test::expect_every_case_stopped(r);
  for (const Case& k : r.cases) {
    if (k.part != "sweep") {
      EXPECT_EQ(k.stop, StopReason::kCount) << k.gate;  // pin cost: a fixed count of rounds
      continue;
    }
    EXPECT_TRUE(k.stop == StopReason::kSpread || k.stop == StopReason::kTimeCap ||
                k.stop == StopReason::kSampleCap)
        << k.gate;
    EXPECT_FALSE(k.extra.contains("stop")) << k.gate;
  }
}

TEST(GpuSweep, APlantedCorruptionFailsTheCase) {
  PINBENCH_REQUIRE_GPU();
  SweepConfig c = small_sweep();
  c.kinds = {MemoryKind::kPinned, MemoryKind::kPageable, MemoryKind::kManaged};
  c.methods = {CopyMethod::kCopyEngine};
  c.sizes = {kMiB};
  SweepHooks hooks;
  hooks.corrupt_sample = 1;
  const RunRecord r = run_sweep(c, kQuiet, hooks);
  int failed = 0;
  for (const Gate& g : r.gates) {
    if (g.name.rfind("sweep/", 0) == 0 && g.name.find("bidir-d2h") == std::string::npos) {
      EXPECT_FALSE(g.passed) << g.name;
      EXPECT_NE(g.detail.find("sample 1:"), std::string::npos) << g.detail;
      ++failed;
    }
  }
  EXPECT_EQ(failed, 3 * 3);  // h2d, d2h and bidir's h2d half, for each of three kinds
  for (const Case& k : r.cases) {
    if (k.direction != "bidir-d2h") {
      EXPECT_FALSE(k.verified) << k.gate;
      // Sampling stops with the batch that held the sample whose bytes were wrong.
      EXPECT_EQ(k.stop, StopReason::kGateFailed) << k.gate;
      EXPECT_GE(k.samples_ms.size(), 2u) << k.gate;
    }
  }
}

TEST(GpuSweep, RefusesManagedMemoryPastTheDevice) {
  PINBENCH_REQUIRE_GPU();
  SweepConfig c = small_sweep();
  c.kinds = {MemoryKind::kManaged};
  c.sizes = {std::uint64_t{1} << 46};
  c.force = true;
  EXPECT_THROW(run_sweep(c, kQuiet), InputError);
}

TEST(GpuRace, OverwritingAtOnceDeliversNewBytesAndSynchronisingDoesNot) {
  PINBENCH_REQUIRE_GPU();
  RaceConfig c;
  c.bytes = 64 * kMiB;
  c.trials = 3;
  const RunRecord r = run_race(c, kQuiet);
  const std::vector<RaceRow> rows = race_rows(r);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].memory, "pinned");
  EXPECT_GT(rows[0].new_words, 0u) << "the copy engine should have read some new bytes";
  EXPECT_GT(rows[0].old_words, 0u);
  EXPECT_EQ(rows[1].new_words, 0u) << "synchronised first: only old bytes";
  EXPECT_EQ(rows[2].memory, "pageable");
  EXPECT_EQ(rows[2].new_words, 0u) << "a pageable source is staged before the call returns";
  for (const RaceRow& row : rows) EXPECT_EQ(row.other_words, 0u);
  test::expect_every_case_stopped(r, 3);
}

TEST(GpuBandwidthTest, FourCheckedRates) {
  PINBENCH_REQUIRE_GPU();
  BandwidthTestConfig c;
  c.bytes = 4 * kMiB;
  c.iterations = 3;
  const RunRecord r = run_bandwidthtest(c);
  EXPECT_TRUE(r.all_gates_passed());
  const std::vector<RateRow> rows = rate_rows(r, "bandwidthtest");
  ASSERT_EQ(rows.size(), 4u);
  for (const RateRow& row : rows) EXPECT_GT(*row.median_gb_per_s, 0.1);
  test::expect_every_case_stopped(r, 3);
}

}  // namespace
}  // namespace pinbench

namespace pinbench {
namespace {

TEST(GpuSweep, AFailedPinnedAllocationIsAClearErrorAndLeavesNothingBehind) {
  PINBENCH_REQUIRE_GPU();
  for (MemoryKind k : {MemoryKind::kPinned, MemoryKind::kWriteCombined, MemoryKind::kMapped}) {
    try {
      const cuda::HostBuffer huge(std::size_t{1} << 50, k);  // a petabyte
      FAIL() << to_string(k) << ": the allocation should fail";
    } catch (const CudaError& e) {
      EXPECT_NE(std::string(e.what()).find("cudaErrorMemoryAllocation"), std::string::npos)
          << e.what();
    }
  }
  // The failure is not sticky: the next allocation of each kind works.
  for (MemoryKind k : all_memory_kinds()) {
    const cuda::HostBuffer fine(kMiB, k);
    EXPECT_NE(fine.data(), nullptr) << to_string(k);
  }
}

}  // namespace
}  // namespace pinbench
