// The CLI as a user meets it: exit codes, one clear line on stderr for every bad input, and the
// no-GPU replay. These run the real binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"

namespace pinbench {
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

bool gpu_present() {
  return test::run(kBin + "info").exit_code != 3;
}

void expect_one_line_error(const test::Result& r, int code, const std::string& contains) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
}

TEST(Cli, HelpAndVersion) {
  const test::Result help = test::run(kBin + "--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("lesson"), std::string::npos);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
  EXPECT_EQ(test::run(kBin + "lesson --help").exit_code, 0);
  const test::Result version = test::run(kBin + "--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_FALSE(version.out.empty());
  // The list is one line per command; a command's help has its paragraph under the options.
  EXPECT_NE(help.out.find("  race           Overwrite a copy's source as soon as the call returns, "
                          "and count what arrived.\n"),
            std::string::npos)
      << help.out;
  const std::string race = test::run(kBin + "race --help").out;
  EXPECT_LT(race.find("--trials"), race.find("Overwrites a copy's pinned source")) << race;
  EXPECT_LT(race.find("Overwrites a copy's pinned source"), race.find("\nExit: ")) << race;
}

// Help and version are outputs like any other: a full disk fails with its reason, a closed pipe
// ends quietly.
TEST(Cli, HelpToAFullOrClosedStandardOutput) {
  for (const char* what : {"--help", "sweep --help", "--version"}) {
    const test::Result full = test::run(kBin + what + " > /dev/full");
    EXPECT_EQ(full.exit_code, 2) << what;
    EXPECT_EQ(full.err,
              "pinbench: error: cannot write to standard output: No space left on device\n")
        << what;
    const test::Result closed =
        test::run("bash -c 'set -o pipefail; " + kBin + what + " | head -c 1 >/dev/null'");
    EXPECT_EQ(closed.exit_code, 0) << what << closed.err;
  }
}

TEST(Cli, BadUsageIsExitTwo) {
  expect_one_line_error(test::run(kBin), 2, "subcommand");
  expect_one_line_error(test::run(kBin + "frobnicate"), 2, "unknown subcommand 'frobnicate'");
  expect_one_line_error(test::run(kBin + "lesson --frobnicate"), 2, "--frobnicate");
  expect_one_line_error(test::run(kBin + "lesson --iterations many"), 2, "--iterations");
  expect_one_line_error(test::run(kBin + "lesson --replay a.json --json b.json"), 2, "excludes");
}

TEST(Cli, BadSizesAreExitTwoWithOrWithoutAGpu) {
  expect_one_line_error(test::run(kBin + "lesson --sizes 0"), 2, "size '0' is zero");
  expect_one_line_error(test::run(kBin + "lesson --sizes=-4MiB"), 2, "size '-4MiB' is negative");
  expect_one_line_error(test::run(kBin + "lesson --sizes 4MiB,lots"), 2, "size 'lots'");
  expect_one_line_error(test::run(kBin + "lesson --sizes ''"), 2,
                        "--sizes was given an empty value");
  expect_one_line_error(test::run(kBin + "lesson --async-size 12QB"), 2, "unknown unit 'QB'");
  expect_one_line_error(test::run(kBin + "lesson --kernel-size 6"), 2, "multiple of 4 bytes");
  expect_one_line_error(test::run(kBin + "lesson --iterations 0"), 2,
                        "--iterations: '0' is below 1");
  expect_one_line_error(test::run(kBin + "lesson --warmups=-1"), 2, "--warmups: '-1' is below 0");
}

TEST(Cli, StagedAndPipelineBadInputIsExitTwoWithOrWithoutAGpu) {
  expect_one_line_error(test::run(kBin + "staged --sizes 0"), 2, "size '0' is zero");
  expect_one_line_error(test::run(kBin + "staged --methods staged,teleport"), 2,
                        "unknown method 'teleport'");
  expect_one_line_error(test::run(kBin + "staged --directions bidir"), 2, "not bidir");
  expect_one_line_error(test::run(kBin + "staged --host-offset 4096"), 2,
                        "--host-offset: '4096' is above 4095");
  expect_one_line_error(test::run(kBin + "staged --h2d-depth 1"), 2, "--h2d-depth: '1' is below 2");
  expect_one_line_error(test::run(kBin + "staged --d2h-chunk 8MB"), 2,
                        "to_host.chunk_bytes must be a multiple of 4 KiB");
  expect_one_line_error(test::run(kBin + "staged --max-staging 64MiB"), 2,
                        "more than max_staging_bytes (64 MiB)");
  expect_one_line_error(test::run(kBin + "staged --iterations 0"), 2,
                        "--iterations: '0' is below 1");
  expect_one_line_error(test::run(kBin + "staged --tune --tune-depths 2,x"), 2,
                        "depth 'x' is not a whole number");
  expect_one_line_error(test::run(kBin + "pipeline --window 2GiB"), 2, "no larger than the array");
  expect_one_line_error(test::run(kBin + "pipeline --streams 0"), 2,
                        "stream count '0' is not a whole number between 1 and 64");
  expect_one_line_error(test::run(kBin + "pipeline --array-size 6"), 2, "multiple of 4 bytes");
  expect_one_line_error(test::run(kBin + "pipeline --sources pinned,mapped"), 2,
                        "unknown source 'mapped'");
  expect_one_line_error(test::run(kBin + "pipeline --edge-chunk 32MiB"), 2, "edge_chunk_bytes");
  expect_one_line_error(test::run(kBin + "staged --h2d-direct-below banana"), 2,
                        "size 'banana' is not a number");
  expect_one_line_error(test::run(kBin + "pipeline --d2h-direct-below -5"), 2,
                        "size '-5' is negative");
  expect_one_line_error(test::run(kBin + "staged --host-threads 2000"), 2,
                        "--host-threads: '2000' is above 1024");
  expect_one_line_error(test::run(kBin + "pipeline --host-threads -1"), 2,
                        "--host-threads: '-1' is below 0");
  expect_one_line_error(test::run(kBin + "staged --prefault-from banana"), 2,
                        "size 'banana' is not a number");
}

TEST(Cli, StagedAndPipelineWithRequireGpuNeedAGpu) {
  if (gpu_present()) GTEST_SKIP() << "there is a GPU here";
  expect_one_line_error(test::run(kBin + "staged --require-gpu"), 3, "no usable GPU");
  expect_one_line_error(test::run(kBin + "staged --tune --require-gpu"), 3, "no usable GPU");
  expect_one_line_error(test::run(kBin + "pipeline --require-gpu"), 3, "no usable GPU");
  // The engine's switches and the back-to-back method parse, and get as far as the GPU.
  expect_one_line_error(test::run(kBin + "staged --no-streaming-drain --no-caller-copies "
                                         "--methods staged-back-to-back,pinned --require-gpu"),
                        3, "no usable GPU");
  expect_one_line_error(test::run(kBin + "staged --no-streaming-fill-edges --h2d-direct-below 0 "
                                         "--d2h-direct-below 1MiB --require-gpu"),
                        3, "no usable GPU");
  expect_one_line_error(test::run(kBin + "pipeline --no-caller-copies --require-gpu"), 3,
                        "no usable GPU");
}

TEST(Cli, SizeLargerThanTheDeviceIsExitTwo) {
  if (!gpu_present()) GTEST_SKIP() << "needs a GPU to know the device's free memory";
  expect_one_line_error(test::run(kBin + "lesson --sizes 1MiB,900GiB"), 2, "free");
}

TEST(Cli, BadReplayFilesAreExitTwo) {
  const std::string dir = test::temp_dir();
  expect_one_line_error(test::run(kBin + "lesson --replay " + dir + "/absent.json"), 2,
                        "cannot open run record");
  const std::string whole = test::read_file(test::h200_lesson_path());
  test::write_file(dir + "/cut.json", whole.substr(0, whole.size() - 100));
  expect_one_line_error(test::run(kBin + "lesson --replay " + dir + "/cut.json"), 2,
                        "not valid JSON (truncated?)");
  test::write_file(dir + "/foreign.json", R"({"traceEvents": []})");
  expect_one_line_error(test::run(kBin + "lesson --replay " + dir + "/foreign.json"), 2,
                        "not a pinbench run record");
  expect_one_line_error(test::run(kBin + "lesson --replay " + test::h200_lesson_path() +
                                  " --reference " + dir + "/foreign.json"),
                        2,
                        "reference record '" + dir + "/foreign.json': not a pinbench run record");
}

TEST(Cli, ReplayOfTheCommittedRun) {
  const test::Result r = test::run(kBin + "lesson --replay " + test::h200_lesson_path() +
                                   " --reference " + test::t4_reference_path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(r.out.find("2. [held]"), std::string::npos);
  EXPECT_NE(r.out.find("not within 20%"), std::string::npos);
  EXPECT_NE(r.out.find("Lesson wall time (the recorded run's): 3.74 s"), std::string::npos);
}

TEST(Cli, ReplayOfARecordWithAFailedGateIsExitOne) {
  RunRecord rec = load_record(test::h200_lesson_path());
  rec.gates[5].passed = false;
  // As a run whose gate failed writes it: the case that gate covers is not verified either (a
  // record claiming otherwise is refused when read).
  for (Case& c : rec.cases) c.verified = c.verified && c.gate != rec.gates[5].name;
  const std::string path = test::temp_dir() + "/failed.json";
  save_record(rec, path);
  const test::Result r = test::run(kBin + "lesson --replay " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAILED: gate " + rec.gates[5].name), std::string::npos);
}

TEST(Cli, WithoutAGpuTheLessonReplaysTheNewestCommittedRun) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present; the lesson would measure";
  const test::Result r =
      test::run("PINBENCH_DATA_DIR=" + std::string(PINBENCH_DATA_DIR) + " " + kBin + "lesson");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("No usable GPU here", 0), 0u) << r.out;
  EXPECT_NE(
      test::unwrapped(r.out).find("replaying the lesson recorded on 2026-12-01 on NVIDIA H200"),
      std::string::npos);
  EXPECT_NE(test::unwrapped(r.out).find(test::h200_newest_lesson_path()), std::string::npos)
      << "not the newest";
  EXPECT_NE(r.out.find("4. [held]"), std::string::npos) << "prediction 4 from the recorded trace";
  expect_one_line_error(test::run(kBin + "lesson --require-gpu"), 3, "no usable GPU");
  expect_one_line_error(test::run(kBin + "info"), 3, "no usable GPU");
}

TEST(Cli, WithoutAGpuOrRecordsTheLessonSaysWhy) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present; the lesson would measure";
  const std::string empty = test::temp_dir();
  expect_one_line_error(test::run("PINBENCH_DATA_DIR=" + empty + " " + kBin + "lesson"), 3,
                        "no recorded lesson");
}

std::string nsys_dir(const std::string& variant) {
  return std::string(PINBENCH_TEST_DATA_DIR) + "/nsys/" + variant;
}

TEST(CliTraceCheck, HeldIsExitZeroInEveryHeaderVariant) {
  for (const char* variant : {"v2021", "v2023", "v2024", "v2024-us"}) {
    const test::Result r = test::run(kBin + "trace-check " + nsys_dir(variant));
    EXPECT_EQ(r.exit_code, 0) << variant << ": " << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("  pageable  10 calls     147.080 ms of call time\n"), std::string::npos)
        << variant << ":\n"
        << r.out;
    EXPECT_NE(r.out.find("  pinned    10 calls       0.062 ms of call time\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  ratio     2381.3x (the prediction needs at least 5x)\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  verdict   held\n"), std::string::npos) << r.out;
  }
}

TEST(CliTraceCheck, ApiTraceAloneUsesThePageRuleAndTheGpuTraceChecksBytes) {
  const test::Result api = test::run(kBin + "trace-check " + nsys_dir("v2021"));
  EXPECT_NE(api.out.find("Calls chosen by the page's rule"), std::string::npos) << api.out;
  EXPECT_NE(api.out.find("  bytes     not checked"), std::string::npos) << api.out;
  const test::Result gpu = test::run(kBin + "trace-check " + nsys_dir("v2024-us"));
  EXPECT_NE(gpu.out.find("Calls chosen by cuda_gpu_trace's memory kinds"), std::string::npos);
  EXPECT_NE(gpu.out.find("  bytes     equal: pageable 640 MiB (671088640 B), pinned 640 MiB "
                         "(671088640 B)\n"),
            std::string::npos)
      << gpu.out;
}

TEST(CliTraceCheck, DiedIsExitOne) {
  for (const char* variant : {"died", "died-api-only"}) {
    const test::Result r = test::run(kBin + "trace-check " + nsys_dir(variant));
    EXPECT_EQ(r.exit_code, 1) << variant;
    EXPECT_NE(r.out.find("  ratio     4.0x"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  verdict   died\n"), std::string::npos) << r.out;
  }
}

TEST(CliTraceCheck, BadInputIsExitTwoWithOneLine) {
  const std::string dir = test::temp_dir();
  expect_one_line_error(test::run(kBin + "trace-check " + dir + "/absent"), 2,
                        "'" + dir + "/absent' does not exist");
  expect_one_line_error(test::run(kBin + "trace-check " + dir), 2, "holds no nsys stats exports");
  expect_one_line_error(test::run(kBin + "trace-check"), 2, "DIR");

  const auto copy = [](const std::string& from, const std::string& to) {
    std::filesystem::create_directories(to);
    for (const auto& e : std::filesystem::directory_iterator(from)) {
      std::filesystem::copy_file(e.path(), std::filesystem::path(to) / e.path().filename());
    }
  };
  const std::string missing = dir + "/missing";
  copy(nsys_dir("v2024"), missing);
  std::filesystem::remove(missing + "/day53-pinned_nvtx_sum.csv");
  expect_one_line_error(test::run(kBin + "trace-check " + missing), 2,
                        missing + "/day53-pinned_nvtx_sum.csv is missing");

  const std::string cut = dir + "/cut";
  copy(nsys_dir("v2024"), cut);
  const std::string trace = test::read_file(cut + "/day53-pinned_cuda_gpu_trace.csv");
  test::write_file(cut + "/day53-pinned_cuda_gpu_trace.csv", trace.substr(0, trace.size() - 130));
  expect_one_line_error(test::run(kBin + "trace-check " + cut), 2, "(truncated?)");

  const std::string garbage = dir + "/garbage";
  copy(nsys_dir("v2024"), garbage);
  std::string bytes(4096, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 256);
  test::write_file(garbage + "/day53-pinned_cuda_api_trace.csv", bytes);
  const test::Result binary = test::run(kBin + "trace-check " + garbage);
  expect_one_line_error(binary, 2, garbage + "/day53-pinned_cuda_api_trace.csv line ");
  EXPECT_NE(binary.err.find(": binary data (a NUL byte), not CSV text"), std::string::npos);

  const std::string unfit = dir + "/unfit";
  copy(nsys_dir("v2021"), unfit);
  expect_one_line_error(test::run(kBin + "trace-check " + unfit + " --timed 5"), 2,
                        "cannot answer prediction 4: the page's rule needs exactly 12");
  expect_one_line_error(test::run(kBin + "trace-check " + unfit + " --timed 0"), 2,
                        "--timed: '0' is below 1");
}

TEST(CliLessonTrace, TraceNeedsAMeasuredRun) {
  expect_one_line_error(
      test::run(kBin + "lesson --replay " + test::h200_lesson_path() + " --trace t.json"), 2,
      "excludes");
  if (gpu_present()) return;
  const std::string dir = test::temp_dir();
  const test::Result r = test::run("PINBENCH_DATA_DIR=" + std::string(PINBENCH_DATA_DIR) + " " +
                                   kBin + "lesson --trace " + dir + "/t.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "pinbench: note: ignored without a GPU: --trace (nothing was measured or written)\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json"));
}

}  // namespace
}  // namespace pinbench

namespace pinbench {
namespace {

TEST(CliSweep, BadInputIsExitTwo) {
  expect_one_line_error(test::run(kBin + "sweep --kinds pinned,vram"), 2,
                        "unknown host-memory kind 'vram'");
  expect_one_line_error(test::run(kBin + "sweep --directions sideways"), 2,
                        "unknown direction 'sideways'");
  expect_one_line_error(test::run(kBin + "sweep --methods dma"), 2, "unknown copy method 'dma'");
  expect_one_line_error(test::run(kBin + "sweep --sizes 1GiB:4KiB:x2"), 2, "is inverted");
  expect_one_line_error(test::run(kBin + "sweep --sizes ''"), 2, "empty");
  expect_one_line_error(test::run(kBin + "sweep --sizes 4KiB:1MiB:x1"), 2, "factor");
  expect_one_line_error(test::run(kBin + "sweep --max-spread 0"), 2,
                        "--max-spread: '0' is not more than 0");
  expect_one_line_error(test::run(kBin + "sweep --min-samples 1"), 2,
                        "--min-samples: '1' is below 2");
  expect_one_line_error(test::run(kBin + "sweep --pin-cost lots"), 2, "size 'lots'");
  expect_one_line_error(test::run(kBin + "bandwidthtest --size 6"), 2, "multiple of 4 bytes");
  expect_one_line_error(test::run(kBin + "race --size 12"), 2, "multiple of 8 bytes");
  expect_one_line_error(test::run(kBin + "race --trials 0"), 2, "--trials: '0' is below 1");
}

TEST(CliSweep, WithoutAGpuAndWithRequireGpuMeasurementsAreExitThree) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present";
  expect_one_line_error(test::run(kBin + "sweep --sizes 4KiB --require-gpu"), 3, "no usable GPU");
  expect_one_line_error(test::run(kBin + "bandwidthtest --require-gpu"), 3, "no usable GPU");
  expect_one_line_error(test::run(kBin + "race --require-gpu"), 3, "no usable GPU");
}

}  // namespace
}  // namespace pinbench
