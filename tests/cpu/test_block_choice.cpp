// The block copier's choice without a GPU (pinbench/block_choice.hpp): a hand-made calibration
// table whose winners are known, on and between its grid points and past its edges; ties within
// 3% going to the earlier method; the slowdown budget, measured and not; the cache file read
// back and checked like a record (malformed, foreign and stale tables refused, each with a clear
// error); the rules of `pinbench blocks --recommend` (the golden file) read and applied; and the
// refusal of text that is not JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "pinbench/block_choice.hpp"
#include "pinbench/block_copier.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * 1024;

const BlockDeviceIdentity kHere{"Test GPU", 13000, "0.1.0"};

using Rate = std::function<double(std::uint64_t block_bytes, std::uint64_t count)>;

// A grid of 4, 16 and 64 KiB by 1, 16 and 256 blocks, h2d from page-locked memory, each method's
// rate from a function of the shape.
CalibrationTable table_of(const std::vector<std::pair<BlockMethod, Rate>>& methods,
                          BlockMemory memory = BlockMemory::kPinned) {
  CalibrationTable t;
  t.identity = kHere;
  t.created_utc = "2026-12-03T10:00:00Z";
  t.calibration_s = 1.25;
  t.kernel_sms = 132;
  t.sizes = {4 * kKiB, 16 * kKiB, 64 * kKiB};
  t.counts = {1, 16, 256};
  for (const auto& [m, rate] : methods) {
    for (std::uint64_t s : t.sizes) {
      for (std::uint64_t n : t.counts) {
        t.points.push_back({BlockDirection::kToDevice, memory, m, s, n, rate(s, n), std::nullopt});
      }
    }
  }
  return t;
}

BlockShape h2d(std::uint64_t block_bytes, std::uint64_t count) {
  return {BlockDirection::kToDevice, BlockMemory::kPinned, block_bytes, count};
}

// The kernel wins small blocks in numbers (10 GB/s at 4 KiB, whatever the count past 1), the
// batch wins from 16 KiB (20 GB/s), and the loop is always slow.
CalibrationTable crossing_table() {
  return table_of({
      {BlockMethod::kBatch,
       [](std::uint64_t s, std::uint64_t) { return s >= 16 * kKiB ? 20.0 : 5.0; }},
      {BlockMethod::kKernel, [](std::uint64_t, std::uint64_t n) { return n > 1 ? 10.0 : 1.0; }},
      {BlockMethod::kLoop, [](std::uint64_t, std::uint64_t) { return 1.0; }},
  });
}

// --- the choice from a table -------------------------------------------------------------------

TEST(BlockChoice, OnGridPointsTheFastestMethodWins) {
  const CalibrationTable t = crossing_table();
  BlockChoice c = choose_block_method(t, h2d(4 * kKiB, 256));
  EXPECT_EQ(c.method, BlockMethod::kKernel);
  EXPECT_FALSE(c.interpolated);
  EXPECT_FALSE(c.outside_grid);
  ASSERT_TRUE(c.predicted_gb_per_s);
  EXPECT_DOUBLE_EQ(*c.predicted_gb_per_s, 10.0);
  EXPECT_NE(c.reason.find("kernel: 10 GB/s predicted for 4 KiB x 256 (h2d, pinned)"),
            std::string::npos)
      << c.reason;
  EXPECT_NE(c.reason.find("2x batch-stream (5 GB/s)"), std::string::npos) << c.reason;
  EXPECT_EQ(choose_block_method(t, h2d(64 * kKiB, 16)).method, BlockMethod::kBatch);
  EXPECT_EQ(choose_block_method(t, h2d(4 * kKiB, 1)).method, BlockMethod::kBatch);
}

TEST(BlockChoice, ShapesBetweenGridPointsAreInterpolatedInLogSpace) {
  const CalibrationTable t = crossing_table();
  // 8 KiB is the geometric middle of 4 and 16 KiB: the batch's rate there is sqrt(5 * 20) = 10.
  const auto mid = predict_block_rate(t, h2d(8 * kKiB, 16), BlockMethod::kBatch);
  ASSERT_TRUE(mid);
  EXPECT_NEAR(*mid, 10.0, 1e-9);
  // 12 KiB is past the middle: the batch (about 14.1 GB/s) beats the kernel's 10.
  const BlockChoice at12 = choose_block_method(t, h2d(12 * kKiB, 16));
  EXPECT_EQ(at12.method, BlockMethod::kBatch);
  EXPECT_TRUE(at12.interpolated);
  EXPECT_NE(at12.reason.find("interpolated"), std::string::npos);
  // 6 KiB is before it: the batch at 7.1 GB/s loses to the kernel.
  EXPECT_EQ(choose_block_method(t, h2d(6 * kKiB, 16)).method, BlockMethod::kKernel);
  // 48 KiB, and counts off the grid (3, 300 past it, 3000 past it), keep their neighbours'.
  EXPECT_EQ(choose_block_method(t, h2d(48 * kKiB, 3)).method, BlockMethod::kBatch);
  // 3 blocks: the kernel between 1.0 (1 block) and 10 (16 blocks), log2(3)/log2(16) of the way.
  const auto k3 = predict_block_rate(t, h2d(4 * kKiB, 3), BlockMethod::kKernel);
  ASSERT_TRUE(k3);
  EXPECT_NEAR(*k3, std::exp(std::log(10.0) * std::log2(3.0) / 4.0), 1e-9);
  EXPECT_EQ(choose_block_method(t, h2d(4 * kKiB, 300)).method, BlockMethod::kKernel);
  EXPECT_EQ(choose_block_method(t, h2d(4 * kKiB, 3000)).method, BlockMethod::kKernel);
}

TEST(BlockChoice, PastTheGridTheEdgesFiguresHoldAndTheReasonSaysSo) {
  const CalibrationTable t = crossing_table();
  const BlockChoice small = choose_block_method(t, h2d(1 * kKiB, 256));
  EXPECT_EQ(small.method, BlockMethod::kKernel);
  EXPECT_TRUE(small.outside_grid);
  EXPECT_NE(small.reason.find("outside the calibrated grid"), std::string::npos);
  const BlockChoice big = choose_block_method(t, h2d(200 * kKiB, 3000));
  EXPECT_EQ(big.method, BlockMethod::kBatch);
  EXPECT_TRUE(big.outside_grid);
  EXPECT_DOUBLE_EQ(*big.predicted_gb_per_s, 20.0);
}

TEST(BlockChoice, WithinThreePercentTheEarlierMethodWinsAndPastItTheFaster) {
  for (const double kernel : {10.0, 10.2, 10.3}) {  // the batch's rate, 2% and 3% past it
    const CalibrationTable t =
        table_of({{BlockMethod::kKernel, [=](std::uint64_t, std::uint64_t) { return kernel; }},
                  {BlockMethod::kBatch, [](std::uint64_t, std::uint64_t) { return 10.0; }}});
    const BlockChoice c = choose_block_method(t, h2d(16 * kKiB, 16));
    EXPECT_EQ(c.method, BlockMethod::kBatch) << kernel;
    if (kernel > 10.0) {
      EXPECT_NE(c.reason.find("within 3% of kernel"), std::string::npos) << c.reason;
    }
  }
  const CalibrationTable t =
      table_of({{BlockMethod::kKernel, [](std::uint64_t, std::uint64_t) { return 10.31; }},
                {BlockMethod::kBatch, [](std::uint64_t, std::uint64_t) { return 10.0; }}});
  EXPECT_EQ(choose_block_method(t, h2d(16 * kKiB, 16)).method, BlockMethod::kKernel);
}

TEST(BlockChoice, OnlyAllowedMethodsAreChosenAndNoneIsAClearError) {
  const CalibrationTable t = crossing_table();
  BlockChoiceOptions o;
  o.allowed = {BlockMethod::kLoop, BlockMethod::kBatch};
  EXPECT_EQ(choose_block_method(t, h2d(4 * kKiB, 256), o).method, BlockMethod::kBatch);
  o.allowed = {BlockMethod::kStaged};
  try {
    choose_block_method(t, h2d(4 * kKiB, 256), o);
    FAIL() << "no figures for the staged engine";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no figures for h2d pinned"), std::string::npos);
  }
  BlockShape pageable = h2d(4 * kKiB, 256);
  pageable.memory = BlockMemory::kPageable;
  EXPECT_THROW(choose_block_method(t, pageable), std::invalid_argument);
  EXPECT_THROW(choose_block_method(t, h2d(0, 1)), std::invalid_argument);
}

TEST(BlockChoice, AMethodStoppedAtACountKeepsItsLastRateAtLargerOnes) {
  CalibrationTable t = crossing_table();
  // The loop measured only at 1 block (the calibration stops methods far behind).
  t.points.erase(std::remove_if(t.points.begin(), t.points.end(),
                                [](const CalibrationPoint& p) {
                                  return p.method == BlockMethod::kLoop && p.count > 1;
                                }),
                 t.points.end());
  validate_calibration(t, "t");
  EXPECT_DOUBLE_EQ(*predict_block_rate(t, h2d(16 * kKiB, 256), BlockMethod::kLoop), 1.0);
}

// --- the slowdown budget -----------------------------------------------------------------------

TEST(BlockChoice, ABudgetWithoutFiguresBesideComputeIsNotAppliedAndSaysSo) {
  const CalibrationTable t = crossing_table();
  BlockChoiceOptions o;
  o.max_slowdown_pct = 5;
  const BlockChoice c = choose_block_method(t, h2d(4 * kKiB, 256), o);
  EXPECT_EQ(c.method, BlockMethod::kKernel);
  EXPECT_FALSE(c.budget_applied);
  EXPECT_NE(c.reason.find("budget not measured"), std::string::npos) << c.reason;
}

TEST(BlockChoice, ABudgetLeavesOutMethodsThatSlowTheKernelMore) {
  CalibrationTable t = crossing_table();
  for (CalibrationPoint& p : t.points) p.slowdown_pct = p.method == BlockMethod::kKernel ? 12 : 1;
  BlockChoiceOptions o;
  o.max_slowdown_pct = 5;
  BlockChoice c = choose_block_method(t, h2d(4 * kKiB, 256), o);
  EXPECT_EQ(c.method, BlockMethod::kBatch);
  EXPECT_TRUE(c.budget_applied);
  EXPECT_NE(c.reason.find("Within the slowdown budget of 5%"), std::string::npos) << c.reason;
  o.max_slowdown_pct = 12;  // the boundary holds
  EXPECT_EQ(choose_block_method(t, h2d(4 * kKiB, 256), o).method, BlockMethod::kKernel);
  o.max_slowdown_pct = 0.5;  // nothing holds it: the least slowdown
  c = choose_block_method(t, h2d(4 * kKiB, 256), o);
  EXPECT_EQ(c.method, BlockMethod::kBatch);
  EXPECT_NE(c.reason.find("No method holds the slowdown budget"), std::string::npos);
}

// --- the cache file ----------------------------------------------------------------------------

BlockCalibrationError::Kind refusal(const std::string& text, std::string* what = nullptr) {
  try {
    calibration_from_json(text, kHere, "cache.json");
  } catch (const BlockCalibrationError& e) {
    if (what != nullptr) *what = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "accepted: " << text;
  return BlockCalibrationError::Kind::kMalformed;
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(BlockCalibrationCache, ATableComesBackAsItWasWritten) {
  CalibrationTable t = crossing_table();
  t.points[3].slowdown_pct = 7.5;
  const std::string text = calibration_to_json(t);
  const CalibrationTable back = calibration_from_json(text, kHere, "cache.json");
  EXPECT_EQ(back.identity.device, "Test GPU");
  EXPECT_EQ(back.kernel_sms, 132u);
  EXPECT_EQ(back.sizes, t.sizes);
  EXPECT_EQ(back.counts, t.counts);
  ASSERT_EQ(back.points.size(), t.points.size());
  EXPECT_EQ(back.points[3].slowdown_pct, 7.5);
  EXPECT_FALSE(back.points[4].slowdown_pct);
  EXPECT_EQ(calibration_to_json(back), text);
}

TEST(BlockCalibrationCache, AnotherDeviceIsForeignAndAnotherDriverOrVersionStale) {
  const std::string text = calibration_to_json(crossing_table());
  std::string what;
  EXPECT_EQ(refusal(replaced(text, "Test GPU", "Other GPU"), &what),
            BlockCalibrationError::Kind::kForeign);
  EXPECT_NE(what.find("cache.json: measured on \"Other GPU\", not this device (\"Test GPU\")"),
            std::string::npos)
      << what;
  EXPECT_EQ(refusal(replaced(text, "13000", "12080"), &what), BlockCalibrationError::Kind::kStale);
  EXPECT_NE(what.find("measured with driver 12080, this is 13000"), std::string::npos) << what;
  EXPECT_EQ(refusal(replaced(text, "\"0.1.0\"", "\"0.0.9\""), &what),
            BlockCalibrationError::Kind::kStale);
  EXPECT_NE(what.find("measured by pinbench 0.0.9"), std::string::npos) << what;
}

TEST(BlockCalibrationCache, MalformedTablesAreRefusedSayingWhat) {
  const std::string text = calibration_to_json(crossing_table());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {text.substr(0, text.size() / 2), "not JSON"},
      {"[]", "not a JSON object"},
      {replaced(text, "pinbench.block-calibration", "pinbench.run"), "schema \"pinbench.run\""},
      {replaced(text, "\"version\": 1", "\"version\": 2"), "version 2, not 1"},
      {replaced(text, "\"kernel_sms\": 132", "\"kernel_sms\": -1"),
       "\"kernel_sms\" is not a whole"},
      {replaced(text, "\"created_utc\"", "\"made\""), "\"created_utc\" is missing"},
      {replaced(text, "\"gb_per_s\": 5}", "\"gb_per_s\": 0}"), "has no positive rate"},
      {replaced(text, "\"gb_per_s\": 5}", "\"gb_per_s\": \"5\"}"), "\"gb_per_s\" is a string"},
      {replaced(text, "\"method\": \"loop\"", "\"method\": \"teleport\""), "unknown method"},
      {replaced(text, "\"sizes\": [4096, 16384, 65536]", "\"sizes\": [4096, 65536, 16384]"),
       "\"sizes\" is not strictly ascending"},
      {replaced(text, "\"block_bytes\": 4096, \"count\": 16",
                "\"block_bytes\": 4096, \"count\": 17"),
       "is not on the grid"},
      {replaced(text, "\"block_bytes\": 4096, \"count\": 1,",
                "\"block_bytes\": 4096, \"count\": 16,"),
       "appears twice"},
  };
  for (const auto& [bad, expected] : cases) {
    std::string what;
    EXPECT_EQ(refusal(bad, &what), BlockCalibrationError::Kind::kMalformed) << expected;
    EXPECT_NE(what.find("cache.json: "), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  }
}

TEST(BlockCalibrationCache, AMethodWithAGapInItsCountsIsMalformed) {
  CalibrationTable t = crossing_table();
  t.points.erase(std::remove_if(t.points.begin(), t.points.end(),
                                [](const CalibrationPoint& p) {
                                  return p.method == BlockMethod::kLoop && p.count == 16;
                                }),
                 t.points.end());
  try {
    validate_calibration(t, "t");
    FAIL();
  } catch (const BlockCalibrationError& e) {
    EXPECT_NE(std::string(e.what()).find("method loop at 4096 bytes skips a count"),
              std::string::npos)
        << e.what();
  }
}

TEST(BlockCalibrationCache, TheFileIsNamedByDeviceAndDriverWithPlainCharacters) {
  EXPECT_EQ(BlockCopier::cache_file_name({"NVIDIA H200 NVL/x", 13000, "0.1.0"}, 0),
            "blocks-NVIDIA_H200_NVL_x-driver13000.json");
  EXPECT_EQ(BlockCopier::cache_file_name({"NVIDIA H200", 13000, "0.1.0"}, 16),
            "blocks-NVIDIA_H200-driver13000-sms16.json");
}

// --- the rules of `pinbench blocks --recommend`
// ---------------------------------------------------

std::string golden_rules() {
  std::ifstream in(std::string(PINBENCH_TEST_GOLDEN_DIR) + "/blocks-recommend.json");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BlockRules, TheRecommendFileDecidesByItsRulesThenItsDefault) {
  const BlockRules r = rules_from_json(golden_rules(), kHere, "rules.json");
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(choose_block_method(r, h2d(4 * kKiB, 16)).method, BlockMethod::kKernel);
  EXPECT_EQ(choose_block_method(r, h2d(64 * kKiB, 300)).method, BlockMethod::kKernel);
  EXPECT_EQ(choose_block_method(r, h2d(200 * kKiB, 3000)).method, BlockMethod::kBatch);
  EXPECT_EQ(choose_block_method(r, h2d(kMiB, 1)).method, BlockMethod::kLoop);
  EXPECT_EQ(choose_block_method(r, h2d(12 * kKiB, 3)).method, BlockMethod::kBatch);
  // batch-any may read its source before earlier stream work: batch-stream in its place.
  const BlockChoice any =
      choose_block_method(r, {BlockDirection::kToHost, BlockMemory::kPageable, 4 * kKiB, 16});
  EXPECT_EQ(any.method, BlockMethod::kBatch);
  EXPECT_NE(any.reason.find("batch-any reads the source outside stream order"), std::string::npos)
      << any.reason;
  // The kernel at a further SM count (blocks --sms 0,16) is the copier's kernel.
  const std::string sms16 =
      replaced(golden_rules(), "\"method\": \"kernel\"", "\"method\": \"kernel-sms16\"");
  const BlockChoice k16 =
      choose_block_method(rules_from_json(sms16, kHere, "r"), h2d(4 * kKiB, 16));
  EXPECT_EQ(k16.method, BlockMethod::kKernel);
  EXPECT_NE(k16.reason.find("kernel-sms16 is the kernel at 16 SMs"), std::string::npos)
      << k16.reason;
  // No choice for d2h pinned: the first allowed method, said.
  BlockChoiceOptions o;
  o.allowed = {BlockMethod::kLoop, BlockMethod::kKernel};
  const BlockChoice none =
      choose_block_method(r, {BlockDirection::kToHost, BlockMemory::kPinned, 4 * kKiB, 16}, o);
  EXPECT_EQ(none.method, BlockMethod::kLoop);
  EXPECT_NE(none.reason.find("the rules have no choice for d2h pinned"), std::string::npos);
  // A rule's method that cannot move the batch gives way to the first allowed.
  o.allowed = {BlockMethod::kLoop};
  EXPECT_EQ(choose_block_method(r, h2d(4 * kKiB, 16), o).method, BlockMethod::kLoop);
}

TEST(BlockRules, ABudgetIsAppliedOnlyWhereTheRulesWereMadeForIt) {
  BlockChoiceOptions o;
  o.max_slowdown_pct = 5;
  const BlockRules plain = rules_from_json(golden_rules(), kHere, "rules.json");
  const BlockChoice c = choose_block_method(plain, h2d(4 * kKiB, 16), o);
  EXPECT_FALSE(c.budget_applied);
  EXPECT_NE(c.reason.find("made without one (budget not measured)"), std::string::npos);
  const std::string with =
      replaced(golden_rules(), "\"good_within\"", "\"max_slowdown_pct\": 3,\n  \"good_within\"");
  EXPECT_TRUE(
      choose_block_method(rules_from_json(with, kHere, "r"), h2d(4 * kKiB, 16), o).budget_applied);
  o.max_slowdown_pct = 2;
  EXPECT_FALSE(
      choose_block_method(rules_from_json(with, kHere, "r"), h2d(4 * kKiB, 16), o).budget_applied);
}

TEST(BlockRules, ForeignStaleAndMalformedRulesAreRefused) {
  const std::string text = golden_rules();
  const auto kind = [](const std::string& t) {
    try {
      rules_from_json(t, kHere, "rules.json");
    } catch (const BlockCalibrationError& e) {
      return e.kind();
    }
    return static_cast<BlockCalibrationError::Kind>(-1);
  };
  EXPECT_EQ(kind(replaced(text, "Test GPU", "NVIDIA H100")), BlockCalibrationError::Kind::kForeign);
  EXPECT_EQ(kind(replaced(text, "13000", "12000")), BlockCalibrationError::Kind::kStale);
  EXPECT_EQ(kind(replaced(text, "\"default\": \"batch-stream\"", "\"default\": \"contiguous\"")),
            BlockCalibrationError::Kind::kMalformed);
  EXPECT_EQ(kind(replaced(text, "pinbench.blocks-recommend", "x")),
            BlockCalibrationError::Kind::kMalformed);
  EXPECT_EQ(kind(replaced(text, "\"min_blocks\": 16", "\"min_blocks\": 16, \"max_blocks\": 2")),
            BlockCalibrationError::Kind::kMalformed);
  // A budget is a slowdown a measurement can give, 0 to 10,000% (base/slowdown_range.hpp): past
  // it every figure passes, below 0 none; one at either end is read.
  for (const char* budget : {"-1", "10000.5", "1e308"}) {
    const std::string with =
        replaced(text, "\"good_within\"",
                 std::string("\"max_slowdown_pct\": ") + budget + ",\n  \"good_within\"");
    EXPECT_EQ(kind(with), BlockCalibrationError::Kind::kMalformed) << budget;
  }
  for (const char* budget : {"0", "10000"}) {
    const std::string with =
        replaced(text, "\"good_within\"",
                 std::string("\"max_slowdown_pct\": ") + budget + ",\n  \"good_within\"");
    EXPECT_EQ(kind(with), static_cast<BlockCalibrationError::Kind>(-1)) << budget;
  }
}

// Text that is not one JSON value is malformed, with what the reader found.
TEST(BlockCalibration, TextThatIsNotJsonIsRefused) {
  for (const char* bad : {"", "{", "[1,]", "01", "1 2", "nul", "{\"a\" 1}"}) {
    std::string what;
    EXPECT_EQ(refusal(bad, &what), BlockCalibrationError::Kind::kMalformed) << bad;
    EXPECT_NE(what.find("not JSON"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace pinbench
