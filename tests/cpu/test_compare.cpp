// The run comparison: case matching, ratios, the threshold, machine differences, and its text,
// against a whole expected file built from the two committed H200 runs. Regenerate it after an
// intended change with PINBENCH_UPDATE_GOLDEN=1 and read the diff before committing it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "compare/compare.hpp"
#include "compare/text.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace compare;
namespace {

using test::expect_matches_golden;

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

TEST(Compare, TheTwoCommittedH200Runs) {
  const RunRecord a = load_record(test::h200_earlier_lesson_path());
  const RunRecord b = load_record(test::h200_lesson_path());
  const Comparison c = compare_records(a, b, 0.20);
  EXPECT_TRUE(c.machine_differences.empty());
  EXPECT_EQ(c.common.size(), 27u);
  EXPECT_TRUE(c.only_a.empty() && c.only_b.empty());
  ASSERT_EQ(c.differing(), 1);
  const auto flagged = std::find_if(c.common.begin(), c.common.end(),
                                    [](const ComparedCase& k) { return k.differs; });
  EXPECT_EQ(describe(flagged->key), "copy cudaMemcpy h2d pageable 64 MiB");
  EXPECT_NEAR(*flagged->ratio, 1.294, 0.001);
  expect_matches_golden(render_comparison(c, a, file_name(test::h200_earlier_lesson_path()), b,
                                          file_name(test::h200_lesson_path())),
                        "compare-h200.txt");
  EXPECT_EQ(compare_records(a, b, 0.30).differing(), 0);
  EXPECT_EQ(compare_records(b, b, 0.0).differing(), 0);
}

TEST(Compare, DifferentMachinesAreSaidAndCasesOnlyInOneAreListed) {
  const RunRecord h200 = load_record(test::h200_lesson_path());
  const RunRecord t4 = load_record(test::t4_reference_path());
  const Comparison c = compare_records(t4, h200, 0.20);
  ASSERT_EQ(c.machine_differences.size(), 3u);
  EXPECT_EQ(c.machine_differences[0], "device Tesla T4 vs NVIDIA H200");
  EXPECT_EQ(c.machine_differences[1], "driver 580.173.02 (CUDA 13.0) vs 580.159.04 (CUDA 13.0)");
  EXPECT_EQ(c.machine_differences[2], "host CPU unknown vs Intel(R) Xeon(R) Processor");
  EXPECT_EQ(c.common.size(), 14u);
  EXPECT_TRUE(c.only_a.empty());
  EXPECT_EQ(c.only_b.size(), 13u);  // the device-to-host sweep and probes, the device copy
  const std::string text = render_comparison(c, t4, "t4.json", h200, "h200.json");
  EXPECT_EQ(text.rfind("Different machines (device Tesla T4 vs NVIDIA H200; ", 0), 0u) << text;
  EXPECT_NE(text.find("\nOnly in B (13):\n  copy cudaMemcpy d2h pageable 1 MiB\n"),
            std::string::npos);
}

TEST(Compare, ACaseWithoutAVerifiedFigureIsNotCompared) {
  RunRecord a = test::make_lesson_record();
  RunRecord b = test::make_lesson_record();
  b.find("copy", "h2d", "pinned", 64 * kMiB)->verified = false;
  b.find("copy", "h2d", "pageable", 64 * kMiB)->samples_ms = {14.69 * 2};
  const Comparison c = compare_records(a, b, 0.20);
  EXPECT_EQ(c.differing(), 1);
  EXPECT_EQ(c.not_compared(), 1);
  const std::string text = render_comparison(c, a, "a", b, "b");
  // The flag may wrap within its column ([ \n]+): the table keeps within a terminal's width.
  EXPECT_TRUE(std::regex_search(
      text, std::regex("copy cudaMemcpy h2d pinned +64 MiB +12\\.29 +— +— +— +not[ \n]+compared:"
                       "[ \n]+no[ \n]+verified[ \n]+figure[ \n]+in[ \n]+B\n")))
      << text;
  EXPECT_TRUE(std::regex_search(
      text, std::regex("copy cudaMemcpy h2d pageable +64 MiB +4\\.57 +2\\.28 +0\\.500 +-50\\.0% "
                       "+differs[ \n]+by[ \n]+more[ \n]+than[ \n]+20%\n")))
      << text;
  EXPECT_NE(text.find("1 differs by more than 20%; 1 not compared."), std::string::npos);
}

TEST(Compare, NothingInCommonOrABadThresholdIsAnInputError) {
  EXPECT_THROW(compare_records(test::make_lesson_record(), test::make_sweep_record(), 0.2),
               InputError);
  EXPECT_THROW(compare_records(test::make_lesson_record(), test::make_lesson_record(), -0.1),
               InputError);
}

}  // namespace
}  // namespace pinbench
