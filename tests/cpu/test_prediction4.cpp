// Prediction 4 and the memory-kind check on hand-made traces: which calls are chosen by each of
// the three selections, the verdicts at and around the 5x bar, and the path through the run
// record into the lesson's analysis and report.
#include <gtest/gtest.h>

#include <filesystem>

#include "experiments/lesson/analysis.hpp"
#include "experiments/lesson/prediction4.hpp"
#include "experiments/lesson/text.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/render/perfetto.hpp"
#include "framework/trace_gates.hpp"
#include "framework/units.hpp"
#include "trace_fixtures.hpp"

namespace pinbench {
using namespace experiments::lesson;
namespace {

using test::lesson_trace;
using test::LessonTraceSpec;

const Gate* gate_named(const std::vector<Gate>& gates, const std::string& name) {
  for (const Gate& g : gates) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

TEST(Prediction4, NvtxRangesChooseTheTimedHostToDeviceCalls) {
  const Prediction4Evidence e = select_prediction4(lesson_trace());
  EXPECT_EQ(e.selection, Selection::kNvtxRanges);
  EXPECT_EQ(e.source, "hand-made");
  // The warm-up is skipped and the gate's device-to-host read-backs are not counted.
  EXPECT_EQ(e.pageable.call_ns, std::vector<double>(10, 9'300'000.0));
  EXPECT_EQ(e.pinned.call_ns, std::vector<double>(10, 12'000.0));
  EXPECT_EQ(e.pageable.warmups, 1);
  EXPECT_EQ(e.pageable.bytes, 10 * (64ull << 20));
  EXPECT_EQ(e.pinned.bytes, e.pageable.bytes);
  EXPECT_TRUE(e.notes.empty()) << e.notes.front();

  const Prediction4Judgement j = judge_prediction4(e);
  EXPECT_EQ(j.verdict, Verdict::kHeld);
  EXPECT_DOUBLE_EQ(j.pageable_ms, 93.0);
  EXPECT_DOUBLE_EQ(j.pinned_ms, 0.12);
  ASSERT_TRUE(j.ratio.has_value());
  EXPECT_DOUBLE_EQ(*j.ratio, 775.0);
  EXPECT_EQ(j.bytes_equal, true);
}

TEST(Prediction4, TheBarIsFiveTimes) {
  LessonTraceSpec s;
  s.pinned_call_ns = 20'000;
  s.pageable_call_ns = 100'000;  // exactly 5x
  EXPECT_EQ(judge_prediction4(select_prediction4(lesson_trace(s))).verdict, Verdict::kHeld);
  s.pageable_call_ns = 99'999;
  const Prediction4Judgement j = judge_prediction4(select_prediction4(lesson_trace(s)));
  EXPECT_EQ(j.verdict, Verdict::kDied);
  EXPECT_NEAR(*j.ratio, 4.99995, 1e-9);
}

TEST(Prediction4, DifferentBytesKillIt) {
  LessonTraceSpec s;
  s.pinned_bytes = 32ull << 20;
  const Prediction4Judgement j = judge_prediction4(select_prediction4(lesson_trace(s)));
  EXPECT_EQ(j.bytes_equal, false);
  EXPECT_EQ(j.verdict, Verdict::kDied);
  const Claim c = prediction4_claim(select_prediction4(lesson_trace(s)));
  EXPECT_NE(c.evidence.find("bytes differ: 640 MiB (671088640 B) pageable, 320 MiB (335544320 "
                            "B) pinned"),
            std::string::npos)
      << c.evidence;
}

TEST(Prediction4, GroupsOfDifferentSizesDoNotCompare) {
  Trace t = lesson_trace();
  // Drop the last pinned timed call's copy record: the call no longer joins.
  for (auto it = t.copies.rbegin(); it != t.copies.rend(); ++it) {
    if (it->src_kind == DriverMemoryKind::kPinned && it->direction == CopyDirection::kH2D) {
      t.copies.erase(std::next(it).base());
      break;
    }
  }
  const Prediction4Evidence e = select_prediction4(t);
  EXPECT_EQ(e.pinned.call_ns.size(), 9u);
  ASSERT_EQ(e.notes.size(), 2u);
  EXPECT_EQ(e.notes[0],
            "1 cudaMemcpyAsync call(s) in 'part2 async h2d pinned' have no copy record and were "
            "left out");
  EXPECT_EQ(e.notes[1],
            "'part2 async h2d pinned' holds 9 timed host-to-device calls, the run "
            "asked for 10");
  const Prediction4Judgement j = judge_prediction4(e);
  EXPECT_EQ(j.verdict, Verdict::kNotEvaluated);
  EXPECT_EQ(j.reason,
            "the groups differ in size (10 pageable, 9 pinned calls), so their totals "
            "do not compare");
}

TEST(Prediction4, WithoutRangesCopiesAreGroupedByMemoryKind) {
  LessonTraceSpec s;
  s.ranges = false;
  const Prediction4Evidence e = select_prediction4(lesson_trace(s));
  EXPECT_EQ(e.selection, Selection::kMemoryKinds);
  EXPECT_EQ(e.pageable.call_ns, std::vector<double>(10, 9'300'000.0));
  EXPECT_EQ(e.pinned.call_ns, std::vector<double>(10, 12'000.0));
  // Part 2's device-to-host set-ups and part 3's set-up also read pageable memory.
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_EQ(e.notes[0],
            "3 later host-to-device cudaMemcpyAsync copies from pageable memory are not part 2's "
            "timed calls and were left out");
  EXPECT_EQ(judge_prediction4(e).verdict, Verdict::kHeld);
}

TEST(Prediction4, AnApiTraceAloneUsesThePageRule) {
  Trace t;
  t.source = "api only";
  std::int64_t now = 0;
  for (int i = 0; i < 22; ++i) {
    const std::int64_t d = i < 11 ? 14'000'000 : 6'000;
    t.api_calls.push_back({"cudaMemcpyAsync", now, now + d, 1, static_cast<std::uint32_t>(i + 1)});
    t.api_calls.push_back({"cudaStreamSynchronize", now + d, now + d + 10, 1, 0});
    now += d + 100;
  }
  const Prediction4Evidence e = select_prediction4(t);
  EXPECT_EQ(e.selection, Selection::kPageRule);
  EXPECT_EQ(e.pageable.call_ns.size(), 10u);
  EXPECT_FALSE(e.pageable.bytes.has_value());
  const Prediction4Judgement j = judge_prediction4(e);
  EXPECT_EQ(j.verdict, Verdict::kHeld);
  EXPECT_FALSE(j.bytes_equal.has_value());
  EXPECT_NE(prediction4_claim(e).evidence.find("bytes not checked"), std::string::npos);

  // Another timed count changes what the rule expects.
  Prediction4Options five;
  five.timed = 5;
  const Prediction4Evidence wrong = select_prediction4(t, five);
  EXPECT_EQ(wrong.unusable,
            "the page's rule needs exactly 12 cudaMemcpyAsync calls (1 warm-up and 5 timed per "
            "source, pageable first) and the API trace holds 22; a program with other "
            "cudaMemcpyAsync calls needs the GPU trace (cuda_gpu_trace) so copies can be grouped "
            "by memory kind");
  EXPECT_EQ(judge_prediction4(wrong).verdict, Verdict::kNotEvaluated);
}

TEST(Prediction4, ACopyTraceWithoutSizesIsNoProof) {
  Trace t = lesson_trace();
  for (Copy& c : t.copies) c.bytes = 0;
  const Prediction4Judgement j = judge_prediction4(select_prediction4(t));
  EXPECT_EQ(j.verdict, Verdict::kNotEvaluated);
  EXPECT_NE(j.reason.find("sizes are not all in the trace"), std::string::npos);
}

TEST(MemoryKindCheck, EveryRangeOfTheLessonPasses) {
  const std::vector<Gate> gates = check_memory_kinds(lesson_trace(), range_gates());
  ASSERT_EQ(gates.size(), 8u);
  for (const Gate& g : gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  const Gate* g = gate_named(gates, "trace/kind/async/h2d/pageable");
  ASSERT_NE(g, nullptr);
  // 11 copies in the range: the warm-up and 10 timed; the read-backs run the other way.
  EXPECT_EQ(g->detail,
            "the driver saw the source of all 11 host-to-device copies in 'part2 async "
            "h2d pageable' as pageable");
  g = gate_named(gates, "trace/kind/copy/d2h/pinned");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->detail,
            "the driver saw the destination of all 3 device-to-host copies in 'part1 "
            "d2h pinned' as pinned");
}

TEST(MemoryKindCheck, APinnedBufferThatIsNotPinnedFails) {
  LessonTraceSpec s;
  s.pinned_seen_as = DriverMemoryKind::kPageable;
  const std::vector<Gate> gates = check_memory_kinds(lesson_trace(s), range_gates());
  const Gate* g = gate_named(gates, "trace/kind/async/h2d/pinned");
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->passed);
  EXPECT_NE(g->detail.find("the driver saw the source of 11 of 11 host-to-device copies in "
                           "'part2 async h2d pinned' as not pinned; first: cudaMemcpyAsync "
                           "(correlation "),
            std::string::npos)
      << g->detail;
  EXPECT_NE(g->detail.find(") saw pageable"), std::string::npos) << g->detail;
  EXPECT_TRUE(gate_named(gates, "trace/kind/async/h2d/pageable")->passed);
}

TEST(MemoryKindCheck, ARangeWithNoCopiesFailsAndNoRangesMeansNoGates) {
  Trace t = lesson_trace();
  t.copies.clear();
  const std::vector<Gate> gates = check_memory_kinds(t, range_gates());
  ASSERT_FALSE(gates.empty());
  EXPECT_FALSE(gates[0].passed);
  EXPECT_EQ(gates[0].detail,
            "no host-to-device copy was traced inside NVTX range 'part1 h2d "
            "pageable' (records lost?)");
  LessonTraceSpec s;
  s.ranges = false;
  EXPECT_TRUE(check_memory_kinds(lesson_trace(s), range_gates()).empty());
}

TEST(Prediction4Record, EvidenceSurvivesJson) {
  const Prediction4Evidence e = select_prediction4(lesson_trace());
  const Prediction4Evidence back = prediction4_from_json(nlohmann::json::parse(to_json(e).dump()));
  EXPECT_EQ(to_json(back), to_json(e));
  EXPECT_THROW(prediction4_from_json(nlohmann::json::array()), InputError);
  nlohmann::json bad = to_json(e);
  bad["pinned"]["call_ns"] = "fast";
  EXPECT_THROW(prediction4_from_json(bad), InputError);
  bad = to_json(e);
  bad["selection"] = "guesswork";
  EXPECT_THROW(prediction4_from_json(bad), InputError);
  bad = to_json(e);
  bad["pageable"]["call_ns"][0] = -1.0;
  EXPECT_THROW(prediction4_from_json(bad), InputError);
}

TEST(Prediction4Record, ATracedRecordIsJudgedOnReplay) {
  RunRecord r = test::make_lesson_record();
  const std::size_t before = r.gates.size();
  attach_trace(r, lesson_trace(), "run.trace.json");
  EXPECT_EQ(r.gates.size(), before + 8);  // one memory-kind gate per part 1 and 2 range
  const RunRecord back = record_from_json(nlohmann::json::parse(to_json(r).dump()));
  EXPECT_EQ(back.trace, r.trace);
  EXPECT_EQ(back.trace["file"], "run.trace.json");
  EXPECT_EQ(back.trace["api_calls"], lesson_trace().api_calls.size());

  const LessonAnalysis a = analyse_lesson(back);
  EXPECT_TRUE(a.checks_passed());
  ASSERT_TRUE(a.trace_evidence.has_value());
  const Prediction& p4 = a.predictions.at(3);
  EXPECT_EQ(p4.verdict, Verdict::kHeld);
  EXPECT_EQ(p4.claims.at(0).evidence,
            "10 pageable calls 93.000 ms, 10 pinned calls 0.120 ms: 775.0x; both moved 640 MiB "
            "(671088640 B) (hand-made, calls in part 2's NVTX ranges)");
  EXPECT_EQ(a.trace_summary, "hand-made: " + std::to_string(lesson_trace().api_calls.size()) +
                                 " API calls, " + std::to_string(lesson_trace().copies.size()) +
                                 " copies, 3 kernels, 9 NVTX ranges; timeline in run.trace.json.");

  const std::string text = render_lesson_text(back, a, std::nullopt);
  EXPECT_NE(text.find("  4. [held] In a trace"), std::string::npos) << text;
  EXPECT_NE(text.find("\nTrace\n  hand-made: "), std::string::npos) << text;
}

TEST(Prediction4Record, AKindMismatchFailsTheRun) {
  RunRecord r = test::make_lesson_record();
  LessonTraceSpec s;
  s.pinned_seen_as = DriverMemoryKind::kPageable;
  attach_trace(r, lesson_trace(s), "");
  const LessonAnalysis a = analyse_lesson(r);
  EXPECT_FALSE(a.checks_passed());
  bool named = false;
  for (const std::string& f : a.check_failures) {
    named = named || f.rfind("gate trace/kind/async/h2d/pinned failed: ", 0) == 0;
  }
  EXPECT_TRUE(named);
  // With every "pinned" copy seen as pageable, the pinned group is empty.
  EXPECT_EQ(a.predictions.at(3).verdict, Verdict::kNotEvaluated);
}

TEST(Prediction4Record, AnUntracedRecordSaysHowToGetATrace) {
  const LessonAnalysis a = analyse_lesson(test::make_lesson_record());
  EXPECT_FALSE(a.trace_evidence.has_value());
  EXPECT_TRUE(a.trace_summary.empty());
  EXPECT_EQ(a.predictions.at(3).verdict, Verdict::kNotEvaluated);
  EXPECT_NE(a.predictions.at(3).claims[0].evidence.find("--trace FILE"), std::string::npos);
}

TEST(Prediction4Record, AMalformedTraceObjectIsBadInput) {
  nlohmann::json j = to_json(test::make_lesson_record());
  j["trace"] = "yes";
  EXPECT_THROW(record_from_json(j), InputError);
  j["trace"] = {{"api_calls", "many"}};
  EXPECT_THROW(analyse_lesson(record_from_json(j)), InputError);
}

// Traced lesson runs committed under data/runs/ with their timelines: the record's prediction 4
// evidence must be what the timeline itself says, and every memory-kind gate must have passed.
TEST(CommittedTrace, EveryTracedRunAgreesWithItsTimeline) {
  namespace fs = std::filesystem;
  std::size_t traced = 0;
  for (const fs::directory_entry& f :
       fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    if (f.path().extension() != ".json") continue;
    RunRecord r;
    try {
      r = load_record(f.path().string());
    } catch (const InputError&) {
      continue;  // a timeline, not a record
    }
    if (!r.trace.is_object()) continue;
    ++traced;
    SCOPED_TRACE(f.path().string());
    const LessonAnalysis a = analyse_lesson(r);
    ASSERT_TRUE(a.trace_evidence.has_value());
    EXPECT_NE(a.predictions.at(3).verdict, Verdict::kNotEvaluated);
    std::size_t kind_gates = 0;
    for (const Gate& g : r.gates) {
      if (g.name.rfind("trace/kind/", 0) != 0) continue;
      ++kind_gates;
      EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
    }
    EXPECT_EQ(kind_gates, 8u);

    const std::string timeline =
        (f.path().parent_path() / r.trace["file"].get<std::string>()).string();
    ASSERT_TRUE(fs::exists(timeline)) << timeline;
    const Trace t = trace_from_perfetto(nlohmann::json::parse(test::read_file(timeline)));
    EXPECT_EQ(t.api_calls.size(), r.trace["api_calls"].get<std::size_t>());
    EXPECT_EQ(t.copies.size(), r.trace["copies"].get<std::size_t>());
    EXPECT_EQ(t.kernels.size(), r.trace["kernels"].get<std::size_t>());
    EXPECT_EQ(t.ranges.size(), r.trace["nvtx_ranges"].get<std::size_t>());
    Prediction4Options options;
    options.timed = lesson_config_from(r.config).async_iterations;
    const Prediction4Evidence again = select_prediction4(t, options);
    EXPECT_EQ(again.pageable.call_ns, a.trace_evidence->pageable.call_ns);
    EXPECT_EQ(again.pinned.call_ns, a.trace_evidence->pinned.call_ns);
    EXPECT_EQ(again.pageable.bytes, a.trace_evidence->pageable.bytes);
    std::vector<Gate> gates = check_memory_kinds(t, range_gates());
    for (const Gate& g : gates) EXPECT_TRUE(g.passed) << g.name << ": " << g.detail;
  }
  if (traced == 0) GTEST_SKIP() << "no traced lesson run is committed under data/runs/ yet";
}

}  // namespace
}  // namespace pinbench

namespace pinbench {
namespace {

TEST(MemoryKindCheck, SweepRangesAreCheckedToo) {
  // Two sweep cases: registered memory must read as pinned, pageable-thp as pageable; the
  // ranges of managed memory and of SM copies name no kind and are left alone.
  Trace t;
  t.source = "hand-made";
  auto add_case = [&](const std::string& range, DriverMemoryKind seen, std::int64_t at,
                      std::uint32_t correlation) {
    t.ranges.push_back({range, "pinbench", at, at + 1000, 1});
    t.api_calls.push_back({"cudaMemcpyAsync", at + 100, at + 200, 1, correlation});
    t.copies.push_back({CopyDirection::kH2D, 4096, at + 300, at + 400, 13, seen,
                        DriverMemoryKind::kDevice, correlation});
  };
  add_case("sweep registered/ce h2d pinned", DriverMemoryKind::kPinned, 0, 1);
  add_case("sweep pageable-thp/ce h2d pageable", DriverMemoryKind::kPinned, 2000, 2);
  add_case("sweep managed/ce h2d", DriverMemoryKind::kManaged, 4000, 3);
  add_case("sweep pinned/sm h2d", DriverMemoryKind::kPinned, 6000, 4);  // a kernel's copy
  const std::vector<Gate> gates = check_memory_kinds(t, range_gates());
  ASSERT_EQ(gates.size(), 2u);
  EXPECT_EQ(gates[0].name, "trace/kind/sweep/registered/ce/h2d/pinned");
  EXPECT_TRUE(gates[0].passed) << gates[0].detail;
  EXPECT_EQ(gates[1].name, "trace/kind/sweep/pageable-thp/ce/h2d/pageable");
  EXPECT_FALSE(gates[1].passed);
}

// A descriptor's range gates are word patterns: a range is claimed by the first whose words are
// its own before the direction and kind, "{}" standing for any one word, which the part takes.
TEST(MemoryKindCheck, ARangeGateClaimsTheRangesItsWordsName) {
  Trace t;
  t.source = "hand-made";
  std::uint32_t correlation = 0;
  for (const char* range : {"probe h2d pinned", "probe shape/ce h2d pinned",
                            "probe two words h2d pinned", "other h2d pinned", "probe d2h pinned"}) {
    const std::int64_t at = 2000 * ++correlation;
    t.ranges.push_back({range, "pinbench", at, at + 1000, 1});
    t.api_calls.push_back({"cudaMemcpyAsync", at + 100, at + 200, 1, correlation});
    t.copies.push_back({CopyDirection::kH2D, 4096, at + 300, at + 400, 13,
                        DriverMemoryKind::kPinned, DriverMemoryKind::kDevice, correlation});
  }
  const std::vector<RangeGate> claims = {{"probe", "whole"}, {"probe {}", "probe/{}"}};
  const std::vector<Gate> gates = check_memory_kinds(t, claims);
  ASSERT_EQ(gates.size(), 3u);
  EXPECT_EQ(gates[0].name, "trace/kind/whole/h2d/pinned");
  EXPECT_TRUE(gates[0].passed) << gates[0].detail;
  EXPECT_EQ(gates[1].name, "trace/kind/probe/shape/ce/h2d/pinned");
  EXPECT_TRUE(gates[1].passed) << gates[1].detail;
  // Its range holds no device-to-host copy: a gate, failed, and not a range left unclaimed.
  EXPECT_EQ(gates[2].name, "trace/kind/whole/d2h/pinned");
  EXPECT_FALSE(gates[2].passed);
  // The lesson's and the sweep's are every registered experiment's.
  std::vector<std::string> registered;
  for (const RangeGate& g : range_gates()) registered.push_back(g.range + " -> " + g.part);
  EXPECT_EQ(registered, (std::vector<std::string>{"part1 -> copy", "part2 async -> async",
                                                  "sweep {} -> sweep/{}"}));
}

}  // namespace
}  // namespace pinbench
