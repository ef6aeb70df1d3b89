// The one case builder: size tokens and gate names (checked against every committed record, whose
// names tests and readers look cases up by), and filling cases and gates from a Timed result.
#include <gtest/gtest.h>

#include <filesystem>

#include "framework/by_experiment.hpp"
#include "framework/case_builder.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

TEST(CaseBuilder, WholeKibSizesKeepTheirNames) {
  EXPECT_EQ(size_token(64 * kMiB), "64MiB");
  EXPECT_EQ(size_token(4 * kKiB), "4KiB");
  EXPECT_EQ(size_token(kGiB), "1GiB");
  EXPECT_EQ(size_token(3 * kMiB / 2), "1.5MiB");
}

TEST(CaseBuilder, OtherSizesAreNamedExactly) {
  EXPECT_EQ(size_token(1048573), "1048573B");
  EXPECT_EQ(size_token(100), "100B");
  // format_size rounds both to "1 MiB"; the names must not collide. A whole number of KiB that
  // two decimals of MiB cannot say is named in KiB.
  EXPECT_EQ(size_token(kMiB + kKiB), "1025KiB");
  EXPECT_EQ(size_token(kMiB + 1), "1048577B");
  EXPECT_NE(size_token(kMiB + 1), size_token(kMiB));
  EXPECT_EQ(size_token(1000 * kKiB), "1000KiB");
  // Not a whole number of KiB, but said exactly all the same.
  EXPECT_EQ(size_token(1023 * kKiB + kKiB / 2), "1023.5KiB");
}

TEST(CaseBuilder, UnalignedCasesNameTheirOffsets) {
  EXPECT_EQ(size_token(1048573, 3, 1), "1048573B@+3/+1");
  EXPECT_EQ(size_token(64 * kMiB, 0, 0), "64MiB");
  EXPECT_EQ(gate_name({"staged", "h2d", "staged"}, size_token(1048573, 3, 1)),
            "staged/h2d/staged/1048573B@+3/+1");
}

TEST(CaseBuilder, GateNamesJoinThePartsAndTheSize) {
  EXPECT_EQ(gate_name({"copy", "h2d", "pageable"}, 64 * kMiB), "copy/h2d/pageable/64MiB");
  EXPECT_EQ(gate_name({"sweep", "h2d", "pinned", "ce"}, 4 * kKiB), "sweep/h2d/pinned/ce/4KiB");
  EXPECT_EQ(gate_name({"staged", "h2d", "staged"}, 64 * kMiB), "staged/h2d/staged/64MiB");
}

// What each experiment's gate name is made of, as the builder makes it now.
std::string expected_gate(const Case& c) {
  if (c.part == "sweep") {
    // The total of both directions moves twice the bytes under the host-to-device half's gate.
    if (c.direction == "bidir-total") {
      return gate_name({"sweep", "bidir-h2d", c.memory, c.method}, c.bytes / 2);
    }
    return gate_name({"sweep", c.direction, c.memory, c.method}, c.bytes);
  }
  if (c.part == "staged") {
    const std::uint64_t h = c.extra.value("host_offset", std::uint64_t{0});
    const std::uint64_t d = c.extra.value("device_offset", std::uint64_t{0});
    return gate_name({"staged", c.direction, c.method}, size_token(c.bytes, h, d));
  }
  if (c.part == "tune") return gate_name({"tune", c.direction, c.method}, c.bytes);
  return gate_name({c.part, c.direction, c.memory}, c.bytes);
}

TEST(CaseBuilder, EveryCommittedRecordsGateNamesAreTheBuildersNames) {
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".json" || path.find(".trace.") != std::string::npos) continue;
    const RunRecord r = load_record(path);
    // pin names a copy by the way its memory was pinned and the size pinned ("copy/h2d/
    // pinnedarena-32MiB-x8/64GiB"), neither of which is a field of the case: its own tests
    // (test_pin_analysis.cpp, GpuPin) hold those names.
    if (r.experiment == "pin") continue;
    for (const Case& c : r.cases) {
      const bool named = c.part == "copy" || c.part == "async" || c.part == "kernel" ||
                         c.part == "device_copy" || c.part == "sweep" || c.part == "staged" ||
                         c.part == "tune";
      if (!named || c.gate.find(" (before timing)") != std::string::npos) continue;
      EXPECT_EQ(c.gate, expected_gate(c)) << path;
      ++checked;
    }
  }
  // The lesson, sweep, staged and tuning records are committed: hundreds of names.
  EXPECT_GT(checked, 200);
}

CaseSpec spec() {
  return {"copy", "h2d", "pinned", "cudaMemcpy", "cuda_events", 4096, 3, "copy/h2d/pinned/4KiB"};
}

TEST(CaseBuilder, MakeCaseFillsEveryFieldFromTheSpecAndTheTimedResult) {
  Timed t;
  t.samples_ms = {1.0, 2.0};
  t.call_ms = {0.5, 0.25};
  t.stop = StopReason::kCount;
  const Case c = make_case(spec(), t);
  EXPECT_EQ(c.part, "copy");
  EXPECT_EQ(c.direction, "h2d");
  EXPECT_EQ(c.memory, "pinned");
  EXPECT_EQ(c.method, "cudaMemcpy");
  EXPECT_EQ(c.timing, "cuda_events");
  EXPECT_EQ(c.bytes, 4096u);
  EXPECT_EQ(c.warmups, 3);
  EXPECT_EQ(c.gate, "copy/h2d/pinned/4KiB");
  EXPECT_EQ(c.samples_ms, t.samples_ms);
  EXPECT_EQ(c.call_ms, t.call_ms);
  ASSERT_TRUE(c.stop.has_value());
  EXPECT_EQ(*c.stop, StopReason::kCount);
  EXPECT_TRUE(c.verified);
}

TEST(CaseBuilder, AFailedOrEmptyOrWrongKindCaseIsNotVerified) {
  Timed t;
  t.samples_ms = {1.0};
  t.stop = StopReason::kCount;
  EXPECT_FALSE(make_case(spec(), t, /*kinds_ok=*/false).verified);
  Timed empty;
  EXPECT_FALSE(make_case(spec(), empty).verified);
  EXPECT_FALSE(make_case(spec(), empty).stop.has_value());
  Timed failed;
  failed.fail("first difference at byte 1 of 4096");
  const Case c = make_case(spec(), failed);
  EXPECT_FALSE(c.verified);
  // A case whose gate copy failed before any sample still says why it stopped.
  ASSERT_TRUE(c.stop.has_value());
  EXPECT_EQ(*c.stop, StopReason::kGateFailed);
}

TEST(CaseBuilder, TimedKeepsTheFirstFailure) {
  Timed t;
  t.fail("sample 1: wrong");
  t.fail("sample 2: wrong too");
  EXPECT_TRUE(t.failed);
  EXPECT_EQ(t.detail, "sample 1: wrong");
}

TEST(CaseBuilder, GatesFromTimedResultsAndComparisons) {
  Timed ok;
  ok.samples_ms = {1.0};
  const Gate passed = sampled_gate("g", ok, every_sample_detail(1, 4096));
  EXPECT_TRUE(passed.passed);
  EXPECT_EQ(passed.detail, "every one of 1 samples delivered all 4096 bytes");
  Timed bad;
  bad.fail("sample 0: 1 16-byte block differ from the reference bytes");
  const Gate failed = sampled_gate("g", bad, "unused");
  EXPECT_FALSE(failed.passed);
  EXPECT_EQ(failed.detail, bad.detail);

  EXPECT_EQ(bytes_gate("b", std::nullopt, 8).detail, "all 8 bytes match");
  const Gate wrong = bytes_gate("b", std::size_t{7}, 8);
  EXPECT_FALSE(wrong.passed);
  EXPECT_EQ(wrong.detail, "first difference at byte 7 of 8");

  const Gate kind = kind_gate_from("kind/x", "pageable", "pinned");
  EXPECT_FALSE(kind.passed);
  EXPECT_EQ(kind.detail, "cudaPointerGetAttributes says pageable, expected pinned");
  EXPECT_TRUE(kind_gate_from("kind/x", "pinned", "pinned").passed);
}

TEST(CaseBuilder, GatesPassedLooksFromTheGivenGateOn) {
  const std::vector<Gate> gates = {{"a", false, ""}, {"b", true, ""}, {"c", true, ""}};
  EXPECT_FALSE(gates_passed(gates));
  EXPECT_TRUE(gates_passed(gates, 1));
  EXPECT_TRUE(gates_passed(gates, 5));
  EXPECT_TRUE(gates_passed({}));
}

}  // namespace
}  // namespace pinbench
