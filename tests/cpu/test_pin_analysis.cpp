// `pinbench pin` without a GPU: a hand-made record (tests/data/pin/, figures shaped like a probe
// on an H100 VM) read, analysed and rendered by every printer; the arena's goals held, missed and
// not judgeable on crafted figures; every bad field refused in one line naming it; a stranger's
// words printed without their control bytes; and the command line's bad input, replay and
// no-GPU answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/pin/analysis.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::pin;
namespace {

using nlohmann::json;

const std::string kBin = std::string(PINBENCH_BINARY) + " ";
const std::string kFixture = std::string(PINBENCH_TEST_DATA_DIR) + "/pin/pin-h100-hand-made.json";

// The fixture's cases, by index: each method at 1 GiB then 32 GiB (cudaHostAlloc, portable,
// cudaHostRegister, THP, the arena at 32 MiB x 16, at 64 MiB x 8), then each one's copies, h2d
// then d2h, in the same order.
constexpr int kHostAlloc32 = 1, kRegister32 = 5, kArena32Of32 = 9, kArena64Of1 = 10,
              kArena64Of32 = 11, kArena64H2d = 22;

json fixture() {
  return json::parse(test::read_file(kFixture));
}

PinAnalysis analysed(const json& j) {
  return analyse_pin(record_from_json(j));
}

// What reading `j` as a record says: "(read)", or the InputError's line.
std::string error_of(const json& j) {
  try {
    const RunRecord r = record_from_json(j);
    analyse(r);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(read)";
}

// The record with case `i`'s gate failed, as a measurement that met a CUDA error writes it.
void fail_case(json& j, int i, const std::string& why) {
  j["cases"][i]["verified"] = false;
  for (json& g : j["gates"]) {
    if (g["name"] == j["cases"][i]["gate"]) {
      g["passed"] = false;
      g["detail"] = why;
    }
  }
}

std::vector<Verdict> verdicts(const PinAnalysis& a) {
  std::vector<Verdict> out;
  for (const PinGoal& g : a.goals) out.push_back(g.verdict);
  return out;
}

std::string evidence(const PinAnalysis& a, std::size_t goal, std::size_t claim) {
  return a.goals.at(goal).claims.at(claim).evidence;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- the analysis -------------------------------------------------------------------------------

TEST(PinAnalysis, TheHandMadeRecordReadsAsItsFigures) {
  const RunRecord r = load_record(kFixture);
  const PinAnalysis a = analyse_pin(r);
  ASSERT_EQ(a.pins.size(), 12u);
  ASSERT_EQ(a.copies.size(), 6u);
  EXPECT_EQ(a.pins.front().label(), "cudaHostAlloc");
  EXPECT_EQ(a.pins.back().label(), "PinnedArena 64 MiB x 8");
  ASSERT_TRUE(a.judged_bytes);
  EXPECT_EQ(*a.judged_bytes, 32 * kGiB);
  ASSERT_TRUE(a.arena && a.host_alloc);
  const PinRow& arena = a.pins[*a.arena];
  EXPECT_EQ(arena.label(), "PinnedArena 64 MiB x 8");  // the faster of the two configurations
  EXPECT_NEAR(*arena.gb_per_s, 32.0 * kGiB / 1e9 / 0.970, 1e-9);
  EXPECT_NEAR(*a.pins[*a.host_alloc].gb_per_s, 32.0 * kGiB / 1e9 / 17.4, 1e-9);
  EXPECT_EQ(arena.neighbour->calls, 485u);
  EXPECT_DOUBLE_EQ(*arena.longest_chunk_ms, 15.2);
  EXPECT_EQ(a.section.limits.size(), 2u);
  EXPECT_EQ(a.section.refused.size(), 5u);
  EXPECT_EQ(a.section.skipped.size(), 1u);
  EXPECT_EQ(a.section.facts.max_map_count, 8250391u);
  EXPECT_FALSE(a.section.facts.memlock_bytes);
  EXPECT_EQ(verdicts(a),
            (std::vector<Verdict>{Verdict::kHeld, Verdict::kHeld, Verdict::kHeld, Verdict::kHeld}));
  EXPECT_EQ(evidence(a, 0, 0),
            "at 32 GiB: PinnedArena 64 MiB x 8 pinned at 35.42 GB/s, cudaHostAlloc at 1.97 "
            "GB/s: 17.94x");
  // The goal on the neighbour shows cudaHostAlloc's, cudaHostRegister's and the idle figures.
  EXPECT_TRUE(has(evidence(a, 1, 0), "cudaHostAlloc: p99 790.00 ms, worst 833.00 ms"))
      << evidence(a, 1, 0);
  EXPECT_TRUE(has(evidence(a, 1, 0), "cudaHostRegister: p99 350.00 ms, worst 379.00 ms"));
  EXPECT_TRUE(has(evidence(a, 1, 0), "idle: p99 0.06 ms, worst 0.21 ms over 5000 calls"));
  EXPECT_EQ(evidence(a, 3, 1), "5 refused, each naming its limit");
  EXPECT_TRUE(has(a.advice,
                  "What to use: PinnedArena with 64 MiB chunks on 8 threads: it "
                  "pinned 32 GiB at 35.42 GB/s"))
      << a.advice;
}

TEST(PinAnalysis, TheSectionRoundTripsThroughItsStruct) {
  const json j = fixture();
  // The host's facts are written as check's are (framework/host_pin_facts.hpp): an absent value
  // is no key. The fixture, as records made before that, writes null; both read as absent.
  json expected = j["pin"];
  ASSERT_TRUE(expected["facts"]["memlock_bytes"].is_null());
  expected["facts"].erase("cgroup_memory_bytes");
  expected["facts"].erase("memlock_bytes");
  EXPECT_EQ(to_json(pin_section_from(j["pin"])), expected);
  EXPECT_EQ(to_json(pin_section_from(expected)), expected);
  const RunRecord r = record_from_json(j);
  EXPECT_EQ(to_json(record_from_json(to_json(r))), to_json(r));
}

TEST(PinAnalysis, ArenaConfigurationsOfOneSizeAreTwoShapes) {
  const RunRecord r = load_record(kFixture);
  const Experiment& e = experiment_for("pin");
  EXPECT_EQ(e.case_shape(r.cases[kArena32Of32]).text, "32 MiB x 16");
  EXPECT_EQ(e.case_shape(r.cases[kArena64Of32]).key, (std::vector<std::uint64_t>{64 * kMiB, 8}));
  EXPECT_TRUE(e.case_shape(r.cases[kHostAlloc32]).key.empty());
  EXPECT_EQ(conditions_of(r).back(), (Condition{"the neighbour's interval", "2000 µs"}));
}

// --- the goals, held and missed -----------------------------------------------------------------

TEST(PinGoals, AnArenaNoFasterThanThreeTimesCudaHostAllocMissesTheFirstGoal) {
  json j = fixture();
  j["cases"][kArena32Of32]["samples_ms"] = {6000.0};
  j["cases"][kArena64Of32]["samples_ms"] = {5900.0};
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(a.goals[0].verdict, Verdict::kDied);
  EXPECT_EQ(a.goals[0].claims[0].verdict, Verdict::kDied);
  EXPECT_EQ(a.goals[0].claims[1].verdict, Verdict::kHeld);  // its first GiB still came soon
  EXPECT_TRUE(has(evidence(a, 0, 0), ": 2.95x")) << evidence(a, 0, 0);
}

// The goals are the arena's as a caller gets it: its default configuration where the record
// names it and measured it, whatever was faster; the fastest where it names none.
TEST(PinGoals, TheArenasDefaultsAreJudgedWhereTheRecordNamesThem) {
  json j = fixture();
  EXPECT_TRUE(has(evidence(analysed(j), 0, 0), "PinnedArena 64 MiB x 8"))
      << evidence(analysed(j), 0, 0);
  EXPECT_FALSE(analysed(j).judged_default);
  j["pin"]["facts"]["arena_default_chunk_bytes"] = 32ull << 20;
  j["pin"]["facts"]["arena_default_threads"] = 16;
  const PinAnalysis a = analysed(j);
  EXPECT_TRUE(a.judged_default);
  EXPECT_TRUE(has(evidence(a, 0, 0), "PinnedArena 32 MiB x 16")) << evidence(a, 0, 0);
  EXPECT_TRUE(has(pin_goals(a).note, "default configuration")) << pin_goals(a).note;
  // Defaults that were not measured: the fastest again.
  j["pin"]["facts"]["arena_default_threads"] = 4;
  EXPECT_FALSE(analysed(j).judged_default);
  // Both or neither.
  j["pin"]["facts"].erase("arena_default_threads");
  EXPECT_TRUE(has(error_of(j), "arena_default_threads")) << error_of(j);
}

TEST(PinGoals, AFirstGibAfterOneHundredMillisecondsMissesIt) {
  json j = fixture();
  j["cases"][kArena64Of32]["extra"]["first_gib_ms"] = 100.0;
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(a.goals[0].claims[1].verdict, Verdict::kDied);
  EXPECT_EQ(evidence(a, 0, 1),
            "PinnedArena 64 MiB x 8: first GiB usable after 100.0 ms (cudaHostAlloc: 17400.0 ms)");
}

TEST(PinGoals, TheNeighboursP99OrWorstCallPastItsBoundMissesTheSecondGoal) {
  json j = fixture();
  j["cases"][kArena64Of32]["extra"]["nb_p99_ms"] = 1.0;
  PinAnalysis a = analysed(j);
  EXPECT_EQ(a.goals[1].claims[0].verdict, Verdict::kDied);
  EXPECT_EQ(a.goals[1].claims[1].verdict, Verdict::kHeld);
  // What to use is then the other configuration, the fastest whose p99 stayed under 1 ms.
  EXPECT_TRUE(has(a.advice, "PinnedArena with 32 MiB chunks on 16 threads")) << a.advice;

  j = fixture();
  j["cases"][kArena64Of32]["extra"]["nb_max_ms"] = 15.2;  // the longest pinning call's
  a = analysed(j);
  EXPECT_EQ(a.goals[1].claims[0].verdict, Verdict::kHeld);
  EXPECT_EQ(a.goals[1].claims[1].verdict, Verdict::kDied);
  EXPECT_EQ(evidence(a, 1, 1), "worst call 15.20 ms against the longest pinning call's 15.20 ms");
}

TEST(PinGoals, ACopyFromTheArenaMoreThanTwoPercentSlowerMissesTheThirdGoal) {
  json j = fixture();
  for (json& ms : j["cases"][kArena64H2d]["samples_ms"]) ms = ms.get<double>() * 1.03;
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(a.goals[2].claims[0].verdict, Verdict::kDied);
  EXPECT_EQ(a.goals[2].claims[1].verdict, Verdict::kHeld);
  EXPECT_TRUE(has(evidence(a, 2, 0), "PinnedArena 64 MiB x 8: 53.")) << evidence(a, 2, 0);
}

TEST(PinGoals, ASizePastALimitAttemptedOrARefusalNamingNoneMissesTheFourthGoal) {
  json j = fixture();
  json past = j["cases"][kHostAlloc32];
  past["bytes"] = 128 * kGiB;
  past["gate"] = "pin/cudahostalloc/128GiB";
  past["samples_ms"] = {70000.0};
  past["extra"]["first_gib_ms"] = 70000.0;
  j["cases"].push_back(past);
  j["gates"].push_back({{"name", "pin/cudahostalloc/128GiB"}, {"passed", true}, {"detail", ""}});
  j["pin"]["refused"][1]["why"] = "too big";
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(a.goals[3].claims[0].verdict, Verdict::kDied);
  EXPECT_EQ(evidence(a, 3, 0),
            "cudaHostAlloc at 128 GiB was attempted past the memory this process may use (118 "
            "GiB)");
  EXPECT_EQ(a.goals[3].claims[1].verdict, Verdict::kDied);
  EXPECT_TRUE(has(evidence(a, 3, 1), "'too big', which names no recorded limit"));
}

TEST(PinGoals, AnArenaThatFailedItsGateMissesTheGoalsItWasJudgedOn) {
  json j = fixture();
  fail_case(j, kArena32Of32, "cudaHostRegister: invalid argument");
  fail_case(j, kArena64Of32, "cudaHostRegister: invalid argument");
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(verdicts(a),
            (std::vector<Verdict>{Verdict::kDied, Verdict::kDied, Verdict::kDied, Verdict::kHeld}));
  EXPECT_EQ(evidence(a, 0, 0),
            "every PinnedArena configuration at 32 GiB failed its gate (cudaHostRegister: "
            "invalid argument)");
  EXPECT_EQ(a.pins[kArena64Of32].gb_per_s, std::nullopt);
  // What to use is judged at that size still: nothing there kept the neighbour's p99 low.
  EXPECT_EQ(a.advice,
            "What to use: no way of pinning kept the neighbour's p99 call under 1 ms at 32 GiB; "
            "the fastest, cudaHostRegister, pinned at 3.18 GB/s with a p99 of 350.00 ms.");
  EXPECT_EQ(exit_code(analyse(record_from_json(j))), 1);
}

// With every pin at the judged size failed, what to use comes from the largest size with figures.
TEST(PinGoals, WhatToUseComesFromTheLargestSizeWithFigures) {
  json j = fixture();
  for (int i = 1; i < 12; i += 2) fail_case(j, i, "out of memory");
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(a.judged_bytes, 32 * kGiB);
  EXPECT_TRUE(has(a.advice,
                  "What to use: PinnedArena with 32 MiB chunks on 16 threads: it pinned "
                  "1 GiB at 23.86 GB/s"))
      << a.advice;
  json none = fixture();
  for (int i = 0; i < 12; ++i) fail_case(none, i, "out of memory");
  EXPECT_EQ(analysed(none).advice,
            "What to use: no pin has a figure, so there is nothing to go by.");
}

// --- goals not judgeable ------------------------------------------------------------------------

TEST(PinGoals, WithoutCudaHostAllocAtTheArenasSizesTheGoalsAreNotEvaluated) {
  json j = fixture();
  json kept = json::array();
  for (const json& c : j["cases"]) {
    if (c["method"] != "cudaHostAlloc") kept.push_back(c);
  }
  j["cases"] = kept;
  const PinAnalysis a = analysed(j);
  EXPECT_FALSE(a.judged_bytes);
  EXPECT_EQ(verdicts(a), (std::vector<Verdict>{Verdict::kNotEvaluated, Verdict::kNotEvaluated,
                                               Verdict::kNotEvaluated, Verdict::kHeld}));
  EXPECT_EQ(evidence(a, 0, 0),
            "no size where both PinnedArena and cudaHostAlloc were measured (PinnedArena: 1 GiB, "
            "32 GiB; cudaHostAlloc: none)");
  const RunRecord r = record_from_json(j);
  const ReportModel m = analyse(r);
  EXPECT_TRUE(
      has(render_text(m), "no size where both PinnedArena and cudaHostAlloc were measured"));
  EXPECT_TRUE(has(render_markdown(m), "the arena's goals are not evaluated"));
  // What to use still comes from the figures there are.
  EXPECT_TRUE(has(a.advice, "PinnedArena with 64 MiB chunks on 8 threads")) << a.advice;
}

TEST(PinGoals, WithoutANeighbourItsGoalIsNotEvaluatedAndWhatToUseSaysSo) {
  json j = fixture();
  j["config"]["neighbour_interval_us"] = 0;
  j["pin"]["neighbour_idle"] = nullptr;
  for (json& c : j["cases"]) {
    if (c["part"] != "pin") continue;
    for (const char* k : {"nb_calls", "nb_p50_ms", "nb_p99_ms", "nb_max_ms", "nb_free_max_ms"}) {
      c["extra"].erase(k);
    }
  }
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(verdicts(a), (std::vector<Verdict>{Verdict::kHeld, Verdict::kNotEvaluated,
                                               Verdict::kHeld, Verdict::kHeld}));
  EXPECT_EQ(evidence(a, 1, 0), "no neighbour ran (config.neighbour_interval_us is 0)");
  EXPECT_TRUE(has(a.advice,
                  "no neighbour ran, so what pinning costs other processes was not "
                  "measured"))
      << a.advice;
  EXPECT_EQ(conditions_of(record_from_json(j)).back(),
            (Condition{"the neighbour's interval", "no neighbour"}));
}

// --- every printer ------------------------------------------------------------------------------

void expect_within_columns(const std::string& text, std::size_t columns) {
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    std::size_t width = 0;  // code points
    for (unsigned char c : line) width += (c & 0xC0) != 0x80 ? 1 : 0;
    EXPECT_LE(width, columns) << "line " << n << ": " << line;
  }
}

TEST(PinPrinters, EveryPrinterShowsTheFiguresTheLimitsAndTheGoals) {
  const RunRecord r = load_record(kFixture);
  const ReportModel m = analyse(r);
  EXPECT_EQ(exit_code(m), 0);
  const std::string text = render_text(m);
  expect_within_columns(text, 100);
  for (const char* part :
       {"pinbench pin on NVIDIA H100 80GB HBM3", "What to use: PinnedArena with 64 MiB chunks",
        "Pinning: how fast each way pins", "35.42", "833.00", "17400.0", "What bounds pinning here",
        "memory this process may use", "vm.max_map_count", "8250391 (130 held)",
        "Refused, never attempted", "128 GiB crosses", "Skipped", "no free huge pages",
        "Goals (what the arena aims for", "1. PinnedArena pins at least 3x", "held",
        "at 32 GiB: PinnedArena 64 MiB x 8 pinned at 35.42 GB/s"}) {
    EXPECT_TRUE(has(test::unwrapped(text), part)) << part << "\n" << text;
  }
  const std::string md = render_markdown(m);
  EXPECT_TRUE(has(md, "| PinnedArena 64 MiB x 8 | 32 GiB | 35.42 |")) << md;
  EXPECT_TRUE(has(md, "Copies from each kind of pinned memory")) << md;
  EXPECT_TRUE(has(md, "Judged at 32 GiB, the largest size where both")) << md;
  const std::string csv = render_csv(m);
  EXPECT_TRUE(has(csv, "pin,pin,PinnedArena,host,pinned,host_clock,34359738368,32 GiB,1,970."))
      << csv;
  EXPECT_TRUE(has(csv, "goals,1,at least 3x cudaHostAlloc's GB/s,held")) << csv;
  const std::string html = render_html(r, m, {});
  for (const char* part : {"GB/s pinned, by method and size",
                           "The neighbour&#39;s worst call while each way pinned 32 GiB",
                           "What to use: PinnedArena", "What bounds pinning here"}) {
    EXPECT_TRUE(has(html, part)) << part;
  }
}

// A stranger's words in the section (a refusal's method and reason, a limit's name, the THP
// mode) reach every printer without their control bytes; a case's method is a fixed name, and
// one with control bytes is refused.
TEST(PinPrinters, ControlBytesInTheSectionsWordsReachNoPrinter) {
  const std::string hostile = std::string("\x1b]0;owned\x07\x1b[31m\r\b") + '\0' + "!";
  json j = fixture();
  j["pin"]["refused"][0]["method"] = "cudaHostAlloc" + hostile;
  j["pin"]["refused"][0]["why"] = j["pin"]["refused"][0]["why"].get<std::string>() + hostile;
  j["pin"]["skipped"][0]["method"] = "cudaHostRegister hugetlbfs" + hostile;
  j["pin"]["limits"][0]["name"] = "memory this process may use" + hostile;
  j["pin"]["facts"]["thp_mode"] = "madvise" + hostile;
  const RunRecord r = record_from_json(j);
  const ReportModel m = analyse(r);
  const auto clean = [](const std::string& text, const char* what) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto b = static_cast<unsigned char>(text[i]);
      const bool row_end = b == '\r' && i + 1 < text.size() && text[i + 1] == '\n';
      EXPECT_FALSE(((b < 0x20 && b != '\n' && b != '\t' && !row_end) || b == 0x7F))
          << what << ": byte " << int(b) << " at " << i;
    }
  };
  clean(render_text(m), "text");
  clean(render_markdown(m), "markdown");
  clean(render_csv(m), "csv");
  clean(render_html(r, m, {}), "html");
  json bad = fixture();
  bad["cases"][0]["method"] = "cudaHostAlloc" + hostile;
  EXPECT_TRUE(has(error_of(bad), "run record: 'cases[0].method' is 'cudaHostAlloc"));
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/bad.json", bad.dump());
  const test::Result out = test::run(kBin + "report " + dir + "/bad.json");
  EXPECT_EQ(out.exit_code, 2);
  clean(out.err, "stderr");
}

// --- bad fields ---------------------------------------------------------------------------------

TEST(PinRecord, EachBadFieldIsRefusedInOneLineNamingIt) {
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& j) { j["cases"][0]["extra"]["free_ms"] = -3.0; }, "'cases[0].extra.free_ms'"},
      {[](json& j) { j["cases"][0]["extra"]["first_gib_ms"] = "soon"; },
       "'cases[0].extra.first_gib_ms'"},
      {[](json& j) { j["cases"][0]["bytes"] = "1GiB"; }, "'cases[0].bytes'"},
      {[](json& j) { j["config"]["sizes"] = {"1GiB"}; }, "'config.sizes"},
      {[](json& j) { j["config"]["sizes"] = 1073741824; },
       "'config.sizes' is 1073741824, not a list"},
      {[](json& j) { j["config"]["methods"] = {"teleport"}; },
       "'config.methods[0]' is 'teleport', not one of cudaHostAlloc, "},
      {[](json& j) { j["pin"]["limits"][0]["bytes"] = "118GiB"; }, "'pin.limits[0].bytes'"},
      {[](json& j) { j["pin"]["limits"][1]["per_call"] = "yes"; }, "'pin.limits[1].per_call'"},
      {[](json& j) { j["pin"]["limits"][0]["name"] = ""; }, "'pin.limits[0].name' is empty"},
      {[](json& j) { j["pin"]["facts"].erase("map_count"); }, "'pin.facts.map_count' is missing"},
      {[](json& j) { j["pin"]["facts"]["max_map_count"] = -1; }, "'pin.facts.max_map_count'"},
      {[](json& j) { j["pin"]["refused"][2].erase("why"); }, "'pin.refused[2].why' is missing"},
      {[](json& j) { j["pin"]["skipped"] = "none"; }, "'pin.skipped' is not an array"},
      {[](json& j) { j["pin"]["neighbour_idle"]["p99_ms"] = 0.5; },
       "'pin.neighbour_idle.max_ms' is 0.21 ms, below the p99 call's 0.5 ms"},
      {[](json& j) { j["pin"]["neighbour_idle"] = nullptr; },
       "'pin.neighbour_idle' is null, but config.neighbour_interval_us is 2000: a neighbour ran"},
      {[](json& j) { j.erase("pin"); }, "'pin' is missing"},
      {[](json& j) { j["cases"][0]["extra"].erase("nb_p99_ms"); },
       "'cases[0].extra.nb_p99_ms' is missing"},
      {[](json& j) { j["cases"][0]["extra"].erase("nb_free_max_ms"); },
       "'cases[0].extra.nb_free_max_ms' is missing"},
      {[](json& j) { j["cases"][0]["extra"]["nb_calls"] = 2.5; }, "'cases[0].extra.nb_calls'"},
      {[](json& j) { j["cases"][0]["extra"]["nb_p50_ms"] = 100.0; },
       "'cases[0].extra.nb_p99_ms' is 30.1 ms, below the median call's 100 ms"},
      {[](json& j) { j["cases"][kArena64Of1]["extra"].erase("chunk_bytes"); },
       "'cases[10].extra.chunk_bytes' is missing"},
      {[](json& j) { j["cases"][kArena64Of1]["extra"]["threads"] = 0; },
       "'cases[10].extra.threads' is 0, less than a count allows (1)"},
      {[](json& j) { j["cases"][kArena64Of32]["extra"]["longest_chunk_ms"] = 2000.0; },
       "'cases[11].extra.longest_chunk_ms' is 2000 ms, longer than the whole pin (970 ms)"},
      {[](json& j) { j["cases"][kRegister32]["extra"]["first_gib_ms"] = 20000.0; },
       "'cases[5].extra.first_gib_ms' is 20000 ms, after the whole size was usable (10800 ms)"},
      {[](json& j) {
         j["cases"][0]["samples_ms"] = {560.0, 561.0};
       },
       "'cases[0].samples_ms' holds 2 samples, not one"},
      {[](json& j) { j["cases"][0]["method"] = "teleport"; }, "'cases[0].method' is 'teleport'"},
      {[](json& j) { j["cases"][0]["direction"] = "h2d"; },
       "'cases[0].direction' is 'h2d', not host (a pin case)"},
      {[](json& j) { j["cases"][12]["direction"] = "host"; },
       "'cases[12].direction' is 'host', not h2d or d2h"},
      {[](json& j) { j["cases"][0]["part"] = "alone"; },
       "'cases[0].part' is 'alone', not pin or copy"},
      {[](json& j) { j["cases"].push_back(j["cases"][kHostAlloc32]); },
       "'cases[24]' pins cudaHostAlloc 32 GiB a second time"},
      {[](json& j) { j["cases"].push_back(j["cases"][kArena64H2d]); },
       "'cases[24]' copies h2d 1 GiB from PinnedArena 64 MiB x 8 a second time"},
  };
  EXPECT_EQ(error_of(fixture()), "(read)");
  for (const auto& [change, field] : cases) {
    json j = fixture();
    change(j);
    const std::string e = error_of(j);
    EXPECT_EQ(e.rfind("run record: ", 0), 0u) << e;
    EXPECT_TRUE(has(e, field)) << "expected " << field << "\n     got " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(PinRecord, ANeighboursFiguresWithoutANeighbourAreRefused) {
  json j = fixture();
  j["config"]["neighbour_interval_us"] = 0;
  j["pin"]["neighbour_idle"] = nullptr;
  EXPECT_EQ(error_of(j),
            "run record: 'cases[0].extra' holds the neighbour's figures, but "
            "config.neighbour_interval_us is 0: no neighbour ran");
}

TEST(PinRecord, AFailedPinNeedsNoFiguresButKeepsThoseItHasChecked) {
  json j = fixture();
  fail_case(j, kRegister32, "cudaHostRegister: out of memory");
  for (const char* k : {"first_gib_ms", "free_ms", "nb_calls", "nb_p50_ms", "nb_p99_ms",
                        "nb_max_ms", "nb_free_max_ms"}) {
    j["cases"][kRegister32]["extra"].erase(k);
  }
  const PinAnalysis a = analysed(j);
  EXPECT_EQ(a.pins[kRegister32].gate_detail, "cudaHostRegister: out of memory");
  EXPECT_FALSE(a.pins[kRegister32].neighbour);
  const RunRecord r = record_from_json(j);
  const ReportModel m = analyse(r);
  EXPECT_TRUE(
      has(render_text(m), "Failed: cudaHostRegister at 32 GiB: cudaHostRegister: out of memory"));
  j["cases"][kRegister32]["extra"]["nb_calls"] = 3;  // one of the four: all four
  EXPECT_EQ(error_of(j), "run record: 'cases[5].extra.nb_p50_ms' is missing");
}

TEST(PinRecord, ReportRefusesABadRecordInOneLine) {
  json j = fixture();
  j["pin"]["limits"][0]["bytes"] = "118GiB";
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/bad.json", j.dump());
  const test::Result r = test::run(kBin + "report " + dir + "/bad.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(has(r.err, "pinbench: error: ")) << r.err;
  EXPECT_TRUE(has(r.err, "'pin.limits[0].bytes' has the wrong type (string)")) << r.err;
}

// --- the config and the command line ------------------------------------------------------------

TEST(PinConfigCheck, SortsAndRefusesWhatTheMeasurementCannotRun) {
  PinConfig c;
  c.sizes = {4 * kGiB, kGiB, 4 * kGiB};
  c.arena_chunks = {64 * kMiB, 32 * kMiB};
  check_pin_config(c);
  EXPECT_EQ(c.sizes, (std::vector<std::uint64_t>{kGiB, 4 * kGiB}));
  EXPECT_EQ(c.arena_chunks, (std::vector<std::uint64_t>{32 * kMiB, 64 * kMiB}));
  const auto refused = [](PinConfig given, const std::string& words) {
    try {
      check_pin_config(given);
      ADD_FAILURE() << "accepted; expected " << words;
    } catch (const InputError& e) {
      EXPECT_TRUE(has(e.what(), words)) << e.what();
    }
  };
  PinConfig bad;
  bad.arena_chunks = {5000};
  refused(bad, "--arena-chunks: 5000 B is not a whole number of 4 KiB pages");
  bad = PinConfig{};
  bad.sizes = {kGiB};
  bad.copy_bytes = 2 * kGiB;
  refused(bad, "--copy-bytes: 2 GiB is more than the largest size pinned (1 GiB)");
  bad = PinConfig{};
  bad.methods = {"teleport"};
  refused(bad, "--methods: 'teleport' is not one of cudaHostAlloc");
  EXPECT_EQ(pin_method_token(kPinArena, 32 * kMiB, 8), "pinnedarena-32MiB-x8");
  EXPECT_EQ(pin_method_token(kPinRegisterThp), "cudahostregister-thp");
}

void expect_one_line_error(const test::Result& r, int code, const std::string& contains) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: ", 0), 0u) << r.err;
  EXPECT_TRUE(has(r.err, contains)) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(PinCli, BadInputIsOneLineAndExitTwo) {
  expect_one_line_error(test::run(kBin + "pin --methods cudaHostAlloc,teleport"), 2,
                        "--methods: unknown method 'teleport': the methods are cudaHostAlloc, "
                        "cudaHostAlloc portable, cudaHostRegister, cudaHostRegister THP, "
                        "cudaHostRegister hugetlbfs, PinnedArena");
  expect_one_line_error(test::run(kBin + "pin --sizes 0"), 2, "--sizes: size '0' is zero");
  expect_one_line_error(test::run(kBin + "pin --arena-chunks 5000"), 2,
                        "--arena-chunks: 5000 B is not a whole number of 4 KiB pages");
  expect_one_line_error(test::run(kBin + "pin --arena-threads 0"), 2, "--arena-threads");
  expect_one_line_error(test::run(kBin + "pin --neighbour-interval 2000000"), 2,
                        "--neighbour-interval");
  expect_one_line_error(test::run(kBin + "pin --sizes 1GiB --copy-bytes 2GiB"), 2,
                        "--copy-bytes: 2 GiB is more than the largest size pinned (1 GiB)");
}

bool gpu_present() {
  return test::run(kBin + "info").exit_code != 3;
}

TEST(PinCli, AReplayPrintsTheRecordAndWithoutAGpuTheNewestIsReplayedOrNoneIsSaid) {
  const test::Result replay = test::run(kBin + "pin --replay " + kFixture);
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_EQ(replay.err, "");
  EXPECT_TRUE(has(replay.out, "pinbench pin on NVIDIA H100 80GB HBM3")) << replay.out;
  EXPECT_TRUE(has(replay.out, "Pinning wall time (the recorded run's): 118.5 s.")) << replay.out;
  expect_one_line_error(test::run(kBin + "pin --replay " + kFixture + " --sizes 1GiB"), 2,
                        "--replay excludes --sizes");
  if (gpu_present()) GTEST_SKIP() << "a GPU is present; pin would measure";
  // The methods given by their tokens read, and without a GPU nothing is measured.
  const std::string empty = test::temp_dir();
  expect_one_line_error(
      test::run("PINBENCH_DATA_DIR=" + empty + " " + kBin +
                "pin --methods cudahostregister-thp,PinnedArena"),
      3,
      "no usable GPU (no CUDA driver on this machine) and no recorded pin under " + empty +
          "/runs");
  const std::string data = test::temp_dir();
  std::filesystem::create_directories(data + "/runs");
  std::filesystem::copy_file(kFixture, data + "/runs/pin-h100-2026-12-06T100000Z.json");
  const test::Result newest = test::run("PINBENCH_DATA_DIR=" + data + " " + kBin + "pin");
  EXPECT_EQ(newest.exit_code, 0) << newest.err;
  EXPECT_TRUE(has(test::unwrapped(newest.out), "replaying the pin run recorded on 2026-12-06"))
      << newest.out;
}

}  // namespace
}  // namespace pinbench
