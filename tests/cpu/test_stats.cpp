#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "framework/stats.hpp"

namespace pinbench {
namespace {

TEST(Stats, MeanAndMedian) {
  EXPECT_DOUBLE_EQ(mean({1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(median({4, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
}

TEST(Stats, Summary) {
  const Summary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(s.rel_spread, 7.0 / 4.5);
}

TEST(Stats, SingleSampleHasNoSpread) {
  const Summary s = summarize({3.0});
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.rel_spread, 0.0);
}

TEST(Stats, EmptyInputIsAnError) {
  EXPECT_THROW(mean({}), std::invalid_argument);
  EXPECT_THROW(median({}), std::invalid_argument);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

// The lesson's 1 MiB pageable case on the H200 (2026-12-01): four fast samples, then six slow.
TEST(Stability, TwoClustersAreBimodal) {
  const StabilityCheck c =
      check_stability({0.090, 0.091, 0.089, 0.090, 0.231, 0.229, 0.233, 0.230, 0.232, 0.228});
  EXPECT_EQ(c.stability, Stability::kBimodal);
  EXPECT_TRUE(c.unstable());
  EXPECT_NE(c.detail.find("4 samples near 0.09 ms and 6 near 0.2305 ms"), std::string::npos)
      << c.detail;
}

TEST(Stability, OneSlowSampleIsNotASecondMode) {
  const StabilityCheck c =
      check_stability({1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.60});
  EXPECT_EQ(c.stability, Stability::kSteady) << c.detail;
}

TEST(Stability, EvenNoiseIsSteady) {
  EXPECT_EQ(check_stability({1.0, 1.05, 0.97, 1.02, 0.99, 1.04, 0.96, 1.01, 1.03, 0.98}).stability,
            Stability::kSteady);
  EXPECT_EQ(check_stability(std::vector<double>(10, 2.0)).stability, Stability::kSteady);
}

TEST(Stability, ASteadyClimbIsDrift) {
  const StabilityCheck c =
      check_stability({1.00, 1.03, 1.06, 1.09, 1.12, 1.15, 1.18, 1.21, 1.24, 1.27});
  EXPECT_EQ(c.stability, Stability::kDrifting);
  EXPECT_NE(c.detail.find("first 5 samples"), std::string::npos) << c.detail;
}

TEST(Stability, FewerThanFiveSamplesCannotBeJudged) {
  EXPECT_EQ(check_stability({1, 5, 1, 5}).stability, Stability::kTooFew);
  EXPECT_FALSE(check_stability({1, 5, 1, 5}).unstable());
  EXPECT_STREQ(to_string(Stability::kTooFew), "too few samples");
}

}  // namespace
}  // namespace pinbench
