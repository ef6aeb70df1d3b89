// The report model (framework/report_model.hpp) and its printers: that analyse() dispatches
// on every experiment, and that what it decides (verdicts, undecided claims, stop reasons,
// unstable cases, unknown machine fields, a published record's method) reaches text, markdown,
// HTML and CSV alike. On the committed records and on hand-made edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/svg_chart.hpp"
#include "framework/render/text.hpp"
#include "framework/render/trace_timeline.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

RunRecord committed(const std::string& name) {
  return load_record(std::string(PINBENCH_DATA_DIR) + "/runs/" + name);
}

// Every printer's output of one model, so a test can ask each the same question.
struct Printed {
  std::string text, markdown, html, csv;
};

Printed print_all(const RunRecord& r, const ReportModel& m) {
  return {render_model_text(m), render_markdown(m), render_html(r, m, {}), render_csv(m)};
}

TEST(ReportModel, DispatchesOnEveryCommittedExperiment) {
  const struct {
    const char* file;
    const char* experiment;
    std::size_t charts;
    bool verdicts;
  } records[] = {
      {"lesson-h200-2026-11-30T155947Z.json", "lesson", 4, true},
      {"sweep-h200-2026-11-30T162938Z.json", "sweep", 20, false},
      {"sweep-pinned-h200-2026-11-30T162934Z.json", "sweep", 5, false},
      {"bandwidthtest-h200-2026-11-30T162936Z.json", "bandwidthtest", 1, false},
      {"race-h200-2026-11-30T162937Z.json", "race", 1, false},
      {"staged-h200-2026-12-01T001023Z.json", "staged", 4, true},
      {"staged-tune-h200-2026-12-01T000115Z.json", "staged-tune", 1, false},
      {"pipeline-h200-2026-12-01T001230Z.json", "pipeline", 2, true},
  };
  for (const auto& c : records) {
    SCOPED_TRACE(c.file);
    const RunRecord r = committed(c.file);
    const ReportModel m = analyse(r);
    EXPECT_EQ(m.experiment, c.experiment);
    EXPECT_EQ(m.charts.size(), c.charts);
    EXPECT_EQ(!m.verdicts.empty(), c.verdicts);
    EXPECT_EQ(m.cases.size(), r.cases.size());
    EXPECT_FALSE(m.tables.empty());
    // Every chart has something to draw: no empty "Charts" section again.
    for (const ChartSpec& chart : m.charts) {
      EXPECT_TRUE(!chart.series.empty() || !chart.bars.empty() || !chart.cells.empty()) << chart.id;
    }
    EXPECT_FALSE(render_text(m).empty());
  }
}

TEST(ReportModel, StagedAndPipelineVerdictsReachEveryFormat) {
  for (const char* file :
       {"staged-h200-2026-12-01T001023Z.json", "pipeline-h200-2026-12-01T001230Z.json"}) {
    SCOPED_TRACE(file);
    const RunRecord r = committed(file);
    const ReportModel m = analyse(r);
    ASSERT_FALSE(m.verdicts.empty());
    const Printed p = print_all(r, m);
    for (const Prediction& goal : m.verdicts.front().items) {
      const std::string evidence = goal.claims.front().evidence;
      EXPECT_NE(p.text.find(evidence), std::string::npos) << evidence;
      EXPECT_NE(p.markdown.find(markdown_escape(evidence)), std::string::npos) << evidence;
      EXPECT_NE(p.html.find(xml_escape(evidence)), std::string::npos) << evidence;
      EXPECT_NE(p.csv.find(csv_field(evidence)), std::string::npos) << evidence;
    }
    // And the terminal text the live run printed says the same.
    EXPECT_NE(test::unwrapped(render_text(analyse(r)))
                  .find(m.verdicts.front().items.front().claims.front().evidence),
              std::string::npos);
  }
}

// One word per verdict (framework/verdict.hpp, verdict_word) in every printer: a missed goal is
// "missed" in the terminal text, markdown, the HTML badge and CSV, never DIED or MISSED; a
// prediction that failed "died" in all of them.
TEST(ReportModel, OneVerdictWordInEveryFormat) {
  // The HTML's style sheet names every badge, so the page is asked about its badges only.
  const auto expect_words = [](const RunRecord& r, const std::string& word,
                               const std::vector<std::string>& never) {
    const ReportModel m = analyse(r);
    const Printed p = print_all(r, m);
    for (const std::string& out : {p.text, p.markdown, p.csv, render_text(m)}) {
      EXPECT_NE(out.find(word), std::string::npos) << out;
      for (const std::string& other : never) EXPECT_EQ(out.find(other), std::string::npos) << out;
    }
    EXPECT_NE(p.html.find("<span class=\"badge " + word + "\">" + word + "</span>"),
              std::string::npos);
    EXPECT_NE(p.html.find(".badge." + word), std::string::npos) << "styled, not bare";
    for (const std::string& other : never) {
      EXPECT_EQ(p.html.find(">" + other + "</span>"), std::string::npos) << other;
    }
  };
  // Device to host misses 95% of pinned: a goal.
  expect_words(test::make_staged_record(), "missed", {"MISSED", "died", "DIED", "HELD"});
  // Prediction 1's growth claim dies.
  expect_words(test::make_lesson_record(), "died", {"DIED", "missed", "MISSED", "HELD"});
  EXPECT_STREQ(verdict_word(Verdict::kDied, Judged::kGoal), "missed");
  EXPECT_STREQ(verdict_word(Verdict::kDied, Judged::kPrediction), "died");
}

TEST(ReportModel, AnUndecidedClaimIsRenderedWithItsEvidenceEverywhere) {
  const RunRecord r = test::make_lesson_record();
  ReportModel m = analyse(r);
  ASSERT_FALSE(m.verdicts.empty());
  Prediction& p = m.verdicts.front().items.front();
  p.verdict = Verdict::kUndecided;
  p.claims.front().verdict = Verdict::kUndecided;
  p.claims.front().evidence = "ratio 1.31x, interval 1.12x to 1.52x straddles the 1.3x floor";
  const Printed out = print_all(r, m);
  EXPECT_NE(out.text.find(": undecided"), std::string::npos);
  EXPECT_NE(out.text.find("straddles the 1.3x floor"), std::string::npos);
  EXPECT_NE(out.markdown.find("| undecided | ratio 1.31x"), std::string::npos);
  EXPECT_NE(out.html.find("<span class=\"badge undecided\">undecided</span>"), std::string::npos);
  EXPECT_NE(out.html.find(".badge.undecided"), std::string::npos) << "styled, not bare";
  EXPECT_NE(out.csv.find(",undecided,\"ratio 1.31x, interval"), std::string::npos);
}

TEST(ReportModel, AnUnstableCaseIsFlaggedInEveryFormat) {
  RunRecord r = test::make_lesson_record();
  Case* c = r.find("copy", "h2d", "pageable", kMiB);
  ASSERT_NE(c, nullptr);
  // The H200 run: 4 samples at 0.09 ms, then 6 at 0.23 ms.
  c->samples_ms = {0.09, 0.09, 0.09, 0.09, 0.23, 0.23, 0.23, 0.23, 0.23, 0.23};
  const ReportModel m = analyse(r);
  ASSERT_EQ(m.flags.size(), 1u);
  EXPECT_EQ(m.flags.front().stability, Stability::kBimodal);
  EXPECT_EQ(m.flags.front().label, "copy cudaMemcpy h2d pageable 1 MiB");
  const Printed out = print_all(r, m);
  const std::string text = render_text(analyse(r));
  EXPECT_NE(text.find("Unstable cases (1)"), std::string::npos);
  EXPECT_NE(text.find("copy cudaMemcpy h2d pageable 1 MiB: bimodal"), std::string::npos);
  EXPECT_NE(out.markdown.find("- **bimodal** copy cudaMemcpy h2d pageable 1 MiB:"),
            std::string::npos);
  EXPECT_NE(out.html.find("<span class=\"badge unstable\">1 unstable</span>"), std::string::npos);
  EXPECT_NE(out.html.find("UNSTABLE: bimodal"), std::string::npos);
  EXPECT_NE(out.csv.find(",bimodal,"), std::string::npos);
  // A steady record has no such section in any format.
  const RunRecord steady = test::make_lesson_record();
  const ReportModel sm = analyse(steady);
  EXPECT_TRUE(sm.flags.empty());
  EXPECT_EQ(render_text(analyse(steady)).find("Unstable cases"), std::string::npos);
  EXPECT_EQ(render_markdown(sm).find("Unstable cases"), std::string::npos);
  EXPECT_EQ(render_html(steady, sm, {}).find("Unstable cases"), std::string::npos);
}

TEST(ReportModel, StopReasonsAndSpreadAreShownOrSaidToBeMissing) {
  RunRecord r = test::make_sweep_record();
  r.cases[0].stop = StopReason::kSpread;
  r.cases[1].stop.reset();
  const ReportModel m = analyse(r);
  EXPECT_EQ(m.cases[0].stop, "spread");
  EXPECT_EQ(m.cases[1].stop, "not recorded");
  ASSERT_TRUE(m.cases[0].spread.has_value());
  EXPECT_DOUBLE_EQ(*m.cases[0].spread, relative_spread(r.cases[0].samples_ms));
  const ReportTable t = case_table(m);
  const auto stop = std::find(t.header.begin(), t.header.end(), "stop") - t.header.begin();
  const auto spread = std::find(t.header.begin(), t.header.end(), "spread") - t.header.begin();
  ASSERT_LT(static_cast<std::size_t>(spread), t.header.size());
  EXPECT_EQ(t.rows[0][stop], "spread");
  EXPECT_EQ(t.rows[1][stop], "not recorded");
  EXPECT_EQ(t.rows[0][spread], fmt::format("{:.2f}%", 100 * *m.cases[0].spread));
  const std::string md = render_markdown(m);
  EXPECT_NE(md.find("| spread |"), std::string::npos);
  EXPECT_NE(md.find("| not recorded |"), std::string::npos);
  EXPECT_NE(render_csv(m).find(",spread,"), std::string::npos);
}

TEST(ReportModel, APublishedRecordSaysUnknownAndClaimsNoMethodItDidNotUse) {
  const RunRecord t4 = load_record(test::t4_reference_path());
  ASSERT_EQ(t4.source, "published");
  const ReportModel m = analyse(t4);
  const std::string text = render_text(analyse(t4));
  EXPECT_NE(text.find("copy engines unknown"), std::string::npos);
  EXPECT_NE(text.find("device memory unknown"), std::string::npos);
  EXPECT_NE(text.find("logical CPUs unknown"), std::string::npos);
  const Printed out = print_all(t4, m);
  for (const std::string* format : {&text, &out.markdown, &out.html}) {
    EXPECT_EQ(format->find("0 copy engines"), std::string::npos);
    EXPECT_EQ(format->find("0 B device memory"), std::string::npos);
    EXPECT_EQ(format->find("0 logical CPUs"), std::string::npos);
    EXPECT_EQ(format->find("3 warm-ups"), std::string::npos);
    EXPECT_EQ(format->find("10 timed"), std::string::npos);
    EXPECT_EQ(format->find("medians of the timed samples"), std::string::npos);
    EXPECT_NE(format->find("Figures are the published ones, one per case"), std::string::npos);
  }
  EXPECT_NE(out.html.find("<dt>Copy engines</dt><dd>unknown</dd>"), std::string::npos);
  EXPECT_NE(out.markdown.find("40 SMs, copy engines unknown, device memory unknown"),
            std::string::npos);
  EXPECT_NE(out.markdown.find("One published figure per case"), std::string::npos);
  EXPECT_NE(text.find("published figures, one per case"), std::string::npos);
  EXPECT_NE(out.csv.find(",published figure,"), std::string::npos);
}

TEST(ReportModel, TheTuningHeatmapMarksTheBestShapeOfEachDirection) {
  const RunRecord r = committed("staged-tune-h200-2026-12-01T000115Z.json");
  const ReportModel m = analyse(r);
  ASSERT_EQ(m.charts.size(), 1u);
  const ChartSpec& heat = m.charts.front();
  ASSERT_EQ(heat.kind, ChartKind::kHeatmap);
  std::size_t marked = 0;
  for (const auto& row : heat.cells) {
    for (const HeatCell& cell : row) {
      marked += cell.marked ? 1 : 0;
      if (cell.value) {
        EXPECT_GT(cell.shade, 0.0);
        EXPECT_LE(cell.shade, 1.0);
      }
    }
  }
  // One shape per direction, marked at each of its sizes: 2 directions x 2 sizes.
  EXPECT_EQ(marked, heat.column_labels.size());
  const std::string html = render_html(r, m, {});
  EXPECT_EQ(count(html, "class=\"best\""), marked);
  EXPECT_EQ(count(html, "<svg class=\"chart"), 1u);
}

TEST(ReportModel, StagedChartsKeepOddSizesApart) {
  const RunRecord r = committed("staged-h200-2026-12-01T001023Z.json");
  for (const ChartSpec& chart : analyse(r).charts) {
    const bool odd = chart.id.size() > 4 && chart.id.compare(chart.id.size() - 4, 4, "-odd") == 0;
    for (const ChartSeriesSpec& s : chart.series) {
      for (const auto& point : s.points) {
        const bool power_of_two = (point.first & (point.first - 1)) == 0;
        if (!odd) {
          EXPECT_TRUE(power_of_two) << chart.id << " " << point.first;
        }
      }
    }
  }
}

TEST(ReportModel, RaceChartsTheShareOfNewWordsNotARate) {
  const RunRecord r = committed("race-h200-2026-11-30T162937Z.json");
  const ReportModel m = analyse(r);
  ASSERT_EQ(m.charts.size(), 1u);
  EXPECT_EQ(m.charts.front().kind, ChartKind::kShares);
  ASSERT_EQ(m.charts.front().bars.size(), r.cases.size());
  for (const ChartBar& b : m.charts.front().bars) {
    ASSERT_TRUE(b.value.has_value());
    EXPECT_GE(*b.value, 0.0);
    EXPECT_LE(*b.value, 1.0);
  }
  EXPECT_EQ(render_html(r, m, {}).find("median GB/s"), std::string::npos);
}

TEST(ReportModel, ARecordWithoutGatesSaysSoRatherThanAllPassed) {
  RunRecord r = test::make_sweep_record();
  r.cases.clear();
  r.gates.clear();
  const ReportModel m = analyse(r);
  EXPECT_EQ(m.checks_passed, kNothingMeasured);  // no case either: nothing was measured
  EXPECT_EQ(render_text(analyse(r)).find("All 0 gates"), std::string::npos);
  // Nothing gated is neither "0 of 0 gates passed" nor a green "passed" badge, anywhere.
  EXPECT_TRUE(m.nothing_checked);
  EXPECT_NE(m.record_line.find("; no gates"), std::string::npos) << m.record_line;
  const Printed p = print_all(r, m);
  for (const std::string& out : {p.text, p.markdown, p.html}) {
    EXPECT_EQ(out.find("0 of 0"), std::string::npos) << out;
    EXPECT_NE(out.find("no gates"), std::string::npos) << out;
  }
  EXPECT_EQ(p.html.find("badge passed"), std::string::npos) << p.html;
  EXPECT_NE(p.html.find("<span class=\"label\">Gates</span><span class=\"value\">none</span>"),
            std::string::npos);
  EXPECT_EQ(p.html.find("Every gate (0)"), std::string::npos);
  // The staged and sweep layouts say the same, not "Passed (0 gates)".
  RunRecord staged = test::make_staged_record();
  staged.gates.clear();
  EXPECT_NE(render_text(analyse(staged)).find("\nChecks\n  No gates: the record holds no checked"),
            std::string::npos);
  EXPECT_EQ(render_text(analyse(staged)).find("Passed (0 gates)"), std::string::npos);
  // With gates, the badge and the count are there.
  const RunRecord gated = test::make_staged_record();
  const ReportModel g = analyse(gated);
  EXPECT_FALSE(g.nothing_checked);
  EXPECT_NE(g.record_line.find(fmt::format("{} of {} gates passed", g.gates_passed, g.gates)),
            std::string::npos);
}

// A fleet has no gates of its own but checks every GPU: it says "no gates" and keeps the
// badge of its own checks.
TEST(ReportModel, AFleetWithoutGatesKeepsTheBadgeOfItsOwnChecks) {
  const RunRecord r = committed("fleet-mpi-h200-2026-12-01T095749Z.json");
  const ReportModel m = analyse(r);
  EXPECT_FALSE(m.nothing_checked);
  const std::string html = render_html(r, m, {});
  EXPECT_EQ(html.find("0 of 0"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge passed\">passed</span> Nothing flagged"),
            std::string::npos);
}

TEST(ReportModel, AnUnknownExperimentGetsTheGenericReportAndText) {
  RunRecord r = test::make_sweep_record();
  r.experiment = "notebook";
  const ReportModel m = analyse(r);
  EXPECT_EQ(m.experiment, "notebook");
  EXPECT_FALSE(m.tables.empty());
  EXPECT_FALSE(m.charts.empty());
  const std::string text = render_text(analyse(r));
  EXPECT_EQ(text.rfind("pinbench notebook on Hand-made GPU", 0), 0u) << text.substr(0, 80);
  EXPECT_NE(text.find("FAILED: gate sweep/sm/d2h/write-combined/1MiB failed"), std::string::npos);
}

TEST(ReportModel, TheTimelineGivesNvtxRangesTheirOwnLane) {
  const Timeline t = read_trace(
      trace_path_for(std::string(PINBENCH_DATA_DIR) + "/runs/lesson-h200-2026-11-30T165138Z.json"));
  std::vector<std::string> labels;
  for (const TimelineLane& lane : t.lanes) {
    labels.push_back(lane.label);
    bool nvtx = false, other = false;
    for (const TimelineEvent& e : lane.events) (e.category == "nvtx" ? nvtx : other) = true;
    EXPECT_FALSE(nvtx && other) << lane.label;
  }
  EXPECT_NE(std::find(labels.begin(), labels.end(), "host / host thread · NVTX ranges"),
            labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "host / host thread · API calls"),
            labels.end());
}

}  // namespace
}  // namespace pinbench
