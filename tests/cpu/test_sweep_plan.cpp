#include <gtest/gtest.h>

#include <cmath>

#include "experiments/sweep/plan.hpp"
#include "framework/errors.hpp"
#include "framework/numa.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::sweep;
namespace {

TEST(SweepPlan, KindsHaveOneNameEach) {
  for (MemoryKind k : all_memory_kinds()) EXPECT_EQ(parse_memory_kind(to_string(k)), k);
  EXPECT_EQ(all_memory_kinds().size(), 7u);
  EXPECT_STREQ(to_string(MemoryKind::kWriteCombined), "write-combined");
  EXPECT_TRUE(is_page_locked(MemoryKind::kRegistered));
  EXPECT_FALSE(is_page_locked(MemoryKind::kManaged));
  EXPECT_FALSE(is_page_locked(MemoryKind::kPageableThp));
  try {
    parse_memory_kind("pinnned");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown host-memory kind 'pinnned'"), std::string::npos);
  }
}

TEST(SweepPlan, Lists) {
  EXPECT_EQ(parse_memory_kinds("pinned, pageable,pinned"),
            (std::vector<MemoryKind>{MemoryKind::kPinned, MemoryKind::kPageable}));
  EXPECT_EQ(parse_directions("bidir,h2d"),
            (std::vector<Direction>{Direction::kBidir, Direction::kH2D}));
  EXPECT_EQ(parse_copy_methods("sm"), (std::vector<CopyMethod>{CopyMethod::kSmKernel}));
  EXPECT_THROW(parse_directions("up"), InputError);
  EXPECT_THROW(parse_directions(""), InputError);
  EXPECT_THROW(parse_copy_methods("dma"), InputError);
  EXPECT_THROW(parse_memory_kinds("pinned,,mapped"), InputError);
}

TEST(SweepPlan, GeometricAndArithmeticRanges) {
  EXPECT_EQ(parse_sizes("4KiB:64KiB:x2"),
            (std::vector<std::uint64_t>{4 * kKiB, 8 * kKiB, 16 * kKiB, 32 * kKiB, 64 * kKiB}));
  EXPECT_EQ(parse_sizes("4KiB:1GiB:x2").size(), 19u);
  EXPECT_EQ(parse_sizes("4KiB:1GiB:x2").back(), kGiB);
  EXPECT_EQ(parse_sizes("1MiB:3MiB:+1MiB"), (std::vector<std::uint64_t>{kMiB, 2 * kMiB, 3 * kMiB}));
  EXPECT_EQ(parse_sizes("1MiB:10MiB:x4"),
            (std::vector<std::uint64_t>{kMiB, 4 * kMiB}));  // END need not be on a step
  EXPECT_EQ(parse_sizes("64MiB:64MiB:x2"), (std::vector<std::uint64_t>{64 * kMiB}));
  EXPECT_EQ(parse_sizes("1MiB,4MiB"), (std::vector<std::uint64_t>{kMiB, 4 * kMiB}));
}

TEST(SweepPlan, BadRangesSayWhatIsWrong) {
  auto message = [](const char* text) {
    try {
      parse_sizes(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message("1GiB:4KiB:x2"), "size range '1GiB:4KiB:x2' is inverted: 4 KiB is below 1 GiB");
  EXPECT_NE(message("4KiB:1GiB:x1").find("factor of at least 2"), std::string::npos);
  EXPECT_NE(message("4KiB:1GiB:x").find("factor of at least 2"), std::string::npos);
  EXPECT_NE(message("4KiB:1GiB:x2.5").find("factor of at least 2"), std::string::npos);
  EXPECT_NE(message("4KiB:1GiB").find("START:END:xFACTOR"), std::string::npos);
  EXPECT_NE(message("4KiB:1GiB:2").find("needs a step"), std::string::npos);
  EXPECT_NE(message("4KiB:1GiB:+0").find("is zero"), std::string::npos);
  EXPECT_NE(message("1B:1GiB:+1B").find("more than 4096"), std::string::npos);
  EXPECT_NE(message(":1GiB:x2").find("empty"), std::string::npos);
  EXPECT_NE(message("0:1GiB:x2").find("zero"), std::string::npos);
  EXPECT_NE(message("4KiB:1GiB:x2:x3").find("START:END"), std::string::npos);
}

TEST(StopRule, StopsOnSpreadOnlyAfterTheMinimum) {
  StopRule rule;
  rule.min_samples = 5;
  rule.max_spread = 0.01;
  rule.time_cap_ms = 1000;
  rule.max_samples = 100;
  EXPECT_EQ(should_stop(rule, {1, 1, 1, 1}, 0), StopReason::kContinue);
  EXPECT_EQ(should_stop(rule, {1, 1, 1, 1, 1}, 0), StopReason::kSpread);
  EXPECT_EQ(should_stop(rule, {1, 1.1, 0.9, 1, 1}, 0), StopReason::kContinue);
  EXPECT_EQ(should_stop(rule, {1, 1.1, 0.9, 1, 1}, 1000), StopReason::kTimeCap);
  EXPECT_EQ(should_stop(rule, std::vector<double>(100, 2.0), 0), StopReason::kSampleCap);
}

TEST(StopRule, TheTimeCapNeedsTwoSamples) {
  StopRule rule;
  rule.min_samples = 10;
  EXPECT_EQ(should_stop(rule, {5.0}, 1e9), StopReason::kContinue);
  EXPECT_EQ(should_stop(rule, {5.0, 6.0}, 1e9), StopReason::kTimeCap);
  EXPECT_DOUBLE_EQ(relative_spread({2, 4, 4, 4, 5, 5, 7, 9}), std::sqrt(32.0 / 7.0) / 5.0);
  EXPECT_DOUBLE_EQ(relative_spread({3}), 0.0);
  EXPECT_STREQ(to_string(StopReason::kTimeCap), "time cap");
}

TEST(SweepConfig, ValidationAndNormalisation) {
  SweepConfig c = SweepConfig::defaults();
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(c.sizes.front(), 4 * kKiB);
  EXPECT_EQ(c.sizes.back(), 256 * kMiB);
  c.sizes = {4 * kMiB, kMiB, 4 * kMiB};
  c.normalize();
  EXPECT_EQ(c.sizes, (std::vector<std::uint64_t>{kMiB, 4 * kMiB}));
  c.stop.max_spread = 0;
  EXPECT_THROW(c.validate(), InputError);
  c = SweepConfig::defaults();
  c.stop.min_samples = 1;
  EXPECT_THROW(c.validate(), InputError);
  c = SweepConfig::defaults();
  c.stop.max_samples = 3;
  EXPECT_THROW(c.validate(), InputError);
  c = SweepConfig::defaults();
  c.kinds.clear();
  EXPECT_THROW(c.validate(), InputError);
  EXPECT_EQ(to_json(SweepConfig::defaults())["kinds"].size(), 7u);
}

TEST(Numa, CpuLists) {
  EXPECT_EQ(parse_cpulist("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpulist("5"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpulist("").empty());
  EXPECT_THROW(parse_cpulist("3-1"), InputError);
  EXPECT_THROW(parse_cpulist("a-b"), InputError);
  EXPECT_THROW(parse_cpulist("1-2x"), InputError);
  EXPECT_TRUE(node_cpus(-1).empty());
  EXPECT_TRUE(node_cpus(0, "/nonexistent").empty());
}

TEST(Numa, PageNodeOfTouchedMemoryIsANodeOrUnknown) {
  std::vector<char> v(1 << 20, 1);
  const int node = page_node(v.data());
  EXPECT_GE(node, -1);
}

}  // namespace
}  // namespace pinbench

namespace pinbench {
namespace {

TEST(SweepFit, RefusesWhatCannotFit) {
  SweepConfig c = SweepConfig::defaults();
  c.sizes = {kGiB};
  c.kinds = {MemoryKind::kPinned};
  EXPECT_EQ(sweep_fit_problem(c, 100 * kGiB, 128 * kGiB, 100 * kGiB), "");
  EXPECT_NE(sweep_fit_problem(c, kGiB, 128 * kGiB, 100 * kGiB).find("needs 2 GiB of device memory"),
            std::string::npos);
  // Managed buffers count against the device too, and are never asked for past free memory.
  c.kinds = {MemoryKind::kManaged};
  EXPECT_NE(sweep_fit_problem(c, 3 * kGiB, 128 * kGiB, 100 * kGiB).find("managed"),
            std::string::npos);
  // Pinning more than half of the host needs --force.
  c.kinds = {MemoryKind::kPinned};
  c.sizes = {40 * kGiB};
  const std::string why = sweep_fit_problem(c, 200 * kGiB, 128 * kGiB, 120 * kGiB);
  EXPECT_NE(why.find("would pin 80 GiB of this host's 128 GiB"), std::string::npos) << why;
  EXPECT_NE(why.find("--force"), std::string::npos);
  c.force = true;
  EXPECT_NE(sweep_fit_problem(c, 200 * kGiB, 128 * kGiB, 120 * kGiB).find("available"),
            std::string::npos);
  c.sizes = {30 * kGiB};
  EXPECT_EQ(sweep_fit_problem(c, 200 * kGiB, 128 * kGiB, 120 * kGiB), "");
  // Unknown host figures are not checked.
  c.force = false;
  EXPECT_EQ(sweep_fit_problem(c, 200 * kGiB, 0, 0), "");
}

}  // namespace
}  // namespace pinbench

namespace pinbench {
namespace {

TEST(StopRule, AFixedCountStopsAtExactlyThatCountWhateverTheSpread) {
  const StopRule rule = StopRule::fixed(10);
  EXPECT_TRUE(rule.is_fixed());
  EXPECT_EQ(should_stop(rule, std::vector<double>(9, 1.0), 1e9), StopReason::kContinue);
  EXPECT_EQ(should_stop(rule, {1, 9, 1, 9, 1, 9, 1, 9, 1, 9}, 0), StopReason::kCount);
  EXPECT_FALSE(StopRule{}.is_fixed());
}

TEST(StopRule, ReasonsRoundTripThroughTheirNames) {
  for (StopReason r : {StopReason::kCount, StopReason::kSpread, StopReason::kTimeCap,
                       StopReason::kSampleCap, StopReason::kGateFailed}) {
    EXPECT_EQ(parse_stop_reason(to_string(r)), r);
  }
  EXPECT_EQ(parse_stop_reason("whatever"), StopReason::kContinue);
}

}  // namespace
}  // namespace pinbench
