// Every measuring subcommand as a user without a GPU meets it: --replay of each committed record
// through its own subcommand, the refusal of a record of another experiment, the no-GPU replay
// and the options it says it ignored, and the small input checks of the CLI. The real binary.
#include <gtest/gtest.h>

#include <array>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "experiments/staged/plan.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "pinbench/staged_options.hpp"

namespace pinbench {
using namespace experiments::staged;
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";
const std::string kRuns = std::string(PINBENCH_DATA_DIR) + "/runs";
// The no-GPU replay reads the committed records whatever folder the binary was built in.
const std::string kWithData = "PINBENCH_DATA_DIR=" + std::string(PINBENCH_DATA_DIR) + " " + kBin;

bool gpu_present() {
  return test::run(kBin + "info").exit_code != 3;
}

// The exact one line on stderr, the exit code, and nothing on stdout.
void expect_error(const test::Result& r, int code, const std::string& message) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.err, "pinbench: error: " + message + "\n");
  EXPECT_EQ(r.out, "") << "printed before refusing";
}

// What each experiment's replay is run with, what its printer opens with, and its wall-time
// label: a line of the experiment's own printer, and one print_run adds.
struct Kind {
  std::string command;
  std::string title;
  std::string wall_label;
};
const std::map<std::string, Kind> kKinds = {
    {"lesson", {"lesson", "pinbench lesson: pinned memory and async copies (Day 53)", "Lesson"}},
    {"sweep", {"sweep", "pinbench sweep: host-memory kinds, directions and copy methods", "Sweep"}},
    {"bandwidthtest", {"bandwidthtest", "Pinned transfers\n", "Bandwidthtest"}},
    {"race", {"race", "pinbench race: overwriting a copy's source", "Race"}},
    {"staged",
     {"staged", "pinbench staged: pageable memory through the staged engine", "Staged benchmark"}},
    {"staged-tune",
     {"staged --tune", "pinbench staged --tune: the staged engine over ring shapes",
      "Staged tuning"}},
    {"pipeline", {"pipeline", "pinbench pipeline: 1 GiB of floats", "Pipeline"}},
    {"doctor", {"doctor", "pinbench doctor: ", "Doctor"}},
    {"accel", {"accel", "pinbench accel: ", "Accel"}},
    {"check", {"check", "pinbench check: ", "Check"}},
    {"host", {"host", "pinbench host: ", "Host"}},
    {"blocks", {"blocks", "pinbench blocks on ", "Blocks"}},
    {"pin", {"pin", "pinbench pin on ", "Pinning"}},
    // A fleet is put together, not measured: no device in its header, no wall time.
    {"fleet", {"fleet", "pinbench fleet: ", ""}},
};

// A health check never stands a recorded run in for a live one, and a fleet measures nothing:
// neither replays without a GPU.
bool replays_without_gpu(const std::string& experiment) {
  return experiment != "check" && experiment != "fleet";
}

std::string wall_line(const RunRecord& r, const Kind& k) {
  if (k.wall_label == "Lesson")
    return fmt::format("Lesson wall time (the recorded run's): {:.2f} s", r.wall_ms / 1000.0);
  return fmt::format("{} wall time (the recorded run's): {:.1f} s.\n", k.wall_label,
                     r.wall_ms / 1000.0);
}

// Every committed run record, by path, with its experiment.
std::vector<std::pair<std::string, RunRecord>> committed_records() {
  std::vector<std::pair<std::string, RunRecord>> out;
  for (const auto& e : std::filesystem::directory_iterator(kRuns)) {
    const std::string path = e.path().string();
    if (e.path().extension() != ".json" || path.find(".trace.json") != std::string::npos) {
      continue;
    }
    out.emplace_back(path, load_record(path));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

TEST(ReplayCli, EveryCommittedRecordReplaysThroughItsOwnSubcommand) {
  std::set<std::string> seen;
  for (const auto& [path, record] : committed_records()) {
    SCOPED_TRACE(path);
    const auto kind = kKinds.find(record.experiment);
    ASSERT_NE(kind, kKinds.end()) << "no subcommand replays '" << record.experiment << "'";
    seen.insert(record.experiment);
    const test::Result r = test::run(kBin + kind->second.command + " --replay " + path);
    EXPECT_EQ(r.exit_code, record.all_gates_passed() ? 0 : 1) << r.err;
    EXPECT_EQ(r.err, "");
    if (kind->second.wall_label.empty()) {
      EXPECT_NE(r.out.find(kind->second.title), std::string::npos) << r.out.substr(0, 400);
      continue;
    }
    EXPECT_EQ(test::unwrapped(r.out).rfind("Replaying " + path + ": " + record.machine.device_name +
                                               ", recorded " + record.created_utc + ".\n\n",
                                           0),
              0u)
        << r.out.substr(0, 200);
    EXPECT_NE(r.out.find(kind->second.title), std::string::npos) << r.out.substr(0, 400);
    EXPECT_NE(r.out.find(wall_line(record, kind->second)), std::string::npos) << r.out;
  }
  // Each kind the CLI measures has a committed record here to replay.
  EXPECT_EQ(seen.size(), kKinds.size());
}

TEST(ReplayCli, PlainStagedReplaysATuningRecordToo) {
  const std::string tune = kRuns + "/staged-tune-h200-2026-12-01T000115Z.json";
  const test::Result r = test::run(kBin + "staged --replay " + tune);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pinbench staged --tune: the staged engine over ring shapes"),
            std::string::npos);
}

TEST(ReplayCli, ARecordOfAnotherExperimentIsRefusedBeforeAnythingIsPrinted) {
  const std::string staged = kRuns + "/staged-h200-2026-11-30T173420Z.json";
  const std::string lesson = test::h200_lesson_path();
  const std::string tune = kRuns + "/staged-tune-h200-2026-11-30T173726Z.json";
  expect_error(test::run(kBin + "lesson --replay " + staged), 2,
               "run record '" + staged +
                   "' is of experiment 'staged', not 'lesson': replay it with 'pinbench staged "
                   "--replay " +
                   staged + "'");
  expect_error(test::run(kBin + "staged --replay " + lesson), 2,
               "run record '" + lesson +
                   "' is of experiment 'lesson', not 'staged' or 'staged-tune': replay it with "
                   "'pinbench lesson --replay " +
                   lesson + "'");
  expect_error(test::run(kBin + "staged --tune --replay " + staged), 2,
               "run record '" + staged +
                   "' is of experiment 'staged', not 'staged-tune': replay it with 'pinbench "
                   "staged --replay " +
                   staged + "'");
  expect_error(test::run(kBin + "sweep --replay " + tune), 2,
               "run record '" + tune +
                   "' is of experiment 'staged-tune', not 'sweep': replay it with 'pinbench "
                   "staged --tune --replay " +
                   tune + "'");
  for (const char* command : {"bandwidthtest", "race", "pipeline"}) {
    const test::Result r = test::run(kBin + command + " --replay " + lesson);
    expect_error(r, 2,
                 fmt::format("run record '{}' is of experiment 'lesson', not '{}': replay it with "
                             "'pinbench lesson --replay {}'",
                             lesson, command, lesson));
  }
}

TEST(ReplayCli, ARecordNoSubcommandMeasuresPointsAtTheReport) {
  RunRecord rec = load_record(test::h200_lesson_path());
  rec.experiment = "notebook";
  const std::string path = test::temp_dir() + "/notebook.json";
  save_record(rec, path);
  expect_error(test::run(kBin + "lesson --replay " + path), 2,
               "run record '" + path +
                   "' is of experiment 'notebook', not 'lesson': render it with 'pinbench report " +
                   path + "'");
}

TEST(ReplayCli, ReplayTakesNoMeasuringOrOutputOption) {
  const std::string lesson = test::h200_lesson_path();
  const std::string tail = ": a replay prints a recorded run, it measures and writes nothing";
  expect_error(test::run(kBin + "lesson --replay " + lesson + " --sizes 4MiB --json x.json"), 2,
               "--replay excludes --sizes, --json" + tail);
  expect_error(test::run(kBin + "lesson --replay " + lesson + " --require-gpu"), 2,
               "--replay excludes --require-gpu" + tail);
  const std::string sweep = kRuns + "/sweep-pinned-h200-2026-11-30T162934Z.json";
  expect_error(test::run(kBin + "sweep --replay " + sweep + " --no-numa --csv x.csv"), 2,
               "--replay excludes --no-numa, --csv" + tail);
  const std::string staged = kRuns + "/staged-h200-2026-12-01T001023Z.json";
  expect_error(test::run(kBin + "staged --replay " + staged + " --h2d-depth 3"), 2,
               "--replay excludes --h2d-depth" + tail);
  // What still applies to a replay is taken.
  EXPECT_EQ(
      test::run(kBin + "lesson --replay " + lesson + " --reference " + test::t4_reference_path())
          .exit_code,
      0);
}

// Without a GPU every measuring subcommand replays the newest committed record of its
// experiment, printed by the same printer as --replay prints it.
TEST(ReplayCli, WithoutAGpuEverySubcommandReplaysItsNewestRecord) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present; the subcommands would measure";
  // The newest measured, complete record of each experiment, found here independently of the
  // binary (a run a signal cut short is never the one replayed).
  std::map<std::string, std::pair<std::string, std::string>> newest;  // experiment: time, path
  for (const auto& [path, record] : committed_records()) {
    if (!replays_without_gpu(record.experiment)) continue;
    auto& best = newest[record.experiment];
    if (record.source == "measured" && !record.incomplete && record.created_utc > best.first) {
      best = {record.created_utc, path};
    }
  }
  std::size_t replaying = 0;
  for (const auto& k : kKinds) replaying += replays_without_gpu(k.first) ? 1 : 0;
  ASSERT_EQ(newest.size(), replaying);
  for (const auto& [experiment, found] : newest) {
    // doctor and accel run the program they are given, GPU or not; their replays are tested in
    // test_doctor_cli and test_accel.
    if (experiment == "doctor" || experiment == "accel") continue;
    const std::string& command = kKinds.at(experiment).command;
    const std::string& path = found.second;
    SCOPED_TRACE(command);
    const test::Result r = test::run(kWithData + command);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "") << "nothing given, so nothing ignored";
    EXPECT_EQ(r.out.rfind("No usable GPU here (", 0), 0u) << r.out.substr(0, 200);
    EXPECT_NE(test::unwrapped(r.out).find("(" + path + "). Use --require-gpu to fail instead.\n\n"),
              std::string::npos)
        << r.out.substr(0, 300);
    // The same printer: what follows the notice is what --replay prints after its header.
    const test::Result replay = test::run(kBin + command + " --replay " + path);
    const std::string notice_end = "to fail instead.\n\n";
    const std::string header_end = ".\n\n";
    const std::string notice = test::unwrapped(r.out);
    const std::string header = test::unwrapped(replay.out);
    ASSERT_NE(notice.find(notice_end), std::string::npos);
    EXPECT_EQ(notice.substr(notice.find(notice_end) + notice_end.size()),
              header.substr(header.find(header_end) + header_end.size()));
    expect_error(test::run(kWithData + command + " --require-gpu"), 3,
                 "no usable GPU: no CUDA driver on this machine");
  }
}

TEST(ReplayCli, WithoutAGpuTheReplayNamesTheOptionsItIgnores) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present; the subcommands would measure";
  const std::string dir = test::temp_dir();
  const auto note = [](const std::string& options) {
    return "pinbench: note: ignored without a GPU: " + options +
           " (nothing was measured or written)\n";
  };
  const test::Result lesson = test::run(kWithData + "lesson --sizes 3MiB --iterations 5");
  EXPECT_EQ(lesson.exit_code, 0) << lesson.err;
  EXPECT_EQ(lesson.err, note("--sizes, --iterations"));
  EXPECT_EQ(lesson.out.rfind("No usable GPU here", 0), 0u);

  const test::Result sweep =
      test::run(kWithData + "sweep --kinds pinned --no-numa --json " + dir + "/s.json");
  EXPECT_EQ(sweep.err, note("--kinds, --no-numa, --json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.json"));

  EXPECT_EQ(test::run(kWithData + "race --trials 3").err, note("--trials"));
  EXPECT_EQ(test::run(kWithData + "bandwidthtest --size 4MiB").err, note("--size"));
  // --tune chose the experiment, so it is not ignored; the grid's options are.
  const test::Result tune = test::run(kWithData + "staged --tune --tune-depths 3,4");
  EXPECT_NE(
      test::unwrapped(tune.out).find("replaying the staged tuning run recorded on 2026-12-01"),
      std::string::npos);
  EXPECT_EQ(tune.err, note("--tune-depths"));
  const test::Result pipeline =
      test::run(kWithData + "pipeline --streams 4 --trace " + dir + "/t.json");
  EXPECT_EQ(pipeline.err, note("--streams, --trace"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json"));
  // What a replay uses is not named.
  const test::Result reference =
      test::run(kWithData + "lesson --reference " + test::t4_reference_path());
  EXPECT_EQ(reference.err, "");
  EXPECT_NE(reference.out.find("on the reference (Tesla T4)"), std::string::npos) << reference.out;
}

TEST(ReplayCli, WithoutAGpuBadInputIsStillExitTwo) {
  expect_error(test::run(kWithData + "bandwidthtest --size 6"), 2,
               "the transfer size must be a positive multiple of 4 bytes (it holds floats), not 6");
  expect_error(test::run(kWithData + "race --trials 0"), 2,
               "--trials: '0' is below 1 (see pinbench race --help)");
  expect_error(test::run(kWithData + "lesson --sizes 0"), 2,
               "--sizes: size '0' is zero (see pinbench lesson --help)");
}

TEST(ReplayCli, WithoutAGpuOrRecordsEachSubcommandSaysWhy) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present; the subcommands would measure";
  const std::string empty = test::temp_dir();
  for (const auto& [command, experiment] :
       std::map<std::string, std::string>{{"sweep", "sweep"},
                                          {"staged --tune", "staged-tune"},
                                          {"pipeline", "pipeline"},
                                          {"pin", "pin"}}) {
    expect_error(test::run("PINBENCH_DATA_DIR=" + empty + " " + kBin + command), 3,
                 "no usable GPU (no CUDA driver on this machine) and no recorded " + experiment +
                     " under " + empty + "/runs");
  }
}

TEST(ReplayCli, ABadReferenceIsNamedAsTheReference) {
  const std::string dir = test::temp_dir();
  const std::string lesson = test::h200_lesson_path();
  expect_error(
      test::run(kBin + "lesson --replay " + lesson + " --reference " + dir + "/absent.json"), 2,
      "reference record '" + dir + "/absent.json': cannot open the file");
  const std::string whole = test::read_file(lesson);
  test::write_file(dir + "/cut.json", whole.substr(0, whole.size() - 100));
  const test::Result cut =
      test::run(kBin + "lesson --replay " + lesson + " --reference " + dir + "/cut.json");
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_EQ(cut.err.rfind("pinbench: error: reference record '" + dir +
                              "/cut.json': the file is not valid JSON (truncated?) near byte ",
                          0),
            0u)
      << cut.err;
  const std::string staged = kRuns + "/staged-h200-2026-11-30T173420Z.json";
  expect_error(test::run(kBin + "lesson --replay " + lesson + " --reference " + staged), 2,
               "reference record '" + staged + "' is of experiment 'staged', not 'lesson'");
  // Loaded before measuring, so a live run fails at once too, GPU or not.
  expect_error(test::run(kWithData + "lesson --reference " + dir + "/absent.json"), 2,
               "reference record '" + dir + "/absent.json': cannot open the file");
}

TEST(ReplayCli, TuneRefusesTheOptionsItWouldIgnore) {
  const std::string grid =
      ": it measures the staged engine alone, over --tune-sizes, --tune-chunks, --tune-depths "
      "and --tune-threads";
  expect_error(test::run(kBin + "staged --tune --methods pinned"), 2,
               "--tune excludes --methods" + grid);
  expect_error(test::run(kBin + "staged --tune --sizes 4KiB --odd-sizes none --h2d-depth 3"), 2,
               "--tune excludes --sizes, --odd-sizes, --h2d-depth" + grid);
  expect_error(test::run(kBin + "staged --tune-depths 3 --tune-chunks 8MiB"), 2,
               "without --tune there is no grid for --tune-chunks, --tune-depths");
}

TEST(ReplayCli, ThreadCountsAndDepthsHaveOneRangeInTheHelpAndTheCheck) {
  // The ranges the CLI offers are the engine's own.
  StagedCopyOptions o;
  o.to_device.depth = kMaxRingDepth;
  o.to_device.threads = kMaxHostThreads;
  o.to_host.depth = kMinRingDepth;
  o.max_staging_bytes = 1ull << 40;
  EXPECT_EQ(staged_options_problem(o), "");
  o.to_device.threads = kMaxHostThreads + 1;
  EXPECT_NE(staged_options_problem(o), "");
  o.to_device.threads = 1;
  o.to_device.depth = kMaxRingDepth + 1;
  EXPECT_NE(staged_options_problem(o), "");
  o.to_device.depth = kMinRingDepth - 1;
  EXPECT_NE(staged_options_problem(o), "");

  // The command line states each range and refuses past it while it is read (cli/numbers.hpp).
  const std::string see = " (see pinbench staged --help)";
  expect_error(test::run(kBin + "staged --tune --tune-threads 257"), 2,
               "--tune-threads: thread count '257' is not a whole number between 1 and 256" + see);
  expect_error(test::run(kBin + "staged --h2d-threads 257"), 2,
               "--h2d-threads: '257' is above 256" + see);
  expect_error(test::run(kBin + "staged --driver-threads 257"), 2,
               "--driver-threads: '257' is above 256" + see);
  expect_error(test::run(kBin + "staged --tune --tune-depths 1"), 2,
               "--tune-depths: depth '1' is not a whole number between 2 and 64" + see);
  expect_error(test::run(kBin + "staged --h2d-depth 65"), 2, "--h2d-depth: '65' is above 64" + see);
  const std::string help = test::run(kBin + "staged --help").out;
  EXPECT_NE(help.find("--tune: ring depths, each 2 to 64"), std::string::npos) << help;
  EXPECT_NE(help.find("--tune: host copy thread counts, each 1 to 256"), std::string::npos);
  EXPECT_NE(help.find("host to device (2 to 64)"), std::string::npos);
  EXPECT_NE(help.find("host to device (1 to 256)"), std::string::npos);
  EXPECT_NE(help.find("Threads of multithread-driver (1 to 256)"), std::string::npos);
  // The ends of the ranges pass the checks: without a GPU they get as far as asking for one.
  if (gpu_present()) return;
  expect_error(test::run(kBin + "staged --tune --tune-threads 1,256 --tune-depths 2,64 "
                                "--tune-chunks 1MiB --require-gpu"),
               3, "no usable GPU: no CUDA driver on this machine");
}

// An option's entry in a help page, its wrapped lines joined: the line starting "  FLAG" and the
// lines under it that hang further in.
std::vector<std::string> help_entries(const std::string& help) {
  std::vector<std::string> entries;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) == 0) {
      entries.push_back(line);
    } else if (!entries.empty() && line.rfind("    ", 0) == 0) {
      entries.back() += " " + line.substr(line.find_first_not_of(' '));
    }
  }
  return entries;
}

TEST(ReplayCli, SizeDefaultsInTheHelpPrintAsAUserTypesThem) {
  // "(default: 64MiB)": a default can be copied back onto the command line as it is.
  const std::regex spaced("[0-9] (B|KiB|MiB|GiB)\\b");
  for (const char* command : {"lesson", "sweep", "bandwidthtest", "race", "staged", "pipeline"}) {
    SCOPED_TRACE(command);
    const test::Result r = test::run(kBin + command + " --help");
    ASSERT_EQ(r.exit_code, 0);
    for (const std::string& entry : help_entries(r.out)) {
      const std::size_t at = entry.find("(default: ");
      if (at != std::string::npos) {
        EXPECT_FALSE(std::regex_search(entry.substr(at), spaced)) << entry;
      }
    }
  }
  const std::vector<std::array<std::string, 3>> shown = {
      {"lesson", "--async-size", "64MiB"},
      {"lesson", "--sizes", "1MiB,4MiB,16MiB,64MiB,256MiB"},
      {"staged", "--h2d-chunk", "8MiB"},
      {"staged", "--odd-sizes", "4099,1048589,67108869,1073741823"},
      {"sweep", "--sizes", "4KiB:256MiB:x4"}};
  for (const auto& [command, flag, value] : shown) {
    bool found = false;
    for (const std::string& entry : help_entries(test::run(kBin + command + " --help").out)) {
      if (entry.rfind("  " + flag + " ", 0) != 0) continue;
      found = true;
      EXPECT_NE(entry.find("(default: " + value + ")"), std::string::npos) << entry;
    }
    EXPECT_TRUE(found) << command << " " << flag;
  }
}

// A run stopped by a signal replays, and reports, as what it is: every case it measured, under a
// first line that says it was cut and by what.
TEST(ReplayCli, AnInterruptedRecordSaysSoFirst) {
  RunRecord rec = load_record(kRuns + "/pipeline-h200-2026-12-01T073316Z.json");
  rec.cases.resize(3);
  rec.incomplete = true;
  rec.interrupted_by = "SIGINT";
  const std::string dir = test::temp_dir();
  save_record(rec, dir + "/cut.json");
  const RunRecord back = load_record(dir + "/cut.json");
  EXPECT_TRUE(back.incomplete);
  EXPECT_EQ(back.interrupted_by, "SIGINT");

  const test::Result r = test::run(kBin + "pipeline --replay " + dir + "/cut.json");
  const std::string banner =
      "INCOMPLETE: SIGINT stopped this run after 3 cases; the record holds every case measured "
      "before it, and nothing after.";
  EXPECT_NE(test::unwrapped(r.out).find("\n\n" + banner + "\n\npinbench pipeline:"),
            std::string::npos)
      << r.out;
  const test::Result md = test::run(kBin + "report " + dir + "/cut.json --markdown -");
  EXPECT_NE(md.out.find(banner), std::string::npos) << md.out;
}

// Two outputs on one file are refused before anything is measured, GPU or not.
TEST(ReplayCli, TwoOutputsOnOneFileAreRefusedBeforeMeasuring) {
  const std::string dir = test::temp_dir();
  expect_error(test::run(kBin + "sweep --json " + dir + "/a --csv " + dir + "/a"), 2,
               "the CSV report '" + dir + "/a' and the run record '" + dir + "/a' are one file");
  expect_error(test::run(kBin + "lesson --json " + dir + "/t --trace " + dir + "/t"), 2,
               "the trace '" + dir + "/t' and the run record '" + dir + "/t' are one file");
  EXPECT_FALSE(std::filesystem::exists(dir + "/a"));
}

}  // namespace
}  // namespace pinbench
