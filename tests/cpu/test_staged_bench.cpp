// `pinbench staged`, `staged --tune` and `pinbench pipeline` without a GPU: their plans and
// checks, the analysis and the goals' verdicts on hand-made records, and the renderings, text
// against golden files and the generic reports on the same records.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <stdexcept>
#include <string>

#include "experiments/pipeline/analysis.hpp"
#include "experiments/pipeline/plan.hpp"
#include "experiments/pipeline/text.hpp"
#include "experiments/staged/analysis.hpp"
#include "experiments/staged/plan.hpp"
#include "experiments/staged/text.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::pipeline;
using namespace experiments::staged;
namespace {

// What each experiment's printer makes of a record, from the record's model as every caller
// builds it.
std::string printed_staged_text(const RunRecord& r) {
  const ReportModel m = analyse(r);
  return render_staged_text(r, section<StagedAnalysis>(m));
}
std::string printed_staged_tune_text(const RunRecord& r) {
  const ReportModel m = analyse(r);
  return render_staged_tune_text(r, section<TuneAnalysis>(m));
}
std::string printed_pipeline_text(const RunRecord& r) {
  const ReportModel m = analyse(r);
  return render_pipeline_text(r, section<PipelineAnalysis>(m));
}

template <typename F>
void expect_input_error(F&& f, const std::string& says) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one saying '" << says << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

// --- plans ------------------------------------------------------------------------------------

TEST(StagedPlan, Defaults) {
  StagedBenchConfig c = StagedBenchConfig::defaults();
  c.normalize();
  c.validate();
  EXPECT_EQ(c.sizes.size(), 10u);
  EXPECT_EQ(c.sizes.front(), 4 * kKiB);
  EXPECT_EQ(c.sizes.back(), kGiB);
  EXPECT_EQ(c.odd_sizes,
            (std::vector<std::uint64_t>{4 * kKiB + 3, kMiB + 13, 64 * kMiB + 5, kGiB - 1}));
  EXPECT_EQ(c.largest(), kGiB + 2);  // 1 GiB - 1 at a 3-byte offset
  EXPECT_EQ(c.methods.size(), 11u);
  EXPECT_EQ(to_json(c)["engine"]["staging_bytes"], 80 * kMiB);
}

TEST(StagedPlan, MethodNames) {
  for (StagedMethod m : all_staged_methods()) EXPECT_EQ(parse_staged_method(to_string(m)), m);
  EXPECT_EQ(parse_staged_methods("staged, pinned,staged").size(), 2u);
  expect_input_error(
      [] { parse_staged_methods("staged,teleport"); },
      "unknown method 'teleport' (choose from staged, staged-back-to-back, staged-fresh, pinned");
  expect_input_error([] { parse_staged_methods(""); }, "the method list is empty");
}

TEST(StagedPlan, Checks) {
  const StagedBenchConfig ok = StagedBenchConfig::defaults();
  auto broken = [&](auto change, const std::string& says) {
    StagedBenchConfig c = ok;
    change(c);
    expect_input_error([&] { c.validate(); }, says);
  };
  broken([](StagedBenchConfig& c) { c.methods.clear(); }, "no method to measure");
  broken([](StagedBenchConfig& c) { c.directions = {Direction::kBidir}; }, "not bidir");
  broken([](StagedBenchConfig& c) { c.sizes.clear(), c.odd_sizes.clear(); }, "no size");
  broken([](StagedBenchConfig& c) { c.host_offset = 4096; }, "below 4096 bytes");
  broken([](StagedBenchConfig& c) { c.iterations = 0; }, "at least 1 timed sample");
  broken([](StagedBenchConfig& c) { c.warmups = -1; }, "cannot be negative");
  broken([](StagedBenchConfig& c) { c.driver_threads = 0; }, "--driver-threads must be between");
  broken([](StagedBenchConfig& c) { c.engine.to_host.depth = 1; },
         "staged engine: to_host.depth must be between 2 and 64");
}

TEST(StagedPlan, FitChecks) {
  StagedBenchConfig c = StagedBenchConfig::defaults();
  const std::uint64_t big = 1ull << 40;
  EXPECT_EQ(staged_fit_problem(c, big, big, big), "");
  EXPECT_NE(staged_fit_problem(c, kGiB, big, big).find("needs 2 GiB of device memory"),
            std::string::npos)
      << staged_fit_problem(c, kGiB, big, big);
  // Two page-locked GiB plus 96 MiB of staging is more than half of 4 GiB.
  EXPECT_NE(staged_fit_problem(c, big, 4 * kGiB, big).find("pass --force"), std::string::npos);
  c.force = true;
  EXPECT_EQ(staged_fit_problem(c, big, 4 * kGiB, big), "");
  EXPECT_NE(staged_fit_problem(c, big, big, 2 * kGiB).find("is available"), std::string::npos);
  EXPECT_EQ(staged_fit_problem(c, big, 0, 0), "");  // unknown host figures are not checked
}

TEST(StagedPlan, TuneGrid) {
  StagedTuneConfig t;
  t.validate();
  const std::vector<StagingRing> shapes = t.shapes();
  EXPECT_EQ(shapes.size(), 42u);  // 14 ring shapes within 96 MiB, 3 thread counts each
  for (const StagingRing& r : shapes) {
    EXPECT_LE(r.chunk_bytes * static_cast<std::size_t>(r.depth), 96 * kMiB);
  }
  t.depths = {1, 4};
  expect_input_error([&] { t.validate(); }, "to_device.depth must be between 2 and 64");
  t = {};
  t.ring_limit_bytes = kMiB;
  expect_input_error([&] { t.validate(); }, "no ring shape of the grid fits within 1 MiB");
}

TEST(StagedPlan, Pipeline) {
  PipelineConfig p;
  p.validate();
  EXPECT_EQ(p.chunk_bytes(1), 64 * kMiB);
  EXPECT_EQ(p.chunk_bytes(2), 32 * kMiB);
  EXPECT_EQ(p.chunk_bytes(3), 22368256u);  // 64 MiB / 3, rounded down to 4 KiB
  auto broken = [&](auto change, const std::string& says) {
    PipelineConfig c;
    change(c);
    expect_input_error([&] { c.validate(); }, says);
  };
  broken([](PipelineConfig& c) { c.array_bytes = 6; }, "multiple of 4 bytes");
  broken([](PipelineConfig& c) { c.window_bytes = 2 * kGiB; }, "no larger than the array");
  broken([](PipelineConfig& c) { c.streams = {0}; }, "between 1 and 64, not 0");
  broken([](PipelineConfig& c) { c.window_bytes = 8 * kKiB, c.streams = {4}; },
         "leaves chunks under 4 KiB");
  broken([](PipelineConfig& c) { c.kernel_rounds = -1; }, "--kernel-rounds");
  broken([](PipelineConfig& c) { c.sources.clear(); }, "no source");
  EXPECT_EQ(parse_counts("4,2,2", "stream count"), (std::vector<int>{4, 2}));
  expect_input_error([] { parse_counts("2,x", "stream count"); },
                     "stream count 'x' is not a whole number between 1 and 64");
  EXPECT_EQ(parse_pipeline_sources("staged,pinned").size(), 2u);
  expect_input_error([] { parse_pipeline_sources("mapped"); }, "unknown source 'mapped'");
  const std::uint64_t big = 1ull << 40;
  EXPECT_EQ(pipeline_fit_problem(p, big, big, big), "");
  EXPECT_NE(pipeline_fit_problem(p, 64 * kMiB, big, big).find("device memory"), std::string::npos);
  EXPECT_NE(pipeline_fit_problem(p, big, 4 * kGiB, big).find("pass --force"), std::string::npos);
}

// --- analysis ---------------------------------------------------------------------------------

const StagedGoal& goal(const StagedAnalysis& a, const std::string& direction, const char* text,
                       const std::string& method = "staged") {
  for (const StagedGoal& g : a.goals) {
    if (g.direction == direction && g.method == method && g.text.find(text) != std::string::npos) {
      return g;
    }
  }
  throw std::logic_error("no such goal");
}

TEST(StagedAnalysis, RowsRatiosAndGoals) {
  const StagedAnalysis a = analyse_staged(test::make_staged_record());
  EXPECT_EQ(a.methods,
            (std::vector<std::string>{"staged", "staged-back-to-back", "pinned", "pageable-driver",
                                      "batch-async-stream", "multithread-driver",
                                      "register-copy-unregister"}));
  ASSERT_EQ(a.rows.at("h2d").size(), 5u);
  const StagedRow& r64 = a.rows.at("h2d")[2];
  EXPECT_EQ(r64.bytes, 64 * kMiB);
  EXPECT_NEAR(*r64.staged_over_pinned, 52.9 / 55.0, 1e-9);
  EXPECT_NEAR(*r64.staged_over_driver, 52.9 / 8.2, 1e-9);
  EXPECT_EQ(r64.staged_path, "staged");
  const StagedRow& odd = a.rows.at("h2d")[3];
  EXPECT_EQ(odd.bytes, 64 * kMiB + 5);
  EXPECT_EQ(odd.host_offset, 3u);
  EXPECT_EQ(odd.device_offset, 1u);
  EXPECT_EQ(a.rows.at("h2d")[0].staged_path, "direct");
  // The failed case has no figure.
  EXPECT_FALSE(a.rows.at("d2h")[4].gb_per_s.at("register-copy-unregister").has_value());

  EXPECT_EQ(goal(a, "h2d", "95% of pinned").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "h2d", "6x the driver").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "h2d", "never slower").verdict, Verdict::kHeld);
  const StagedGoal& d2h = goal(a, "d2h", "95% of pinned");
  EXPECT_EQ(d2h.verdict, Verdict::kDied);
  EXPECT_NE(d2h.evidence.find("0.818 (0.817 to 0.819) (fails) at 64 MiB; 0.815 (0.813 to 0.816) "
                              "(fails) at 64 MiB + 5 B at +3/+1"),
            std::string::npos)
      << d2h.evidence;
  EXPECT_EQ(goal(a, "d2h", "6x the driver").verdict, Verdict::kDied);
  EXPECT_EQ(goal(a, "d2h", "never slower").verdict, Verdict::kHeld);

  // Back to back, the share of pinned is judged on the staged-back-to-back figures too; the
  // driver's samples follow a pause, so the multiples of the driver are not.
  EXPECT_NEAR(*r64.back_to_back_over_pinned, 53.6 / 55.0, 1e-9);
  const StagedGoal& b2b = goal(a, "d2h", "95% of pinned", "staged-back-to-back");
  EXPECT_EQ(b2b.verdict, Verdict::kHeld);
  EXPECT_EQ(b2b.text, "staged back to back at 95% of pinned or better from 64 MiB up");
  EXPECT_NE(b2b.evidence.find("staged-back-to-back/pinned: 0.964 (0.962 to 0.965) at 64 MiB"),
            std::string::npos)
      << b2b.evidence;
  EXPECT_EQ(goal(a, "h2d", "95% of pinned", "staged-back-to-back").verdict, Verdict::kHeld);
  EXPECT_THROW(goal(a, "d2h", "6x the driver", "staged-back-to-back"), std::logic_error);
  EXPECT_EQ(a.goals.size(), 10u);  // five goals, two directions
}

// The samples' noise decides as well as the figures: with 3% between the fastest and slowest
// sample, a share of pinned that clears 95% by about 1% cannot be called either way.
TEST(StagedAnalysis, AGoalInsideTheSamplesNoiseIsUndecided) {
  RunRecord r = test::make_staged_record();
  for (Case& c : r.cases) {
    if (c.direction != "d2h" || c.method != "staged-back-to-back") continue;
    const double ms = median(c.samples_ms);
    c.samples_ms = {ms * 1.015, ms, ms * 0.985};
  }
  const StagedAnalysis a = analyse_staged(r);
  const StagedGoal& b2b = goal(a, "d2h", "95% of pinned", "staged-back-to-back");
  EXPECT_EQ(b2b.verdict, Verdict::kUndecided);
  EXPECT_NE(b2b.evidence.find("(within noise) at 64 MiB"), std::string::npos) << b2b.evidence;
  // A goal that fails outright still fails, whatever else is undecided.
  EXPECT_EQ(goal(a, "d2h", "95% of pinned").verdict, Verdict::kDied);
}

TEST(StagedAnalysis, ARecordWithoutBackToBackFiguresJudgesOnlyTheOthers) {
  RunRecord r = test::make_staged_record();
  r.cases.erase(std::remove_if(r.cases.begin(), r.cases.end(),
                               [](const Case& c) { return c.method == "staged-back-to-back"; }),
                r.cases.end());
  const StagedAnalysis a = analyse_staged(r);
  EXPECT_EQ(a.goals.size(), 8u);  // four goals, two directions
  for (const StagedGoal& g : a.goals) EXPECT_EQ(g.method, "staged");
  EXPECT_FALSE(a.rows.at("h2d")[2].back_to_back_over_pinned.has_value());
}

TEST(StagedAnalysis, AMissingFigureLeavesAGoalUnjudgedUnlessAnotherFails) {
  RunRecord r = test::make_staged_record();
  for (Case& c : r.cases) {
    if (c.direction == "h2d" && c.method == "pinned" && c.bytes == kGiB) c.verified = false;
  }
  const StagedAnalysis a = analyse_staged(r);
  EXPECT_EQ(goal(a, "h2d", "95% of pinned").verdict, Verdict::kNotEvaluated);
  EXPECT_EQ(goal(a, "h2d", "6x the driver").verdict, Verdict::kHeld);

  // With no size from 64 MiB up there is nothing to judge.
  StagedGoals g;
  g.from_bytes = 2 * kGiB;
  const StagedAnalysis none = analyse_staged(test::make_staged_record(), g);
  EXPECT_EQ(goal(none, "h2d", "95% of pinned").verdict, Verdict::kNotEvaluated);
  EXPECT_EQ(goal(none, "h2d", "95% of pinned").evidence, "no size in range was measured");
}

TEST(StagedAnalysis, SlowerThanTheDriverBeyondTheNoiseFails) {
  RunRecord r = test::make_staged_record();
  for (Case& c : r.cases) {
    if (c.direction == "h2d" && c.method == "staged" && c.bytes == kMiB) {
      for (double& ms : c.samples_ms) ms *= 1.10;  // 9% slower than the driver's 11.6 GB/s
    }
  }
  EXPECT_EQ(goal(analyse_staged(r), "h2d", "never slower").verdict, Verdict::kDied);
}

TEST(StagedAnalysis, TuneChoosesTheShapeThatIsNeverFarOff) {
  const std::vector<TuneRow> rows = tune_rows(test::make_staged_tune_record());
  EXPECT_EQ(rows.size(), 12u);
  const std::vector<TuneChoice> choices = tune_choices(rows);
  ASSERT_EQ(choices.size(), 2u);
  for (const TuneChoice& c : choices) {
    EXPECT_EQ(c.chunk_bytes, 16 * kMiB) << c.direction;
    EXPECT_EQ(c.depth, 4);
    EXPECT_EQ(c.threads, 8);
  }
  EXPECT_NEAR(choices[0].worst_share, 53.0 / 53.5, 1e-9);
}

TEST(StagedAnalysis, PipelineEfficiencyAndGoals) {
  const PipelineAnalysis a = analyse_pipeline(test::make_pipeline_record());
  ASSERT_EQ(a.rows.size(), 4u);
  const PipelineRow& two = a.rows[2];
  EXPECT_EQ(two.source, "pinned");
  EXPECT_EQ(two.streams, 2);
  EXPECT_EQ(two.chunk_bytes, 32 * kMiB);
  EXPECT_DOUBLE_EQ(*two.bound_ms, 21.5);
  EXPECT_NEAR(*two.efficiency, 21.5 / 22.4, 1e-12);
  EXPECT_NEAR(*two.gb_per_s_each_way, static_cast<double>(kGiB) / 22.4e6, 1e-9);
  ASSERT_EQ(a.goals.size(), 2u);
  EXPECT_EQ(a.goals[0].source, "pinned");
  EXPECT_EQ(a.goals[0].verdict, Verdict::kHeld);
  EXPECT_EQ(a.goals[1].source, "staged");
  EXPECT_EQ(a.goals[1].verdict, Verdict::kDied);
  EXPECT_NE(a.goals[1].evidence.find("80.0% of the bound"), std::string::npos)
      << a.goals[1].evidence;
}

TEST(StagedAnalysis, PipelineWithoutABoundIsNotJudged) {
  RunRecord r = test::make_pipeline_record();
  for (Case& c : r.cases) {
    if (c.part == "bound-copy") c.verified = false;
  }
  const PipelineAnalysis a = analyse_pipeline(r);
  EXPECT_FALSE(a.rows[2].efficiency.has_value());
  EXPECT_EQ(a.goals[0].verdict, Verdict::kNotEvaluated);
}

// The hand-made record with the bound cases a run now makes: at `bytes`, the host side alone and
// under DMA at these rates, in samples 0.1% apart like the rest of it.
void add_bound(RunRecord& r, const char* direction, std::uint64_t bytes, double host,
               double under_dma) {
  for (const auto& [method, rate] : {std::pair<const char*, double>{"host", host},
                                     std::pair<const char*, double>{"host-under-dma", under_dma}}) {
    Case c;
    c.part = "bound";
    c.direction = direction;
    c.memory = "pageable";
    c.method = method;
    c.timing = "host_clock";
    c.bytes = bytes;
    const double ms = static_cast<double>(bytes) / (rate * 1e6);
    c.samples_ms = {ms * 1.001, ms, ms * 0.9995};
    c.gate = std::string("bound/") + direction + "/" + method + "/" + std::to_string(bytes);
    c.verified = true;
    r.cases.push_back(c);
  }
}

TEST(StagedBound, TheBoundIsTheLesserOfTheHostUnderDmaAndPinned) {
  RunRecord r = test::make_staged_record();
  // To the device at 64 MiB the host side under DMA (50 GB/s) is below pinned (55.0): the bound
  // is the host's. Back to the host staged at 45.0 misses 95% of pinned (0.818) but not 95% of a
  // 46 GB/s bound (0.978).
  add_bound(r, "h2d", 64 * kMiB, 90.0, 50.0);
  add_bound(r, "h2d", kGiB, 70.0, 60.0);  // above pinned: the bound is pinned's 55.1
  add_bound(r, "d2h", 64 * kMiB, 100.0, 46.0);
  add_bound(r, "d2h", kGiB, 100.0, 50.0);
  const StagedAnalysis a = analyse_staged(r);
  const StagedRow& h64 = a.rows.at("h2d")[2];
  EXPECT_NEAR(*h64.host_gb_per_s, 90.0, 0.1);
  EXPECT_NEAR(*h64.host_under_dma_gb_per_s, 50.0, 0.01);
  EXPECT_NEAR(*h64.bound_gb_per_s, 50.0, 0.01);
  EXPECT_NEAR(*h64.bound_over_pinned, 50.0 / 55.0, 1e-3);  // as rates
  EXPECT_NEAR(*h64.staged_over_bound, 52.9 / 50.0, 1e-3);
  const StagedRow& h1g = a.rows.at("h2d")[4];
  EXPECT_NEAR(*h1g.bound_gb_per_s, 55.1, 0.01);  // pinned: the host is faster
  EXPECT_NEAR(*h1g.bound_over_pinned, 1.0, 1e-12);
  // The odd size takes the bound measured at 64 MiB, as a rate.
  const StagedRow& odd = a.rows.at("h2d")[3];
  EXPECT_NEAR(*odd.host_under_dma_gb_per_s, 50.0, 0.01);
  // 4 KiB and 1 MiB are more than a factor of two from any bound size: no bound.
  EXPECT_FALSE(a.rows.at("h2d")[0].bound_gb_per_s.has_value());
  EXPECT_FALSE(a.rows.at("h2d")[1].host_gb_per_s.has_value());

  const StagedGoal& d2h = goal(a, "d2h", "95% of its bound");
  EXPECT_EQ(d2h.verdict, Verdict::kHeld) << d2h.evidence;
  EXPECT_NE(d2h.evidence.find("staged/bound: 0.978"), std::string::npos) << d2h.evidence;
  // To the device at 1 GiB the bound is pinned itself (above 95% of it): the goal asks for 95%
  // of pinned there, which staged at 53.9 (0.978) meets.
  EXPECT_NEAR(a.rows.at("h2d")[4].staged_goal_estimate->mid, 53.9 / 55.1, 1e-3);
  EXPECT_EQ(goal(a, "h2d", "95% of its bound").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "d2h", "95% of its bound", "staged-back-to-back").verdict, Verdict::kHeld);
}

TEST(StagedBound, AFailedOrMissingBoundCaseLeavesThePinnedGoal) {
  RunRecord r = test::make_staged_record();
  add_bound(r, "h2d", 64 * kMiB, 90.0, 50.0);
  for (Case& c : r.cases) {
    if (c.part == "bound" && c.method == "host-under-dma") c.verified = false;
  }
  const StagedAnalysis a = analyse_staged(r);
  const StagedRow& h64 = a.rows.at("h2d")[2];
  EXPECT_TRUE(h64.host_gb_per_s.has_value());  // the host alone was measured
  EXPECT_FALSE(h64.bound_gb_per_s.has_value());
  EXPECT_FALSE(h64.staged_over_bound.has_value());
  // No row has a bound, so the goal is the old one, judged on pinned.
  EXPECT_EQ(goal(a, "h2d", "95% of pinned").verdict, Verdict::kHeld);
  // A row whose pinned case failed has the host's figures but no bound.
  RunRecord p = test::make_staged_record();
  add_bound(p, "h2d", 64 * kMiB, 90.0, 50.0);
  for (Case& c : p.cases) {
    if (c.part == "staged" && c.method == "pinned" && c.bytes == 64 * kMiB) c.verified = false;
  }
  const StagedAnalysis pa = analyse_staged(p);  // kept: the row below lives in it
  const StagedRow& no_pinned = pa.rows.at("h2d")[2];
  EXPECT_TRUE(no_pinned.host_under_dma_gb_per_s.has_value());
  EXPECT_FALSE(no_pinned.bound_gb_per_s.has_value());
}

TEST(StagedBound, MethodsFromElsewhereGetAColumnAndTheirTimes) {
  // A method pinbench does not know (PyTorch's paths, recorded as `torch-*`) is listed after
  // pinbench's own, with its rate and its time's interval, ready for a ratio.
  RunRecord r = test::make_staged_record();
  Case c = r.cases.front();  // h2d 4 KiB staged
  for (const Case& k : r.cases) {
    if (k.direction == "h2d" && k.method == "pinned" && k.bytes == 64 * kMiB) c = k;
  }
  c.method = "torch-pageable-to";
  c.memory = "pageable";
  c.samples_ms = {10.0, 10.1, 9.9};
  r.cases.push_back(c);
  const StagedAnalysis a = analyse_staged(r);
  EXPECT_EQ(a.methods.back(), "torch-pageable-to");
  const StagedRow& row = a.rows.at("h2d")[2];
  ASSERT_TRUE(row.gb_per_s.at("torch-pageable-to").has_value());
  const Estimate& torch = row.ms_estimate.at("torch-pageable-to");
  EXPECT_DOUBLE_EQ(torch.mid, 10.0);
  EXPECT_NEAR(ratio_of(torch, row.ms_estimate.at("staged")).mid,
              52.9 / (static_cast<double>(64 * kMiB) / 10.0e6), 1e-9);
  EXPECT_FALSE(a.rows.at("h2d")[0].ms_estimate.count("torch-pageable-to"));
}

TEST(StagedBound, ASmallCopyGoalAgainstTheDriver) {
  const StagedAnalysis a = analyse_staged(test::make_staged_record());
  // 1 MiB goes to the driver in this record (direct below 2 MiB): 1.01x, no 1.5x.
  const StagedGoal& g = goal(a, "h2d", "1.5x the driver");
  EXPECT_EQ(g.verdict, Verdict::kDied);
  EXPECT_NE(g.evidence.find("1.01x (1.01x to 1.01x) (fails) at 1 MiB"), std::string::npos)
      << g.evidence;
}

TEST(StagedBound, ThePipelineThroughTheEngineCountsItsHostSide) {
  RunRecord r = test::make_pipeline_record();
  Case host;
  for (const Case& c : r.cases) {
    if (c.part == "bound-copy" && c.method == "streams=2") host = c;
  }
  host.part = "bound-host";
  host.memory = "pageable";
  host.samples_ms = {25.25, 25.0, 24.75};  // the host side: slower than the copies' 21.5 ms
  r.cases.push_back(host);
  const PipelineAnalysis a = analyse_pipeline(r);
  const PipelineRow& pinned = a.rows[2];
  const PipelineRow& staged = a.rows[3];
  EXPECT_FALSE(pinned.host_bound_ms.has_value());  // not a bound on page-locked memory
  EXPECT_DOUBLE_EQ(*pinned.bound_ms, 21.5);
  EXPECT_DOUBLE_EQ(*staged.host_bound_ms, 25.0);
  EXPECT_DOUBLE_EQ(*staged.bound_ms, 25.0);
  EXPECT_NEAR(*staged.efficiency, 25.0 / 26.875, 1e-12);   // 93.0%: the 90% goal holds
  EXPECT_NEAR(*staged.over_pinned, 22.4 / 26.875, 1e-12);  // engine/pinned, two streams each
  EXPECT_FALSE(pinned.over_pinned.has_value());
  EXPECT_EQ(a.goals[1].text, "staged source, two streams: at 90% of its own bound or better");
  EXPECT_EQ(a.goals[1].verdict, Verdict::kHeld);
  EXPECT_NE(a.goals[1].evidence.find("host side 25.000 ms"), std::string::npos)
      << a.goals[1].evidence;
  // The pinned goal stays at 95%.
  EXPECT_EQ(a.goals[0].text, "pinned source, two streams: at 95% of the bound or better");
}

// --- rendering --------------------------------------------------------------------------------

TEST(StagedRender, ExactSizes) {
  EXPECT_EQ(exact_size(7), "7 B");
  EXPECT_EQ(exact_size(1000), "1000 B");
  EXPECT_EQ(exact_size(4 * kKiB + 3), "4 KiB + 3 B");
  EXPECT_EQ(exact_size(kMiB + 13), "1 MiB + 13 B");
  EXPECT_EQ(exact_size(kGiB - 1), "1 GiB - 1 B");
  EXPECT_EQ(exact_size(96 * kMiB), "96 MiB");
  EXPECT_EQ(exact_size(3 * kMiB / 2), "1536 KiB");
}

TEST(StagedRender, Golden) {
  test::expect_matches_golden(printed_staged_text(test::make_staged_record()),
                              "staged-example.txt");
  test::expect_matches_golden(printed_staged_tune_text(test::make_staged_tune_record()),
                              "staged-tune-example.txt");
  test::expect_matches_golden(printed_pipeline_text(test::make_pipeline_record()),
                              "pipeline-example.txt");
}

// A record with one PyTorch path each way: `.to()` to the device only, `.cpu()` to the host
// only, as `staged --torch` measures them.
RunRecord staged_record_with_torch() {
  RunRecord r = test::make_staged_record();
  std::vector<Case> torch;
  for (const Case& c : r.cases) {
    if (c.part != "staged" || c.method != "pageable-driver") continue;
    Case t = c;
    t.method = c.direction == "h2d" ? "torch-pageable-to" : "torch-cpu";
    torch.push_back(t);
  }
  r.cases.insert(r.cases.end(), torch.begin(), torch.end());
  return r;
}

const ReportTable& table_of(const ReportModel& m, const std::string& id) {
  for (const ReportTable& t : m.tables) {
    if (t.id == id) return t;
  }
  throw std::logic_error("no table " + id);
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Each direction shows the methods measured that way and no other: no column of dashes.
TEST(StagedRender, EachDirectionShowsOnlyItsOwnMethods) {
  const RunRecord r = staged_record_with_torch();
  const ReportModel m = analyse(r);
  const StagedAnalysis& a = section<StagedAnalysis>(m);
  EXPECT_TRUE(has(a.methods, "torch-pageable-to") && has(a.methods, "torch-cpu"));
  EXPECT_TRUE(has(a.methods_in("h2d"), "torch-pageable-to"));
  EXPECT_FALSE(has(a.methods_in("h2d"), "torch-cpu"));
  EXPECT_TRUE(has(a.methods_in("d2h"), "torch-cpu"));
  EXPECT_FALSE(has(a.methods_in("d2h"), "torch-pageable-to"));
  EXPECT_TRUE(a.methods_in("d2d").empty());
  const ReportTable& h2d = table_of(m, "staged-h2d");
  const ReportTable& d2h = table_of(m, "staged-d2h");
  EXPECT_TRUE(has(h2d.header, "torch-pageable-to"));
  EXPECT_FALSE(has(h2d.header, "torch-cpu"));
  EXPECT_TRUE(has(d2h.header, "torch-cpu"));
  EXPECT_FALSE(has(d2h.header, "torch-pageable-to"));
  for (const ChartSpec& c : m.charts) {
    const bool to_device = c.id.find("h2d") != std::string::npos;
    for (const ChartSeriesSpec& s : c.series) {
      EXPECT_NE(s.label, to_device ? "torch-cpu" : "torch-pageable-to") << c.id;
    }
  }
  // The terminal text likewise: torch-cpu is a column of the host's table only.
  const std::string text = printed_staged_text(r);
  const std::size_t to_host = text.find("\nDevice to host (GB/s)\n");
  ASSERT_NE(to_host, std::string::npos) << text;
  EXPECT_EQ(text.substr(0, to_host).find("torch-cpu"), std::string::npos) << text;
  const std::string tables = text.substr(to_host, text.find("\nGoals") - to_host);
  EXPECT_NE(tables.find("torch-cpu"), std::string::npos) << text;
  EXPECT_EQ(tables.find("torch-pageable-to"), std::string::npos) << text;
}

// Every ratio column, in the terminal text and in the model every other printer renders, reads
// the same: three decimals and no "x" (staged/pinned 0.858 beside staged/driver 0.856, not
// 0.86x).
TEST(StagedRender, EveryRatioColumnHasOneFormat) {
  const std::regex ratio("^([0-9]+\\.[0-9]{3}|—)$");
  for (const RunRecord& r : {test::make_staged_record(), test::make_pipeline_record()}) {
    SCOPED_TRACE(r.experiment);
    const ReportModel m = analyse(r);
    std::size_t seen = 0;
    for (const ReportTable& t : m.tables) {
      for (std::size_t i = 0; i < t.header.size(); ++i) {
        const std::string& h = t.header[i];
        const bool is_ratio =
            (h.find('/') != std::string::npos && h.find("GB/s") == std::string::npos) ||
            h == "vs pinned";
        if (!is_ratio) continue;
        for (const auto& row : t.rows) {
          EXPECT_TRUE(std::regex_match(row[i], ratio)) << t.header[i] << ": " << row[i];
          ++seen;
        }
      }
    }
    EXPECT_GT(seen, 0u);
  }
  const std::string text = printed_staged_text(test::make_staged_record());
  EXPECT_EQ(text.find("x  "), std::string::npos) << text;
  EXPECT_TRUE(
      std::regex_search(text, std::regex("\n  1 GiB +page +[0-9]+\\.[0-9]{3} +[0-9]+\\.[0-9]{3} ")))
      << text;
}

TEST(StagedRender, GenericReportsTakeTheseRecords) {
  for (const RunRecord& r : {test::make_staged_record(), test::make_staged_tune_record(),
                             test::make_pipeline_record()}) {
    const std::string md = render_markdown(analyse(r));
    EXPECT_NE(md.find(r.experiment), std::string::npos);
    // A row per case, then a row per judged claim (the goals of staged and pipeline).
    const ReportModel model = analyse(r);
    std::size_t claims = 0;
    for (const VerdictGroup& g : model.verdicts) {
      for (const Prediction& p : g.items) claims += p.claims.size();
    }
    EXPECT_EQ(claims > 0, r.experiment != "staged-tune") << r.experiment;
    const std::string csv = render_csv(model);
    EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
              r.cases.size() + claims + 1);
    const std::string html = render_html(r, model, HtmlExtras{});
    EXPECT_NE(html.find("</html>"), std::string::npos) << r.experiment;
    // Every one gets the charts that answer its question, the pipeline's bars included.
    EXPECT_NE(html.find("<svg"), std::string::npos) << r.experiment;
    for (const VerdictGroup& g : model.verdicts) {
      EXPECT_NE(html.find(g.title), std::string::npos) << r.experiment;
      EXPECT_NE(md.find(g.title), std::string::npos) << r.experiment;
    }
  }
}

// --- the H200 records committed under data/runs/ (2026-12-01) -------------------------------

RunRecord committed(const char* name) {
  return load_record(std::string(PINBENCH_DATA_DIR) + "/runs/" + name);
}

const StagedRow& row_at(const StagedAnalysis& a, const char* direction, std::uint64_t bytes) {
  for (const StagedRow& r : a.rows.at(direction)) {
    if (r.bytes == bytes && r.host_offset == 0) return r;
  }
  throw std::logic_error("no such row");
}

TEST(CommittedStaged, TheH200RecordIsCompleteAndJudgedFromItsOwnFigures) {
  const RunRecord r = committed("staged-h200-2026-12-01T001023Z.json");
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name;
  EXPECT_EQ(r.config["engine"]["staging_bytes"], 80 * kMiB);
  EXPECT_TRUE(r.config["engine"]["streaming_stores"].get<bool>());
  const StagedAnalysis a = analyse_staged(r);
  EXPECT_EQ(a.methods.size(), 9u);  // every method but the pageable kernel (attribute 0)
  for (const char* d : {"h2d", "d2h"}) {
    ASSERT_EQ(a.rows.at(d).size(), 14u) << d;  // 10 sizes and 4 odd ones
    for (const StagedRow& row : a.rows.at(d)) {
      EXPECT_EQ(row.staged_path, row.bytes < 2 * kMiB ? "direct" : "staged") << row.bytes;
      ASSERT_TRUE(row.staged_over_pinned && row.back_to_back_over_pinned) << row.bytes;
    }
  }
  // Device to host at 1 GiB the engine is within 3% of pinned, after a pause or back to back;
  // host to device at 64 MiB it is not, and the goals say so.
  EXPECT_NEAR(*row_at(a, "d2h", kGiB).staged_over_pinned, 53.71 / 55.17, 0.002);
  EXPECT_NEAR(*row_at(a, "d2h", kGiB).back_to_back_over_pinned, 54.16 / 55.17, 0.002);
  EXPECT_NEAR(*row_at(a, "h2d", 64 * kMiB).staged_over_pinned, 36.76 / 54.89, 0.002);
  EXPECT_EQ(goal(a, "h2d", "95% of pinned").verdict, Verdict::kDied);
  EXPECT_EQ(goal(a, "h2d", "95% of pinned", "staged-back-to-back").verdict, Verdict::kDied);
  EXPECT_EQ(goal(a, "d2h", "6x the driver").verdict, Verdict::kDied);
  // The text report renders it, goals and all.
  const std::string text = printed_staged_text(r);
  EXPECT_NE(text.find("drained to the host with non-temporal stores"), std::string::npos);
  EXPECT_NE(text.find("All 256 gates passed"), std::string::npos);
}

TEST(CommittedStaged, TheH200TuningGridChoosesTheDefaultsShapes) {
  const std::vector<TuneChoice> c =
      tune_choices(tune_rows(committed("staged-tune-h200-2026-12-01T000115Z.json")));
  ASSERT_EQ(c.size(), 2u);
  // To the device, 8 MiB x 3 (the default takes 8 MiB x 4: as fast, one buffer of margin); back,
  // 16 MiB x 6, which with the other ring would pin more than 96 MiB: the default takes
  // 8 MiB x 6.
  EXPECT_EQ(c[0].direction, "h2d");
  EXPECT_EQ(c[0].chunk_bytes, 8 * kMiB);
  EXPECT_EQ(c[0].depth, 3);
  EXPECT_EQ(c[1].direction, "d2h");
  EXPECT_EQ(c[1].depth, 6);
  const StagedCopyOptions defaults;
  EXPECT_EQ(defaults.to_device.chunk_bytes, c[0].chunk_bytes);
  EXPECT_EQ(defaults.to_host.depth, c[1].depth);
}

TEST(CommittedStaged, TheH200PipelineRecordMeetsItsBoundOnlyFromPinnedMemory) {
  const PipelineAnalysis a = analyse_pipeline(committed("pipeline-h200-2026-12-01T001230Z.json"));
  ASSERT_EQ(a.rows.size(), 4u);
  for (const PipelineRow& row : a.rows) ASSERT_TRUE(row.efficiency.has_value()) << row.source;
  const PipelineRow& pinned2 = a.rows[2];
  const PipelineRow& staged2 = a.rows[3];
  EXPECT_EQ(pinned2.source, "pinned");
  EXPECT_EQ(staged2.source, "staged");
  EXPECT_EQ(staged2.streams, 2);
  EXPECT_NEAR(*pinned2.efficiency, 0.933, 0.002);
  EXPECT_NEAR(*staged2.efficiency, 0.663, 0.002);
}

TEST(CommittedStaged, TheBoundRecordJudgesTheEngineOnTheHostsOwnRate) {
  const RunRecord r = committed("staged-h200-2026-12-01T100208Z.json");
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name;
  const StagedAnalysis a = analyse_staged(r);
  for (const char* d : {"h2d", "d2h"}) {
    for (const StagedRow& row : a.rows.at(d)) {
      // Every size from 1 MiB has its bound, never above pinned; below 1 MiB none.
      EXPECT_EQ(row.bound_gb_per_s.has_value(), row.bytes >= kMiB) << d << " " << row.bytes;
      if (!row.bound_gb_per_s) continue;
      EXPECT_LE(*row.bound_gb_per_s, *row.gb_per_s.at("pinned") + 1e-9) << row.bytes;
      EXPECT_TRUE(row.staged_over_bound && row.back_to_back_over_bound) << row.bytes;
      EXPECT_EQ(row.staged_path, "staged") << row.bytes;
    }
  }
  // On this machine the host side under DMA beat pinned at every size from 64 MiB in both
  // directions (to the device 94.1 GB/s at 64 MiB, 59.7 at 1 GiB), so the bound is pinned and
  // the goals ask for 95% of pinned: back to back held at 1 GiB (0.962) and missed at 64 MiB.
  const StagedRow& h64 = row_at(a, "h2d", 64 * kMiB);
  EXPECT_NEAR(*h64.host_under_dma_gb_per_s, 94.09, 0.01);
  EXPECT_DOUBLE_EQ(*h64.bound_over_pinned, 1.0);
  EXPECT_NEAR(*h64.back_to_back_over_bound, 0.834, 0.001);
  EXPECT_NEAR(*row_at(a, "h2d", kGiB).back_to_back_over_bound, 0.962, 0.001);
  EXPECT_NEAR(*row_at(a, "d2h", kGiB).staged_over_bound, 0.989, 0.001);
  EXPECT_EQ(goal(a, "h2d", "95% of its bound", "staged-back-to-back").verdict, Verdict::kDied);
  EXPECT_EQ(goal(a, "d2h", "95% of its bound").verdict, Verdict::kDied);  // 0.927 at 64 MiB
  // From 1 to 2 MiB the engine beats the driver by 1.5x back to the host, not to the device.
  EXPECT_EQ(goal(a, "d2h", "1.5x the driver").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "h2d", "1.5x the driver").verdict, Verdict::kDied);
  // Replayed, the text states engine/bound.
  const std::string text = printed_staged_text(r);
  EXPECT_NE(text.find("staged/bound"), std::string::npos);
  EXPECT_NE(text.find("bound = the lesser of host+dma and pinned"), std::string::npos);
}

// The record of the build that streams the fill's edge chunks and has one direct threshold per
// direction: each direction takes its own path below its own threshold, the engine line says
// so, and the goals read as the record's figures say.
TEST(CommittedStaged, TheEdgesStreamedRecordTakesEachDirectionsOwnPath) {
  const RunRecord r = committed("staged-h200-2026-12-01T130731Z.json");
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name;
  EXPECT_EQ(r.config["engine"]["to_device"]["direct_below_bytes"], 512 * kKiB);
  EXPECT_EQ(r.config["engine"]["to_host"]["direct_below_bytes"], 256 * kKiB);
  EXPECT_TRUE(r.config["engine"]["streaming_fill_edges"].get<bool>());
  const StagedAnalysis a = analyse_staged(r);
  for (const char* d : {"h2d", "d2h"}) {
    const std::uint64_t below = std::string(d) == "h2d" ? 512 * kKiB : 256 * kKiB;
    for (const StagedRow& row : a.rows.at(d)) {
      EXPECT_EQ(row.staged_path, row.bytes < below ? "direct" : "staged") << d << " " << row.bytes;
    }
  }
  // 1 MiB to the device at 20.52 GB/s against the driver's 9.42: the 1.5x goal now holds both
  // ways; at 4 KiB the direct path sits below the driver by more than the noise band.
  EXPECT_NEAR(*row_at(a, "h2d", kMiB).gb_per_s.at("staged"), 20.52, 0.01);
  EXPECT_EQ(goal(a, "h2d", "1.5x the driver").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "d2h", "1.5x the driver").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "h2d", "never slower").verdict, Verdict::kDied);
  EXPECT_EQ(goal(a, "h2d", "95% of its bound").verdict, Verdict::kDied);
  const std::string text = printed_staged_text(r);
  EXPECT_NE(text.find("copies to the device under 512 KiB and to the host under 256 KiB go "
                      "straight to cudaMemcpyAsync"),
            std::string::npos);
  EXPECT_NE(text.find("a copy's first and last chunks filled with non-temporal stores"),
            std::string::npos);
}

// The first record with the bound's teams asleep while the engine runs: back to back the engine
// holds 95% of its bound at 1 GiB to the device and misses it at 64 MiB; the pipeline through the
// engine reaches 85% of its own bound.
TEST(CommittedStaged, WithTheBoundTeamsAsleepTheEngineHoldsItsBoundAt1GiB) {
  const RunRecord r = committed("staged-h200-2026-12-01T132418Z.json");
  for (const Gate& g : r.gates) EXPECT_TRUE(g.passed) << g.name;
  const StagedAnalysis a = analyse_staged(r);
  EXPECT_NEAR(*row_at(a, "h2d", kGiB).back_to_back_over_bound, 0.962, 0.001);
  EXPECT_NEAR(*row_at(a, "h2d", 64 * kMiB).back_to_back_over_bound, 0.868, 0.001);
  EXPECT_EQ(goal(a, "h2d", "95% of its bound", "staged-back-to-back").verdict, Verdict::kDied);
  EXPECT_EQ(goal(a, "h2d", "1.5x the driver").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "d2h", "1.5x the driver").verdict, Verdict::kHeld);
  const PipelineAnalysis p = analyse_pipeline(committed("pipeline-h200-2026-12-01T132612Z.json"));
  ASSERT_EQ(p.rows.size(), 4u);  // one and two streams, both sources
  EXPECT_EQ(p.rows[3].source, "staged");
  EXPECT_EQ(p.rows[3].streams, 2);
  EXPECT_NEAR(*p.rows[3].efficiency, 0.850, 0.001);
  EXPECT_EQ(p.goals[1].verdict, Verdict::kDied);
  EXPECT_EQ(p.goals[0].verdict, Verdict::kHeld);
}

// The engine line names each direction's threshold, leaves out a direction that stages every
// copy, says so when both do, and still reads the single threshold of older records.
TEST(StagedText, TheEngineLineNamesEachDirectionsDirectThreshold) {
  RunRecord r = test::make_staged_record();  // old style: one direct_below_bytes for both
  EXPECT_NE(printed_staged_text(r).find("copies under 2 MiB go straight to cudaMemcpyAsync"),
            std::string::npos);
  nlohmann::json& e = r.config["engine"];
  e.erase("direct_below_bytes");
  e["to_device"]["direct_below_bytes"] = 0;
  e["to_host"]["direct_below_bytes"] = 256 * kKiB;
  EXPECT_NE(printed_staged_text(r).find(
                "copies to the host under 256 KiB go straight to cudaMemcpyAsync"),
            std::string::npos);
  e["to_host"]["direct_below_bytes"] = 0;
  EXPECT_NE(printed_staged_text(r).find("every pageable copy is staged"), std::string::npos);
  e["streaming_fill_edges"] = false;
  EXPECT_NE(printed_staged_text(r).find("; filled with memcpy"), std::string::npos);
}

TEST(CommittedStaged, TheBoundPipelineRecordCountsTheHostSide) {
  const PipelineAnalysis a = analyse_pipeline(committed("pipeline-h200-2026-12-01T100258Z.json"));
  ASSERT_EQ(a.rows.size(), 2u);  // two streams, both sources
  const PipelineRow& staged = a.rows[1];
  EXPECT_EQ(staged.source, "staged");
  ASSERT_TRUE(staged.host_bound_ms && staged.efficiency);
  EXPECT_NEAR(*staged.host_bound_ms, 28.68, 0.01);
  EXPECT_DOUBLE_EQ(*staged.bound_ms, *staged.host_bound_ms);  // the host, not the copies
  EXPECT_NEAR(*staged.efficiency, 0.780, 0.002);
  EXPECT_NEAR(*staged.over_pinned, 22.191 / 36.754, 0.001);
  EXPECT_EQ(a.goals[1].verdict, Verdict::kDied);
  EXPECT_NEAR(*a.rows[0].efficiency, 0.960, 0.002);
  EXPECT_EQ(a.goals[0].verdict, Verdict::kHeld);
}

// --- the engine's CPU ---------------------------------------------------------------------------

// The hand-made record with the CPU figures a record from this pinbench holds: each engine case's
// getrusage deltas over its timed samples, and the idle engine in the config. The system share
// is 5% everywhere but d2h staged at 64 MiB (20%: the goal fails there).
RunRecord staged_record_with_cpu() {
  RunRecord r = test::make_staged_record();
  for (Case& c : r.cases) {
    if (c.part != "staged" || (c.method != "staged" && c.method != "staged-back-to-back")) continue;
    const bool high = c.direction == "d2h" && c.method == "staged" && c.bytes == 64 * kMiB;
    c.extra["cpu_user_s"] = high ? 0.08 : 0.095;
    c.extra["cpu_sys_s"] = high ? 0.02 : 0.005;
    c.extra["cpu_wall_s"] = 0.05;
    c.extra["ctx_voluntary"] = 400;
    c.extra["ctx_involuntary"] = 100;
  }
  r.config["idle_engine"] = {{"settle_s", 0.3},   {"cpu_user_s", 0.001}, {"cpu_sys_s", 0.002},
                             {"cpu_wall_s", 1.0}, {"ctx_voluntary", 25}, {"ctx_involuntary", 2}};
  return r;
}

TEST(StagedCpu, EachEngineCaseShowsItsSystemShareAndSwitches) {
  const StagedAnalysis a = analyse_staged(staged_record_with_cpu());
  const StagedRow& r64 = a.rows.at("d2h")[2];
  ASSERT_EQ(r64.bytes, 64 * kMiB);
  ASSERT_EQ(r64.cpu.count("staged"), 1u);
  EXPECT_NEAR(*r64.cpu.at("staged").sys_share(), 0.2, 1e-12);
  EXPECT_NEAR(r64.cpu.at("staged").switches_per_s(), 500 / 0.05, 1e-6);
  EXPECT_NEAR(r64.cpu.at("staged").cores(), 2.0, 1e-12);
  EXPECT_NEAR(*r64.cpu.at("staged-back-to-back").sys_share(), 0.05, 1e-12);
  EXPECT_EQ(r64.cpu.count("pinned"), 0u);  // only the engine's cases
  ASSERT_TRUE(a.idle.has_value());
  EXPECT_NEAR(a.idle->cores(), 0.003, 1e-12);
  EXPECT_EQ(a.idle_settle_s, 0.3);
  EXPECT_TRUE(a.has_cpu("h2d"));
}

TEST(StagedCpu, GoalsOnTheSystemShareAndTheIdleEngine) {
  const StagedAnalysis a = analyse_staged(staged_record_with_cpu());
  EXPECT_EQ(a.goals.size(), 10u + 5u);  // four system-share goals and the idle one
  EXPECT_EQ(goal(a, "h2d", "system time at most 15%").verdict, Verdict::kHeld);
  EXPECT_EQ(goal(a, "h2d", "system time at most 15%", "staged-back-to-back").verdict,
            Verdict::kHeld);
  const StagedGoal& d2h = goal(a, "d2h", "system time at most 15%");
  EXPECT_EQ(d2h.verdict, Verdict::kDied);
  EXPECT_EQ(d2h.text, "staged: system time at most 15% of the engine's CPU time while copying");
  EXPECT_NE(d2h.evidence.find("sys/(user+sys): 5.0% at 4 KiB; 5.0% at 1 MiB; 20.0% (fails) at 64 "
                              "MiB; 5.0% at 64 MiB + 5 B at +3/+1"),
            std::string::npos)
      << d2h.evidence;
  EXPECT_EQ(goal(a, "d2h", "system time at most 15%", "staged-back-to-back").verdict,
            Verdict::kHeld);
  const StagedGoal& idle = goal(a, "", "an idle engine under 1% of a core");
  EXPECT_EQ(idle.verdict, Verdict::kHeld);
  EXPECT_EQ(idle.evidence,
            "the process used 0.30% of a core over 1.00 s with the engine idle (0.0010 s user, "
            "0.0020 s system, 27 context switches), after 0.3 s left alone");

  // A busier idle engine fails; a case whose gate failed has no figure, which leaves its goal
  // unjudged when nothing else fails.
  RunRecord r = staged_record_with_cpu();
  r.config["idle_engine"]["cpu_user_s"] = 0.02;
  for (Case& c : r.cases) {
    if (c.direction == "h2d" && c.method == "staged" && c.bytes == kGiB) c.verified = false;
  }
  const StagedAnalysis b = analyse_staged(r);
  EXPECT_EQ(goal(b, "", "an idle engine").verdict, Verdict::kDied);
  const StagedGoal& unjudged = goal(b, "h2d", "system time at most 15%");
  EXPECT_EQ(unjudged.verdict, Verdict::kNotEvaluated);
  EXPECT_NE(unjudged.evidence.find("no figure at 1 GiB"), std::string::npos) << unjudged.evidence;
}

// A record made before pinbench measured the engine's CPU: no CPU rows, goals, table or line.
TEST(StagedCpu, ARecordWithoutTheFiguresShowsNoneOfThem) {
  const RunRecord r = test::make_staged_record();
  const StagedAnalysis a = analyse_staged(r);
  EXPECT_FALSE(a.idle.has_value());
  EXPECT_FALSE(a.has_cpu("h2d"));
  EXPECT_FALSE(a.has_cpu("d2h"));
  for (const StagedGoal& g : a.goals) {
    EXPECT_EQ(g.text.find("system time"), std::string::npos) << g.text;
    EXPECT_FALSE(g.direction.empty());
  }
  const std::string text = printed_staged_text(r);
  EXPECT_EQ(text.find("the engine's CPU"), std::string::npos);
  EXPECT_EQ(text.find("ctx/s"), std::string::npos);
  EXPECT_EQ(text.find("Idle engine"), std::string::npos);
  const ReportModel m = analyse(r);
  for (const ReportTable& t : m.tables) EXPECT_EQ(t.id.find("staged-cpu"), std::string::npos);
}

TEST(StagedCpu, TheTextAndTheModelShowTheFigures) {
  const RunRecord r = staged_record_with_cpu();
  const std::string text = printed_staged_text(r);
  EXPECT_NE(text.find("Device to host: the engine's CPU while copying"), std::string::npos) << text;
  EXPECT_NE(text.find("staged sys"), std::string::npos);
  EXPECT_NE(text.find("b2b ctx/s"), std::string::npos);
  EXPECT_NE(text.find("20.0%"), std::string::npos);
  EXPECT_NE(text.find("10000"), std::string::npos);  // 500 switches over 50 ms
  EXPECT_NE(text.find("Idle engine: the process used 0.30% of a core"), std::string::npos);
  EXPECT_NE(text.find("  an idle engine under 1% of a core: held"), std::string::npos) << text;

  const ReportModel m = analyse(r);
  const ReportTable& t = table_of(m, "staged-cpu-d2h");
  EXPECT_EQ(t.header, (std::vector<std::string>{"size", "staged sys", "staged ctx/s",
                                                "staged cores", "back-to-back sys",
                                                "back-to-back ctx/s", "back-to-back cores"}));
  ASSERT_EQ(t.rows.size(), 5u);
  EXPECT_EQ(t.rows[2], (std::vector<std::string>{"64 MiB", "20.0%", "10000", "2.00", "5.0%",
                                                 "10000", "2.00"}));
  bool idle_goal = false;
  for (const VerdictGroup& g : m.verdicts) {
    for (const Prediction& p : g.items) {
      idle_goal = idle_goal || p.statement == "an idle engine under 1% of a core";
    }
  }
  EXPECT_TRUE(idle_goal);
}

// The new fields are checked on reading like any other: a record round-trips, and a negative
// count of context switches or time is refused by name.
TEST(StagedCpu, TheFieldsSurviveARoundTripAndAreChecked) {
  const RunRecord r = staged_record_with_cpu();
  const RunRecord back = record_from_json(to_json(r));
  EXPECT_EQ(analyse_staged(back).goals.size(), analyse_staged(r).goals.size());
  nlohmann::json j = to_json(r);
  j["config"]["idle_engine"]["ctx_voluntary"] = -1;
  expect_input_error([&] { (void)record_from_json(j); }, "config.idle_engine.ctx_voluntary");
  j = to_json(r);
  for (auto& c : j["cases"]) {
    if (c["method"] == "staged") {
      c["extra"]["cpu_sys_s"] = -0.5;
      break;
    }
  }
  expect_input_error([&] { (void)record_from_json(j); }, "cpu_sys_s");
}

// The committed staged --torch record's tables fit a terminal of kTextColumns.
TEST(CommittedStaged, TheTextTablesFitATerminal) {
  for (const char* name :
       {"staged-h200-2026-12-01T132418Z.json", "staged-h200-2026-11-30T173420Z.json"}) {
    SCOPED_TRACE(name);
    const std::string text = render_text(analyse(committed(name)));
    std::size_t tables = 0;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = std::min(text.find('\n', at), text.size());
      const std::string line = text.substr(at, end - at);
      if (line.rfind("  --", 0) == 0) {  // a table's rule is as wide as the table
        ++tables;
        EXPECT_LE(display_width(line), kTextColumns) << text.substr(at > 400 ? at - 400 : 0, 800);
      }
      at = end + 1;
    }
    EXPECT_GE(tables, 4u);  // rates, then ratios, each way
  }
}

}  // namespace
}  // namespace pinbench
