#include <gtest/gtest.h>

#include <stdexcept>

#include "framework/estimate.hpp"

namespace pinbench {
namespace {

TEST(Estimate, TenSamplesGiveTheSecondAndNinthOrderStatistics) {
  const Estimate e = median_estimate({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_DOUBLE_EQ(e.mid, 5.5);
  EXPECT_DOUBLE_EQ(e.lo, 2.0);
  EXPECT_DOUBLE_EQ(e.hi, 9.0);
}

TEST(Estimate, FewSamplesGiveTheirWholeRange) {
  const Estimate e = median_estimate({3, 1, 2, 5, 4});
  EXPECT_DOUBLE_EQ(e.lo, 1.0);
  EXPECT_DOUBLE_EQ(e.hi, 5.0);
  const Estimate one = median_estimate({7});
  EXPECT_DOUBLE_EQ(one.lo, 7.0);
  EXPECT_DOUBLE_EQ(one.hi, 7.0);
  EXPECT_THROW(median_estimate({}), std::invalid_argument);
}

TEST(Estimate, TwentySamplesDropFiveFromEachEnd) {
  // P(Binomial(20, 1/2) <= 5) = 0.0207 and P(<= 6) = 0.0577: k = 6.
  std::vector<double> xs;
  for (int i = 1; i <= 20; ++i) xs.push_back(i);
  const Estimate e = median_estimate(xs);
  EXPECT_DOUBLE_EQ(e.lo, 6.0);
  EXPECT_DOUBLE_EQ(e.hi, 15.0);
}

TEST(Estimate, RatioTakesTheFarEnds) {
  const Estimate r = ratio_of({8, 10, 12}, {2, 2.5, 4});
  EXPECT_DOUBLE_EQ(r.lo, 2.0);
  EXPECT_DOUBLE_EQ(r.mid, 4.0);
  EXPECT_DOUBLE_EQ(r.hi, 6.0);
  EXPECT_THROW(ratio_of({1, 1, 1}, {0, 1, 2}), std::invalid_argument);
}

TEST(Estimate, JudgementsAreThreeWay) {
  EXPECT_EQ(judge_at_least({1.4, 1.5, 1.6}, 1.3), Verdict::kHeld);
  EXPECT_EQ(judge_at_least({1.1, 1.2, 1.29}, 1.3), Verdict::kDied);
  EXPECT_EQ(judge_at_least({1.2, 1.35, 1.4}, 1.3), Verdict::kUndecided);
  EXPECT_EQ(judge_below({0.01, 0.02, 0.09}, 0.10), Verdict::kHeld);
  EXPECT_EQ(judge_below({0.10, 0.2, 0.3}, 0.10), Verdict::kDied);
  EXPECT_EQ(judge_below({0.05, 0.1, 0.15}, 0.10), Verdict::kUndecided);
  EXPECT_EQ(judge_within({0.6, 1, 1.4}, 0.5, 2.0), Verdict::kHeld);
  EXPECT_EQ(judge_within({2.1, 3, 4}, 0.5, 2.0), Verdict::kDied);
  EXPECT_EQ(judge_within({0.4, 0.55, 0.7}, 0.5, 2.0), Verdict::kUndecided);
  EXPECT_EQ(describe({1.5, 2, 2.5}), "2.00x (1.50x to 2.50x)");
}

}  // namespace
}  // namespace pinbench
