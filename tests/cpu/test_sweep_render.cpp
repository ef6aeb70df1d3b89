// The sweep, bandwidthtest and race renderings and row analysis, on the committed H200 records
// and on hand-made edge cases.
#include <gtest/gtest.h>

#include <cstdlib>

#include "experiments/race/analysis.hpp"
#include "experiments/sweep/analysis.hpp"
#include "experiments/sweep/text.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/text.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::race;
using namespace experiments::sweep;
namespace {

std::string run_path(const std::string& name) {
  return std::string(PINBENCH_DATA_DIR) + "/runs/" + name;
}

TEST(SweepRender, PinnedBenchmarkRecord) {
  const RunRecord r = load_record(run_path("sweep-pinned-h200-2026-11-30T162934Z.json"));
  test::expect_matches_golden(render_text(analyse(r)), "sweep-pinned-h200.txt");
}

TEST(SweepRender, BandwidthTestRecord) {
  const RunRecord r = load_record(run_path("bandwidthtest-h200-2026-11-30T162936Z.json"));
  test::expect_matches_golden(render_text(analyse(r)), "bandwidthtest-h200.txt");
}

TEST(SweepRender, RaceRecord) {
  const RunRecord r = load_record(run_path("race-h200-2026-11-30T162937Z.json"));
  test::expect_matches_golden(render_text(analyse(r)), "race-h200.txt");
}

TEST(SweepAnalysis, CommittedFullSweep) {
  const RunRecord r = load_record(run_path("sweep-h200-2026-11-30T162938Z.json"));
  EXPECT_TRUE(r.all_gates_passed());
  const std::vector<RateRow> rows = rate_rows(r, "sweep");
  ASSERT_FALSE(rows.empty());
  // What the H200 said: pinned copies at 256 MiB ran at about the link's practical rate, and
  // page-locked kinds match one another within a few percent.
  double pinned = 0;
  double registered = 0;
  for (const RateRow& row : rows) {
    if (row.direction == "h2d" && row.method == "ce" && row.bytes == 256 * kMiB) {
      if (row.memory == "pinned") pinned = *row.median_gb_per_s;
      if (row.memory == "registered") registered = *row.median_gb_per_s;
    }
    EXPECT_TRUE(row.median_gb_per_s.has_value()) << row.memory << " " << row.direction;
    EXPECT_FALSE(row.stop.empty());
  }
  EXPECT_GT(pinned, 50.0);
  EXPECT_NEAR(registered / pinned, 1.0, 0.03);
  EXPECT_EQ(r.config["skipped"].size(), 2u * 3u * 9u);  // SM on pageable kinds: no HMM here
  EXPECT_EQ(pin_cost_rows(r).size(), 10u);
}

TEST(SweepAnalysis, FailedCaseHasNoRate) {
  RunRecord r = test::make_lesson_record();
  r.experiment = "sweep";
  Case c;
  c.part = "sweep";
  c.direction = "h2d";
  c.memory = "pinned";
  c.method = "ce";
  c.timing = "latch";
  c.bytes = kMiB;
  c.samples_ms = {0.02, 0.021};
  c.verified = false;
  c.stop = StopReason::kGateFailed;
  r.cases = {c};
  const std::vector<RateRow> rows = rate_rows(r, "sweep");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].median_gb_per_s.has_value());
  EXPECT_EQ(rows[0].stop, "gate failed");
  r.gates = {{"sweep/h2d/pinned/ce/1MiB", false, "sample 3: 1 16-byte block differ"}};
  const std::string text = render_text(analyse(r));
  EXPECT_NE(text.find("FAILED: gate sweep/h2d/pinned/ce/1MiB: sample 3"), std::string::npos);
  EXPECT_EQ(text.find("Passed ("), std::string::npos);
}

TEST(SweepAnalysis, RaceCountsSumOverTrials) {
  RunRecord r = test::make_lesson_record();
  Case c;
  c.part = "race";
  c.memory = "pinned";
  c.bytes = 64;
  c.call_ms = {0.01, 0.03, 0.02};
  c.extra = {{"trials", nlohmann::json::array({{{"old_words", 6}, {"new_words", 2}},
                                               {{"old_words", 8}, {"new_words", 0}}})}};
  r.cases = {c};
  const std::vector<RaceRow> rows = race_rows(r);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].old_words, 14u);
  EXPECT_EQ(rows[0].new_words, 2u);
  EXPECT_EQ(rows[0].trials, 2);
  EXPECT_DOUBLE_EQ(rows[0].new_fraction, 2.0 / 16.0);
  EXPECT_DOUBLE_EQ(rows[0].call_ms, 0.02);
}

}  // namespace
}  // namespace pinbench
