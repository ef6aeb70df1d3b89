// What the Python layer rests on, without a GPU or Python: the rows read_rows returns (one per
// case, the CSV's figures, typed), torch_paths' output turned into staged cases and gates, and
// the goals against PyTorch's paths judged on intervals (held, missed, undecided).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "experiments/staged/analysis.hpp"
#include "experiments/staged/measure_torch.hpp"
#include "experiments/staged/torch_methods.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/case_builder.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/record_rows.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"

namespace pinbench {
using namespace experiments::staged;
namespace {

RunRecord real_staged() {
  return load_record(std::string(PINBENCH_DATA_DIR) + "/runs/staged-h200-2026-12-01T075638Z.json");
}

TEST(RecordRows, OneRowPerCaseWithTheCsvFigures) {
  const RunRecord r = real_staged();
  const nlohmann::ordered_json rows = record_rows(r);
  ASSERT_EQ(rows.size(), r.cases.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Case& c = r.cases[i];
    const auto& row = rows[i];
    EXPECT_EQ(row["experiment"], "staged");
    EXPECT_EQ(row["device"], "NVIDIA H200");
    EXPECT_EQ(row["method"], c.method);
    EXPECT_EQ(row["bytes"], c.bytes);
    EXPECT_EQ(row["samples"], c.samples_ms.size());
    EXPECT_EQ(row["samples_ms"].get<std::vector<double>>(), c.samples_ms);
    EXPECT_EQ(row["gate"], c.gate);
    ASSERT_TRUE(c.verified) << c.gate;
    const double m = median(c.samples_ms);
    EXPECT_DOUBLE_EQ(row["median_ms"].get<double>(), m);
    EXPECT_DOUBLE_EQ(row["gb_per_s"].get<double>(), gb_per_s(c.bytes, m));
    EXPECT_LE(row["median_lo_ms"].get<double>(), m);
    EXPECT_GE(row["median_hi_ms"].get<double>(), m);
    EXPECT_EQ(row["stop"], "count");
    for (const auto& [k, v] : c.extra.items()) EXPECT_EQ(row["extra." + k].dump(), v.dump());
  }
  // Column order is the CSV's: header first, then the case.
  EXPECT_EQ(rows[0].begin().key(), "experiment");
}

TEST(RecordRows, AFailedGateLeavesNoFigure) {
  RunRecord r = real_staged();
  r.cases[0].verified = false;
  for (Gate& g : r.gates) {
    if (g.name == r.cases[0].gate) {
      g.passed = false;
      g.detail = "sample 3: the first differing byte is at offset 7 of 4096";
    }
  }
  const auto rows = record_rows(record_from_json(to_json(r)));
  EXPECT_TRUE(rows[0]["median_ms"].is_null());
  EXPECT_TRUE(rows[0]["gb_per_s"].is_null());
  EXPECT_TRUE(rows[0]["median_lo_ms"].is_null());
  EXPECT_TRUE(rows[0]["stability"].is_null());
  EXPECT_EQ(rows[0]["verified"], false);
  EXPECT_EQ(rows[0]["gate_detail"], "sample 3: the first differing byte is at offset 7 of 4096");
  EXPECT_EQ(rows[0]["samples_ms"].size(), r.cases[0].samples_ms.size());  // the samples stay
}

nlohmann::json torch_case(const std::string& method, const std::string& direction,
                          std::uint64_t bytes, double ms, bool failed = false) {
  std::vector<double> samples;
  for (int i = 0; i < 10; ++i) samples.push_back(ms * (1.0 + 0.001 * (i % 3)));
  return {{"method", method},
          {"direction", direction},
          {"memory", "pageable"},
          {"bytes", bytes},
          {"warmups", 2},
          {"samples_ms", samples},
          {"failed", failed},
          {"detail", failed ? "sample 0: the first differing byte is at "
                              "offset 5 of 1048576"
                            : ""}};
}

TEST(TorchCases, EachCaseGetsItsGate) {
  RunRecord r;
  const nlohmann::json out = {{"memory_kinds_ok", true},
                              {"cases",
                               {torch_case("torch-pageable-to", "h2d", kMiB, 0.1),
                                torch_case("python-staged", "d2h", kMiB, 0.05, true)}}};
  add_torch_cases(r, out);
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[0].gate, "staged/h2d/torch-pageable-to/1MiB");
  EXPECT_EQ(r.cases[0].part, "staged");
  EXPECT_EQ(r.cases[0].timing, "host_clock");
  EXPECT_TRUE(r.cases[0].verified);
  EXPECT_EQ(r.cases[0].stop, StopReason::kCount);
  EXPECT_EQ(r.cases[0].extra["host_offset"], 0);
  EXPECT_FALSE(r.cases[1].verified);
  ASSERT_EQ(r.gates.size(), 3u);
  EXPECT_EQ(r.gates[0].name, "torch/memory-kinds");
  EXPECT_TRUE(r.gates[0].passed);
  EXPECT_TRUE(r.gates[1].passed);
  EXPECT_EQ(r.gates[1].detail, "every one of 10 samples delivered all 1048576 bytes");
  EXPECT_FALSE(r.gates[2].passed);
  EXPECT_EQ(r.gates[2].detail, "sample 0: the first differing byte is at offset 5 of 1048576");
}

TEST(TorchCases, WrongKindsUnverifyEveryCase) {
  RunRecord r;
  add_torch_cases(r, {{"memory_kinds_ok", false},
                      {"memory_kinds", {{"source_pinned", true}}},
                      {"cases", {torch_case("torch-pinned-to", "h2d", kMiB, 0.1)}}});
  EXPECT_FALSE(r.gates[0].passed);
  EXPECT_NE(r.gates[0].detail.find("source_pinned"), std::string::npos);
  EXPECT_FALSE(r.cases[0].verified);
}

TEST(TorchCases, BadOutputIsRefusedByField) {
  const auto says = [](const nlohmann::json& out, const std::string& text) {
    RunRecord r;
    try {
      add_torch_cases(r, out);
      ADD_FAILURE() << "accepted " << out.dump();
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), text);
    }
  };
  says(nlohmann::json::object(), "torch_paths: the output has no 'cases' array");
  nlohmann::json c = torch_case("torch-cpu", "d2h", kMiB, 0.1);
  c.erase("bytes");
  says({{"cases", {c}}}, "torch_paths: 'cases[0].bytes' is missing");
  c = torch_case("torch-cpu", "d2h", kMiB, 0.1);
  c["samples_ms"] = "fast";
  says({{"cases", {c}}}, "torch_paths: 'cases[0].samples_ms' has the wrong type");
  c = torch_case("torch-cpu", "sideways", kMiB, 0.1);
  says({{"cases", {c}}}, "torch_paths: 'cases[0].direction' is 'sideways'");
}

// A staged record with the engine's and torch's h2d times (ms) at 64 and 256 MiB.
RunRecord with_times(const std::string& engine, double engine_ms, double pageable_ms,
                     double pin_memory_ms, double noise = 0.001) {
  RunRecord r;
  r.experiment = "staged";
  for (std::uint64_t bytes : {64 * kMiB, 256 * kMiB}) {
    const double scale = static_cast<double>(bytes / (64 * kMiB));
    for (const auto& [method, ms] : {std::pair<std::string, double>{engine, engine_ms},
                                     {kTorchPageableTo, pageable_ms},
                                     {kTorchPinMemoryTo, pin_memory_ms}}) {
      Timed t;
      for (int i = 0; i < 10; ++i) {
        t.samples_ms.push_back(scale * ms * (1.0 + noise * (i % 2 ? 1 : -1) * (i / 2)));
      }
      t.stop = StopReason::kCount;
      const CaseSpec spec{
          "staged",     "h2d", "pageable", method,
          "host_clock", bytes, 2,          gate_name({"staged", "h2d", method}, bytes)};
      Case c = make_case(spec, t);
      c.extra = {{"host_offset", 0}, {"device_offset", 0}};
      r.gates.push_back(sampled_gate(c.gate, t, "ok"));
      r.cases.push_back(c);
    }
  }
  return r;
}

const StagedGoal* goal(const StagedAnalysis& a, const std::string& words) {
  for (const StagedGoal& g : a.goals) {
    if (g.text.find(words) != std::string::npos) return &g;
  }
  return nullptr;
}

TEST(TorchGoals, HeldMissedAndUndecided) {
  // 2 ms for the engine at 64 MiB: pageable .to() at 12 ms is 6x (held), pin_memory at 2.5 ms
  // is 1.25x (missed).
  StagedAnalysis a = analyse_staged(with_times(kPythonStaged, 2.0, 12.0, 2.5));
  const StagedGoal* pageable = goal(a, "5x torch's pageable");
  const StagedGoal* pinned = goal(a, "1.5x torch's x.pin_memory()");
  ASSERT_NE(pageable, nullptr);
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pageable->verdict, Verdict::kHeld) << pageable->evidence;
  EXPECT_EQ(pageable->method, "python-staged");
  EXPECT_EQ(pageable->direction, "h2d");
  EXPECT_NE(pageable->evidence.find("python-staged/torch-pageable-to: 6.00x"), std::string::npos)
      << pageable->evidence;
  EXPECT_EQ(pinned->verdict, Verdict::kDied) << pinned->evidence;
  EXPECT_NE(pinned->evidence.find("(fails) at 64 MiB"), std::string::npos) << pinned->evidence;

  // 5% noise around a ratio of exactly 5: the intervals straddle the bound.
  a = analyse_staged(with_times(kPythonStaged, 2.0, 10.0, 3.0, 0.05));
  EXPECT_EQ(goal(a, "5x torch's pageable")->verdict, Verdict::kUndecided);
}

TEST(TorchGoals, TheCliEngineStandsInAndNoTorchMeansNoGoal) {
  const StagedAnalysis a = analyse_staged(with_times("staged", 1.0, 10.0, 2.0));
  EXPECT_NE(goal(a, "staged at 5x torch's pageable"), nullptr);
  EXPECT_EQ(goal(a, "staged at 5x torch's pageable")->verdict, Verdict::kHeld);
  const StagedAnalysis none = analyse_staged(real_staged());
  EXPECT_EQ(goal(none, "torch's"), nullptr);
}

// The H200's run of `staged --torch` (2026-12-01, sizes 1 to 256 MiB): every torch and engine
// case verified, and the two goals judged as the record's samples decide them.
TEST(TorchGoals, RealH200Record) {
  const RunRecord r =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/staged-h200-2026-12-01T095436Z.json");
  int torch_cases = 0;
  for (const Case& c : r.cases) {
    if (c.method.rfind("torch-", 0) == 0 || c.method == kPythonStaged) {
      ++torch_cases;
      EXPECT_TRUE(c.verified) << c.gate;
    }
  }
  EXPECT_EQ(torch_cases, 5 * 8);  // five sizes, four methods each way
  const StagedAnalysis a = analyse_staged(r);
  const StagedGoal* pageable = goal(a, "5x torch's pageable");
  const StagedGoal* pinned = goal(a, "1.5x torch's x.pin_memory()");
  ASSERT_NE(pageable, nullptr);
  ASSERT_NE(pinned, nullptr);
  // 3.92x at 64 MiB (3.66x to 4.20x) misses; 5.49x at 256 MiB holds.
  EXPECT_EQ(pageable->verdict, Verdict::kDied) << pageable->evidence;
  EXPECT_NE(pageable->evidence.find("3.92x (3.66x to 4.20x) (fails) at 64 MiB"), std::string::npos)
      << pageable->evidence;
  // 1.35x at 64 MiB with an interval reaching 3.39x: undecided, not missed.
  EXPECT_EQ(pinned->verdict, Verdict::kUndecided) << pinned->evidence;
}

TEST(TorchCli, FlagsAndReplay) {
  const std::string bin = std::string(PINBENCH_BINARY) + " ";
  const std::string record =
      std::string(PINBENCH_DATA_DIR) + "/runs/staged-h200-2026-12-01T095436Z.json";
  test::Result r = test::run(bin + "staged --tune --torch");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("pinbench: error: --tune excludes --torch", 0), 0u) << r.err;
  r = test::run(bin + "staged --replay " + record + " --torch");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--replay excludes --torch"), std::string::npos) << r.err;
  // The replay states the torch goals as the live run printed them.
  r = test::run(bin + "staged --replay " + record);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::unwrapped(r.out).find(
                "python-staged at 5x torch's pageable x.to(\"cuda\", non_blocking=True) or "
                "better from 64 MiB up: missed"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("torch-copy-to-pinned"), std::string::npos);
}

}  // namespace
}  // namespace pinbench
