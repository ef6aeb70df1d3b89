// `pinbench accel` without a GPU: the counter files the library leaves (hand-made ones, good and
// bad), the record's accel section both ways, the report of the committed H200 records, and the
// command as a user meets it (the program's own stdout and status, bad input as one line and exit
// 2, a signal as 128 + N, another LD_PRELOAD kept). The real binary and library for the last.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "experiments/accel/report.hpp"
#include "experiments/accel/summary.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"

namespace pinbench::experiments::accel {
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";
const std::string kRuns = std::string(PINBENCH_DATA_DIR) + "/runs";
const std::string kTorchRecord = kRuns + "/accel-torch-h200-2026-12-02T024712Z.json";

ProcessCounters counters(int pid) {
  ProcessCounters c;
  std::memset(&c, 0, sizeof c);
  std::memcpy(c.magic, kCountersMagic, sizeof c.magic);
  c.version = kCountersVersion;
  c.size = sizeof c;
  c.pid = pid;
  c.parent_pid = 1;
  c.start_unix_ns = 1000000000;
  c.end_unix_ns = 3500000000;
  c.reach = kCalledUs | kSharedRuntime | kDriver | kExitRan;
  c.engines = 1;
  c.staging_bytes = 80u << 20;
  std::strcpy(c.program, "python3 train.py");
  Tally& routed = c.by_outcome[0][static_cast<int>(Outcome::kRouted)];
  routed = {10, 640u << 20, 20000000};
  c.by_outcome[1][static_cast<int>(Outcome::kSmall)] = {3, 3000, 9000};
  c.routed_by_size[0][26] = {10, 640u << 20, 20000000};
  return c;
}

TEST(AccelCounters, ReadKeepsEveryOutcomeWithCopiesAndTheRoutedSizes) {
  const AccelProcess p = read_counters(counters(42));
  EXPECT_EQ(p.pid, 42);
  EXPECT_EQ(p.program, "python3 train.py");
  EXPECT_TRUE(p.called && p.shared_runtime && p.driver && p.exit_ran);
  EXPECT_FALSE(p.cupy || p.chained);
  EXPECT_DOUBLE_EQ(p.wall_ms, 2500.0);
  ASSERT_EQ(p.outcomes.size(), 2u);
  EXPECT_EQ(p.outcomes[0].direction, "h2d");
  EXPECT_EQ(p.outcomes[0].outcome, "routed");
  EXPECT_EQ(p.outcomes[0].tally.copies, 10u);
  EXPECT_DOUBLE_EQ(p.outcomes[0].tally.host_ms, 20.0);
  EXPECT_EQ(p.outcomes[1].direction, "d2h");
  EXPECT_EQ(p.outcomes[1].outcome, "small");
  ASSERT_EQ(p.routed_sizes.size(), 1u);
  EXPECT_EQ(p.routed_sizes[0].from_bytes, 64u << 20);
  EXPECT_FALSE(out_of_reach(p));
}

TEST(AccelCounters, AnotherLayoutIsRefused) {
  ProcessCounters c = counters(1);
  c.magic[0] = 'X';
  EXPECT_THROW(read_counters(c), InputError);
  c = counters(1);
  c.version = 99;
  try {
    read_counters(c);
    FAIL() << "version 99 was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("version 99"), std::string::npos) << e.what();
  }
}

TEST(AccelCounters, AFolderGivesEveryProcessByPidAndCountsWhatCannotBeRead) {
  const std::string dir = std::string(PINBENCH_TEST_OUTPUT_DIR) + "/accel-counters";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (int pid : {300, 200}) {
    const ProcessCounters c = counters(pid);
    std::ofstream(dir + "/p" + std::to_string(pid) + "-0.counters", std::ios::binary)
        .write(reinterpret_cast<const char*>(&c), sizeof c);
  }
  std::ofstream(dir + "/p9-0.counters") << "cut short";
  std::ofstream(dir + "/notes.txt") << "not a counter file: left alone";
  const AccelRun run = read_counter_folder(dir);
  ASSERT_EQ(run.processes.size(), 2u);
  EXPECT_EQ(run.processes[0].pid, 200);
  EXPECT_EQ(run.processes[1].pid, 300);
  EXPECT_EQ(run.unreadable, 1);
  EXPECT_EQ(total(run, "h2d", "routed").copies, 20u);
  EXPECT_EQ(total(run, "", "").copies, 26u);
  EXPECT_THROW(read_counter_folder(dir + "/absent"), InputError);
}

TEST(AccelSection, RoundTripsAndABadFieldIsNamed) {
  AccelRun run;
  run.command = {"python3", "train.py"};
  run.exit_status = 3;
  run.wall_ms = 12.5;
  run.processes.push_back(read_counters(counters(7)));
  const AccelRun back = accel_run_from_json(to_json(run));
  EXPECT_EQ(back.command, run.command);
  EXPECT_EQ(back.exit_status, 3);
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(back.processes[0].outcomes.size(), 2u);
  EXPECT_EQ(back.processes[0].routed_sizes[0].from_bytes, 64u << 20);
  EXPECT_EQ(to_json(back), to_json(run));

  const auto refused = [&](const std::function<void(nlohmann::json&)>& spoil,
                           const std::string& message) {
    nlohmann::json j = to_json(run);
    spoil(j);
    try {
      accel_run_from_json(j);
      ADD_FAILURE() << "accepted: " << message;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  refused([](nlohmann::json& j) { j["processes"][0]["outcomes"][0]["outcome"] = "teleported"; },
          "run record: 'accel.processes[0].outcomes[0].outcome' is 'teleported', not one of "
          "routed, failed, small, page-locked, managed, not-host-device, strided, capturing, "
          "pending-error, other-device, unknown-memory, engine-refused, engine-unavailable, "
          "forked-child, other-context");
  refused([](nlohmann::json& j) { j["processes"][0]["routed_sizes"][0]["from_bytes"] = 3; },
          "run record: 'accel.processes[0].routed_sizes[0].from_bytes' is 3, not a power of 2");
  refused([](nlohmann::json& j) { j["wall_ms"] = -1; },
          "run record: 'accel.wall_ms' is -1, not a time in ms from 0 to 31536000000");
  refused([](nlohmann::json& j) { j.erase("processes"); },
          "run record: 'accel.processes' is missing");
}

TEST(AccelReport, TheTorchRecordShowsItsRoutedCopiesBySize) {
  const RunRecord record = load_record(kTorchRecord);
  const ReportModel m = analyse(record);
  EXPECT_EQ(m.title.rfind("pinbench accel: ", 0), 0u) << m.title;
  std::vector<std::string> ids;
  for (const ReportTable& t : m.tables) ids.push_back(t.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"accel-processes", "accel-copies", "accel-sizes"}));
  const AccelRun run = accel_run_from_json(record.section("accel"));
  EXPECT_GT(total(run, "h2d", "routed").copies, 0u);
  EXPECT_GT(total(run, "d2h", "routed").copies, 0u);
  EXPECT_EQ(total(run, "", "failed").copies, 0u);
  EXPECT_EQ(exit_code(m), 0);
}

TEST(AccelReport, AProcessThatUsedCudaWithoutReachingAccelIsSaidToBeOutOfReach) {
  ProcessCounters c = counters(5);
  c.reach = kDriver | kExitRan;  // CUDA, but no copy call came to the library
  std::memset(c.by_outcome, 0, sizeof c.by_outcome);
  std::memset(c.routed_by_size, 0, sizeof c.routed_by_size);
  AccelRun run;
  run.command = {"./static_runtime_program"};
  run.processes.push_back(read_counters(c));
  ASSERT_TRUE(out_of_reach(run.processes[0]));
  RunRecord record;
  record.experiment = "accel";
  record.sections["accel"] = to_json(run);
  const ReportModel m = analyse(record);
  bool said = false;
  for (const std::string& n : m.notes) said |= n.find("out of its reach") != std::string::npos;
  EXPECT_TRUE(said);
}

void expect_error(const test::Result& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "pinbench: error: " + message + "\n");
  EXPECT_EQ(r.out, "");
}

TEST(AccelCli, BadInputIsOneLineAndExitTwo) {
  expect_error(test::run(kBin + "accel"),
               "no program given: pinbench accel [options] -- PROGRAM [ARGS...]");
  expect_error(test::run(kBin + "accel -- no-such-program-here"),
               "program 'no-such-program-here' not found on PATH");
  expect_error(test::run(kBin + "accel --replay " + kTorchRecord + " -- true"),
               "--replay takes no program");
  const std::string lesson = kRuns + "/lesson-h200-2026-11-30T155159Z.json";
  expect_error(test::run(kBin + "accel --replay " + lesson),
               "run record '" + lesson + "' is of experiment 'lesson', not 'accel'");
}

TEST(AccelCli, TheProgramKeepsItsStdinStdoutArgumentsAndStatus) {
  const test::Result r =
      test::run("printf 'abc' | " + kBin + "accel -- sh -c 'cat; echo \" $1\"; exit 5' sh x");
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_EQ(r.out, "abc x\n");  // the report goes to stderr
  EXPECT_NE(r.err.find("pinbench accel: sh -c"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No copy call reached accel."), std::string::npos) << r.err;
}

TEST(AccelCli, AProgramKilledByASignalExitsOneTwentyEightPlusN) {
  const test::Result r = test::run(kBin + "accel -- sh -c 'kill -TERM $$'");
  EXPECT_EQ(r.exit_code, 143);
  EXPECT_NE(r.err.find("killed by SIGTERM"), std::string::npos) << r.err;
}

TEST(AccelCli, AnotherPreloadedLibraryIsKeptAfterAccelsAndSaidSo) {
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "under AddressSanitizer its runtime must come first in LD_PRELOAD, so pinbench "
                  "itself cannot start with another library preloaded";
#endif
  const test::Result r =
      test::run("LD_PRELOAD=libm.so.6 " + kBin + "accel -- sh -c 'echo \"$LD_PRELOAD\"'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("libpinbench_accel.so:libm.so.6"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("LD_PRELOAD already names libm.so.6; accel's library goes before it"),
            std::string::npos)
      << r.err;
}

TEST(AccelCli, AReplayPrintsTheRecordedRun) {
  const test::Result r = test::run(kBin + "accel --replay " + kTorchRecord);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Copy calls by outcome"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("routed: through the staged engine"), std::string::npos) << r.out;
}

// The outputs are checked before the program runs: its status and the record are never lost to
// a --json that names a folder, and no output replaces the program.
TEST(AccelCli, OutputsAreCheckedBeforeTheProgramRuns) {
  const std::string dir = test::temp_dir();
  const std::string marker = dir + "/ran";
  expect_error(test::run(kBin + "accel --json " + dir + " -- touch " + marker),
               "'" + dir +
                   "' is a directory, not a regular file: pinbench writes reports only "
                   "to regular files");
  expect_error(test::run(kBin + "accel --json " + dir + "/no/such/x.json -- touch " + marker),
               "cannot write '" + dir + "/no/such/x.json': no file can be created in '" + dir +
                   "/no/such': No such file or directory");
  std::filesystem::copy_file("/bin/true", dir + "/prog");
  const std::string before = test::read_file(dir + "/prog");
  expect_error(test::run(kBin + "accel --json " + dir + "/prog -- " + dir + "/prog"),
               "the run record '" + dir + "/prog' would overwrite the program '" + dir + "/prog'");
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the program ran before the refusal";
  EXPECT_EQ(test::read_file(dir + "/prog"), before);
}

// What Slurm and other job runners send before a time limit (SIGUSR1, SIGUSR2, SIGALRM) goes to
// the program, which decides; accel reports as usual and leaves no counter folder behind.
TEST(AccelCli, AJobRunnersSignalsGoToTheProgram) {
  for (const std::string sig : {"USR1", "USR2", "ALRM", "HUP"}) {
    const std::string dir = test::temp_dir();
    std::filesystem::create_directory(dir + "/tmp");
    const std::string program = "sh -c 'trap \"echo got " + sig + "; exit 7\" " + sig + "; touch " +
                                dir + "/ready; i=0; while [ $i -lt 200 ]; do sleep " +
                                "0.05; i=$((i+1)); done'";
    const test::Result r = test::run_and_signal(
        "TMPDIR=" + dir + "/tmp " + kBin + "accel -- " + program, dir + "/ready", sig);
    EXPECT_EQ(r.exit_code, 7) << sig << ": " << r.err;
    EXPECT_EQ(r.out, "got " + sig + "\n") << sig;
    EXPECT_NE(r.err.find("pinbench accel: sh -c"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::is_empty(dir + "/tmp")) << sig << ": a counter folder was left";
  }
}

// What the program leaves running is waited for (within --wait-descendants), or named in the
// report and the record.
TEST(AccelCli, WhatTheProgramLeavesRunningIsWaitedForOrNamed) {
  const std::string dir = test::temp_dir();
  test::Result r =
      test::run(kBin + "accel -- sh -c '(sleep 0.5; touch " + dir + "/late) >/dev/null 2>&1 &'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/late")) << "accel did not wait for the descendant";
  EXPECT_EQ(r.err.find("still running"), std::string::npos) << r.err;

  const auto t0 = std::chrono::steady_clock::now();
  r = test::run(kBin + "accel --wait-descendants 0.2 --json " + dir +
                "/run.json -- sh -c 'sleep 3 >/dev/null 2>&1 &'");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(took, 2.5);
  EXPECT_NE(test::unwrapped(r.err).find(
                "1 process the program started was still running when accel stopped "
                "waiting for it (pid "),
            std::string::npos)
      << r.err;
  EXPECT_NE(test::unwrapped(r.err).find("(sleep 3)"), std::string::npos) << r.err;
  const AccelRun run = accel_run_from_json(load_record(dir + "/run.json").section("accel"));
  ASSERT_EQ(run.still_running.size(), 1u);
  EXPECT_NE(run.still_running[0].find("sleep 3"), std::string::npos);
  const test::Result negative = test::run(kBin + "accel --wait-descendants=-1 -- true");
  EXPECT_EQ(negative.exit_code, 2) << negative.err;
  EXPECT_NE(negative.err.find("--wait-descendants"), std::string::npos) << negative.err;
}

// Bytes over host time is a rate only where the call held the thread for its copy: an
// asynchronous copy from page-locked memory returns at once (the committed record's page-locked
// row read 16,200 GB/s).
TEST(AccelReport, CallsThatMayReturnBeforeTheirCopyHaveNoRate) {
  const ReportModel m = analyse(load_record(kTorchRecord));
  const ReportTable* copies = nullptr;
  for (const ReportTable& t : m.tables) copies = t.id == "accel-copies" ? &t : copies;
  ASSERT_NE(copies, nullptr);
  std::size_t page_locked = 0, routed = 0;
  for (const std::vector<std::string>& row : copies->rows) {
    if (row[2].rfind("page-locked", 0) == 0) {
      ++page_locked;
      EXPECT_EQ(row.back(), kDash) << row[2];
    }
    if (row[2].rfind("routed", 0) == 0) {
      ++routed;
      EXPECT_NE(row.back(), kDash) << row[2];
      EXPECT_LT(std::stod(row.back()), 1000.0);
    }
  }
  EXPECT_GT(page_locked, 0u);
  EXPECT_GT(routed, 0u);
}

// Two accel records compare by what was routed and how fast, not by cases (they have none).
TEST(AccelCompare, WhatWasRoutedAndHowFast) {
  AccelRun before;
  before.command = {"./train"};
  before.processes.push_back(read_counters(counters(7)));
  AccelRun after = before;
  after.processes[0].outcomes[0].tally.host_ms *= 2;  // routed copies at half the rate
  RunRecord a;
  a.experiment = "accel";
  a.pinbench_version = "0.1.0";
  a.created_utc = "2026-12-02T10:00:00Z";
  a.sections["accel"] = to_json(before);
  RunRecord b = a;
  b.sections["accel"] = to_json(after);
  const ExperimentComparison same = compare_accel(a, a);
  EXPECT_FALSE(same.differs) << same.text;
  EXPECT_NE(same.text.find("routed"), std::string::npos) << same.text;
  const ExperimentComparison slower = compare_accel(a, b);
  EXPECT_TRUE(slower.differs) << slower.text;
  EXPECT_NE(slower.text.find("B is worse: host to device: routed copies at 16.78 GB/s in B "
                             "against 33.55 in A"),
            std::string::npos)
      << slower.text;

  const std::string dir = test::temp_dir();
  save_record(a, dir + "/a.json");
  save_record(b, dir + "/b.json");
  const test::Result cli = test::run(kBin + "compare " + dir + "/a.json " + dir + "/b.json");
  EXPECT_EQ(cli.exit_code, 1) << cli.err;
  EXPECT_NE(cli.out.find("What accel routed"), std::string::npos) << cli.out;
  const test::Result committed = test::run(kBin + "compare " + kTorchRecord + " " + kRuns +
                                           "/accel-torch-h200-2026-12-02T031937Z.json");
  EXPECT_NE(committed.exit_code, 2) << committed.err;
  EXPECT_NE(committed.out.find("What accel routed"), std::string::npos) << committed.out;
}

}  // namespace
}  // namespace pinbench::experiments::accel
