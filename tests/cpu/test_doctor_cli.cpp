// `pinbench doctor` as a user meets it on a machine with no GPU: the program keeps its own
// stdin, stdout, arguments, exit status and signals; every bad input is one line and exit 2;
// and a committed H200 doctor record replays. The real binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/host_info.hpp"
#include "framework/record.hpp"

namespace pinbench {
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";
const std::string kRuns = std::string(PINBENCH_DATA_DIR) + "/runs";

void expect_error(const test::Result& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "pinbench: error: " + message + "\n");
  EXPECT_EQ(r.out, "");
}

TEST(DoctorCli, BadInputIsOneLineAndExitTwo) {
  expect_error(test::run(kBin + "doctor"),
               "no program given: pinbench doctor [options] -- PROGRAM [ARGS...]");
  expect_error(test::run(kBin + "doctor -- no-such-program-here"),
               "program 'no-such-program-here' not found on PATH");
  expect_error(test::run(kBin + "doctor -- ./no/such/file"),
               "program './no/such/file' is not an executable file");
  expect_error(test::run("CUDA_INJECTION64_PATH=/opt/nsys/lib.so " + kBin + "doctor -- true"),
               "CUDA_INJECTION64_PATH is already set (/opt/nsys/lib.so): another CUDA tool is "
               "attached, and doctor needs that variable for its own library");
  expect_error(test::run(kBin + "doctor --fail-on pageable-async,typo -- true"),
               "--fail-on: unknown finding 'typo' (one of pageable-async, pageable-async-d2h, "
               "pageable-sync-loop, alloc-churn, over-pinning, managed-migration, pinned-unused, "
               "pinning-critical-path, pinning-failed, numa-placement, small-copy-storm, "
               "sync-after-copy)");
  const test::Result flush = test::run(kBin + "doctor --flush-ms -1 -- true");
  EXPECT_EQ(flush.exit_code, 2) << flush.err;
  EXPECT_EQ(flush.err.rfind("pinbench: error: --flush-ms", 0), 0u) << flush.err;
  EXPECT_EQ(std::count(flush.err.begin(), flush.err.end(), '\n'), 1) << flush.err;
}

TEST(DoctorCli, EveryProcessHasTheLibraryAndExecAndUnderscoreExitStillWork) {
  // The library is preloaded into every process (its _exit and exec family flush the collector
  // first); in processes that never start the collector they only pass through.
  const test::Result r = test::run(kBin + "doctor -- sh -c 'exec sh -c \"echo \\$LD_PRELOAD\"'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("libpinbench_doctor_inject.so"), std::string::npos) << r.out << r.err;
  const test::Result quick = test::run(kBin + "doctor -- python3 -c 'import os; os._exit(3)'");
  EXPECT_EQ(quick.exit_code, 3) << quick.err;
}

TEST(DoctorCli, AnotherPreloadedLibraryIsKeptAfterDoctorsAndSaidSo) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "under AddressSanitizer its runtime must come first in LD_PRELOAD, so pinbench "
                  "itself cannot start with another library preloaded";
#endif
  const test::Result chained =
      test::run("LD_PRELOAD=libm.so.6 " + kBin + "doctor -- sh -c 'echo $LD_PRELOAD'");
  EXPECT_EQ(chained.exit_code, 0) << chained.err;
  EXPECT_NE(chained.out.find("libpinbench_doctor_inject.so:libm.so.6"), std::string::npos)
      << chained.out;
  EXPECT_NE(chained.err.find("pinbench: note: LD_PRELOAD already names libm.so.6"),
            std::string::npos)
      << chained.err;
}

TEST(DoctorCli, TheProgramKeepsItsStdinStdoutArgumentsAndStatus) {
  test::Result r =
      test::run("printf 'abc' | " + kBin + "doctor -- sh -c 'cat; echo \" $1\"; exit 5' sh x");
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.out, "abc x\n");  // the report goes to stderr, the program's stdout stays its own
  EXPECT_NE(r.err.find("pinbench doctor: sh -c"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("The program made no CUDA calls"), std::string::npos) << r.err;
}

TEST(DoctorCli, TheProgramStartsWithDefaultSignalsAndNoneBlocked) {
  // pinbench ignores SIGPIPE itself; the program must not inherit that.
  // exec: the shell's own status would show what it blocks while it forks.
  const test::Result r =
      test::run(kBin + "doctor -- sh -c 'exec grep -E \"^Sig(Ign|Blk)\" /proc/self/status'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SigBlk:\t0000000000000000"), std::string::npos) << r.out << r.err;
  // The shell itself may ignore nothing at start; SIGPIPE (bit 13) must not be set.
  const std::size_t at = r.out.find("SigIgn:\t");
  ASSERT_NE(at, std::string::npos);
  const unsigned long long ignored = std::stoull(r.out.substr(at + 8, 16), nullptr, 16);
  EXPECT_EQ(ignored & (1ull << 12), 0u) << r.out;
}

TEST(DoctorCli, AProgramKilledByASignalIsSaidAndExitsOneTwentyEightPlusN) {
  const std::string json = test::temp_dir() + "/killed.json";
  const test::Result r = test::run(kBin + "doctor --json " + json + " -- sh -c 'kill -TERM $$'");
  EXPECT_EQ(r.exit_code, 128 + 15) << r.err;
  EXPECT_NE(r.err.find("was killed by SIGTERM"), std::string::npos) << r.err;
  const RunRecord rec = load_record(json);
  EXPECT_EQ(rec.section("doctor")["signal"], "SIGTERM");
}

TEST(DoctorCli, ReplayOfTheTorchRecordsFlagsThePageableOneOnly) {
  const std::string pageable = kRuns + "/doctor-torch-pageable-h200-2026-12-01T095926Z.json";
  const std::string pinned = kRuns + "/doctor-torch-pinned-h200-2026-12-01T095936Z.json";
  test::Result r = test::run(kBin + "doctor --replay " + pageable + " --fail-on pageable-async");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("[pageable-async]: 10 calls, 40 MiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("torch_pageable.py:6 in <module>"), std::string::npos) << r.out;
  r = test::run(kBin + "doctor --replay " + pinned + " --fail-on pageable-async");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("[pageable-async]"), std::string::npos) << r.out;
}

TEST(DoctorCli, RatesComeFromASweepRecordAndABadOneIsRefusedBeforeTheRun) {
  const std::string sweep = kRuns + "/sweep-pinned-h200-2026-11-30T162934Z.json";
  const std::string json = test::temp_dir() + "/rated.json";
  test::Result r = test::run(kBin + "doctor --rates " + sweep + " --json " + json + " -- true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const RunRecord rec = load_record(json);
  EXPECT_FALSE(rec.cases.empty());
  EXPECT_NE(rec.config["rates_from"].get<std::string>().find(sweep), std::string::npos);
  const std::string marker = test::temp_dir() + "/ran";
  r = test::run(kBin + "doctor --rates " + kRuns + "/no-such.json -- touch " + marker);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot open run record"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(marker).good()) << "the program ran before the refusal";
}

TEST(DoctorCli, TraceWritesAPerfettoTimeline) {
  const std::string trace = test::temp_dir() + "/doctor.trace.json";
  const test::Result r = test::run(kBin + "doctor --trace " + trace + " -- true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Timeline written to " + trace), std::string::npos) << r.err;
  EXPECT_NE(test::read_file(trace).find("\"traceEvents\""), std::string::npos);
}

TEST(DoctorCli, TheReportOfADoctorRecordHasItsChartAndTimeline) {
  const std::string html = test::temp_dir() + "/doctor.html";
  const std::string record = kRuns + "/doctor-pageable-async-h200-2026-12-01T100629Z.json";
  const test::Result r = test::run(kBin + "report " + record + " --html " + html);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string page = test::read_file(html);
  EXPECT_NE(page.find("Time lost per call site"), std::string::npos);
  EXPECT_NE(page.find("doctor_pitfalls.cu:52"), std::string::npos);  // the h2d loop's line
  EXPECT_NE(page.find("cudaMemcpyAsync"), std::string::npos);        // in the timeline
}

// A doctor record made here, with no GPU: its HTML report is written, without a timeline.
TEST(DoctorCli, TheReportOfARecordMadeWithoutAGpuIsWritten) {
  const std::string dir = test::temp_dir();
  test::Result r = test::run(kBin + "doctor --json " + dir + "/none.json -- true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The host is described, GPU or not: its name, CPUs and memory.
  const RunRecord record = load_record(dir + "/none.json");
  EXPECT_EQ(record.machine.hostname, host_name());
  EXPECT_FALSE(record.machine.hostname.empty());
  EXPECT_GT(record.machine.host_logical_cpus, 0);
  EXPECT_GT(record.machine.host_memory_bytes, 0u);
  r = test::run(kBin + "report " + dir + "/none.json --html " + dir + "/none.html");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("no complete"), std::string::npos) << r.err;
  const std::string page = test::read_file(dir + "/none.html");
  EXPECT_NE(page.find("</html>"), std::string::npos);
  EXPECT_EQ(page.find(" and .\n"), std::string::npos);
}

TEST(DoctorCli, ReplayRefusesOtherRecordsAndAProgram) {
  const std::string sweep = kRuns + "/staged-h200-2026-11-30T173420Z.json";
  expect_error(test::run(kBin + "doctor --replay " + sweep),
               "run record '" + sweep + "' is of experiment 'staged', not 'doctor'");
  const std::string pinned = kRuns + "/doctor-torch-pinned-h200-2026-12-01T095936Z.json";
  expect_error(test::run(kBin + "doctor --replay " + pinned + " -- true"),
               "--replay takes no program");
  expect_error(test::run(kBin + "doctor --replay " + pinned + " --json x.json"),
               "--replay excludes --json: a replay prints a recorded run");
}

// Every output is checked before the program runs, and none replaces an input: the rates record
// or the program itself.
TEST(DoctorCli, OutputsAreCheckedBeforeTheProgramRunsAndReplaceNoInput) {
  const std::string dir = test::temp_dir();
  const std::string marker = dir + "/ran";
  const std::string folder = "'" + dir +
                             "' is a directory, not a regular file: pinbench writes reports only "
                             "to regular files";
  expect_error(test::run(kBin + "doctor --json " + dir + " -- touch " + marker), folder);
  expect_error(test::run(kBin + "doctor --trace " + dir + " -- touch " + marker), folder);
  const std::string sweep = dir + "/sweep.json";
  std::filesystem::copy_file(kRuns + "/sweep-pinned-h200-2026-11-30T162934Z.json", sweep);
  const std::string rates = test::read_file(sweep);
  expect_error(
      test::run(kBin + "doctor --rates " + sweep + " --json " + sweep + " -- touch " + marker),
      "the run record '" + sweep + "' would overwrite the rates record '" + sweep + "'");
  EXPECT_EQ(test::read_file(sweep), rates);
  std::filesystem::copy_file("/bin/true", dir + "/prog");
  expect_error(test::run(kBin + "doctor --trace " + dir + "/prog -- " + dir + "/prog"),
               "the trace '" + dir + "/prog' would overwrite the program '" + dir + "/prog'");
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the program ran before the refusal";
}

// Rates come from records of one buffer copied whole: a blocks record's cells are not that.
TEST(DoctorCli, RatesFromAnotherKindOfRecordAreRefused) {
  const std::string marker = test::temp_dir() + "/ran";
  const std::string blocks = kRuns + "/blocks-h200-2026-12-02T064418Z.json";
  expect_error(test::run(kBin + "doctor --rates " + blocks + " -- touch " + marker),
               "--rates '" + blocks +
                   "' is a record of experiment 'blocks', whose cases are not "
                   "rates of one copy: give a lesson, sweep, bandwidthtest or doctor record");
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// SIGUSR1, as Slurm sends before a time limit, goes to the program; doctor still reports, exits
// with the program's status and leaves no collector file behind.
TEST(DoctorCli, AJobRunnersSignalGoesToTheProgram) {
  const std::string dir = test::temp_dir();
  std::filesystem::create_directory(dir + "/tmp");
  const std::string program = "sh -c 'trap \"echo got USR1; exit 7\" USR1; touch " + dir +
                              "/ready; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); "
                              "done'";
  const test::Result r = test::run_and_signal(
      "TMPDIR=" + dir + "/tmp " + kBin + "doctor --no-calibration -- " + program, dir + "/ready",
      "USR1");
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(r.out, "got USR1\n");
  EXPECT_NE(r.err.find("pinbench doctor: sh -c"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/tmp")) << "the collector's file was left";
}

// A descendant still running when doctor stops waiting may make the CUDA calls: the report says
// what was not seen, never "made no CUDA calls".
TEST(DoctorCli, ADescendantStillRunningIsNamedNotCalledNoCuda) {
  const std::string dir = test::temp_dir();
  test::Result r =
      test::run(kBin + "doctor -- sh -c '(sleep 0.5; touch " + dir + "/late) >/dev/null 2>&1 &'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/late")) << "doctor did not wait for the descendant";
  EXPECT_NE(r.err.find("made no CUDA calls: nothing to diagnose"), std::string::npos) << r.err;

  r = test::run(kBin + "doctor --wait-descendants 0.2 --json " + dir +
                "/run.json -- sh -c 'sleep 3 >/dev/null 2>&1 &'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 process the program started was still running when doctor stopped "
                       "waiting for it (pid "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("nothing to diagnose"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No CUDA call was seen"), std::string::npos) << r.err;
  const RunRecord rec = load_record(dir + "/run.json");
  ASSERT_EQ(rec.section("doctor")["still_running"].size(), 1u);
}

}  // namespace
}  // namespace pinbench
