// `pinbench report` and `pinbench compare` as a user meets them: the real binary, its files,
// its exit codes, and one clear line on stderr for every bad input.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "experiments/staged/analysis.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/text.hpp"
#include "golden_normalise.hpp"

namespace pinbench {
using namespace experiments::staged;
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

void expect_one_line_error(const test::Result& r, const std::string& contains) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Bad files of every kind, in a fresh folder.
struct BadFiles {
  std::string dir = test::temp_dir();
  std::string absent = dir + "/absent.json";
  std::string cut = dir + "/cut.json";
  std::string foreign = dir + "/foreign.json";
  BadFiles() {
    const std::string whole = test::read_file(test::h200_lesson_path());
    test::write_file(cut, whole.substr(0, whole.size() / 2));
    test::write_file(foreign, R"({"traceEvents": []})");
  }
};

TEST(ReportCli, WritesTheExpectedFiles) {
  const std::string dir = test::temp_dir();
  const test::Result r =
      test::run(kBin + "report " + test::h200_lesson_path() + " --html " + dir + "/r.html" +
                " --markdown " + dir + "/r.md --csv " + dir + "/r.csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.out, "HTML report written to " + dir + "/r.html.\nMarkdown report written to " + dir +
                       "/r.md.\nCSV report written to " + dir + "/r.csv.\n");
  EXPECT_EQ(test::normalise_html(test::read_file(dir + "/r.html")),
            test::read_file(test::golden_path("report-h200.html")));
  EXPECT_EQ(test::read_file(dir + "/r.md"), test::read_file(test::golden_path("report-h200.md")));
  EXPECT_EQ(test::read_file(dir + "/r.csv"), test::read_file(test::golden_path("report-h200.csv")));
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.html.tmp"));
}

// The terminal text of a record whose experiment has no replay of its own yet: the same
// printer the measuring command uses, so staged and pipeline runs can be read without a GPU.
TEST(ReportCli, TextOfAStagedRecordIsWhatTheCommandPrinted) {
  const std::string record =
      std::string(PINBENCH_DATA_DIR) + "/runs/staged-h200-2026-12-01T001023Z.json";
  const test::Result r = test::run(kBin + "report " + record + " --text -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, render_text(analyse(load_record(record))));
  EXPECT_EQ(r.out.rfind("pinbench staged: ", 0), 0u) << r.out.substr(0, 80);
  EXPECT_NE(r.out.find(kStagedGoalsTitle), std::string::npos);
  EXPECT_NE(test::unwrapped(r.out).find(
                "Sampling: 252 cases; 252 from a record that does not say why sampling stopped."),
            std::string::npos);
  EXPECT_NE(r.out.find("Unstable cases ("), std::string::npos);
}

TEST(ReportCli, MarkdownToStdoutByDefault) {
  const test::Result r = test::run(kBin + "report " + test::h200_lesson_path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, test::read_file(test::golden_path("report-h200.md")));
  const test::Result csv = test::run(kBin + "report " + test::h200_lesson_path() + " --csv -");
  EXPECT_EQ(csv.out, test::read_file(test::golden_path("report-h200.csv")));
}

TEST(ReportCli, ATraceBesideTheRecordAddsTheTimeline) {
  const std::string dir = test::temp_dir();
  save_record(test::make_sweep_record(), dir + "/sweep.json");
  std::filesystem::copy_file(test::sweep_trace_path(), dir + "/sweep.trace.json");
  const test::Result r =
      test::run(kBin + "report " + dir + "/sweep.json --html " + dir + "/sweep.html");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::normalise_html(test::read_file(dir + "/sweep.html")),
            test::read_file(test::golden_path("report-sweep.html")));

  // A damaged trace costs the timeline, not the report, and says so once.
  test::write_file(dir + "/sweep.trace.json", "{\"traceEvents\": [");
  const test::Result damaged =
      test::run(kBin + "report " + dir + "/sweep.json --html " + dir + "/damaged.html");
  EXPECT_EQ(damaged.exit_code, 0) << damaged.err;
  EXPECT_EQ(damaged.err.rfind("pinbench: note: no timeline in the HTML report: trace '", 0), 0u)
      << damaged.err;
  EXPECT_NE(test::read_file(dir + "/damaged.html").find("No timeline: trace"), std::string::npos);
}

TEST(ReportCli, HelpAndThePublishedReference) {
  EXPECT_EQ(test::run(kBin + "report --help").exit_code, 0);
  EXPECT_EQ(test::run(kBin + "compare --help").exit_code, 0);
  const test::Result r = test::run(kBin + "report " + test::t4_reference_path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("published tables, one figure per case"), std::string::npos);
  EXPECT_NE(r.out.find("pinbench did not verify their bytes or buffers"), std::string::npos);
  EXPECT_EQ(r.out.find("gates passed."), std::string::npos);
}

TEST(ReportCli, BadInputIsOneLineAndExitTwo) {
  const BadFiles bad;
  expect_one_line_error(test::run(kBin + "report " + bad.absent), "cannot open run record");
  expect_one_line_error(test::run(kBin + "report " + bad.cut), "not valid JSON (truncated?)");
  expect_one_line_error(test::run(kBin + "report " + bad.foreign), "not a pinbench run record");
  expect_one_line_error(test::run(kBin + "report"), "RECORD is required");
  expect_one_line_error(test::run(kBin + "report " + test::h200_lesson_path() + " --pdf x.pdf"),
                        "--pdf");
  expect_one_line_error(test::run(kBin + "report " + test::h200_lesson_path() + " --html " +
                                  bad.dir + "/no/such/folder/r.html"),
                        "cannot write");
  const std::string copy = bad.dir + "/run.json";
  std::filesystem::copy_file(test::h200_lesson_path(), copy);
  expect_one_line_error(test::run(kBin + "report " + copy + " --csv " + copy),
                        "would overwrite the run record");
  EXPECT_EQ(test::read_file(copy), test::read_file(test::h200_lesson_path()));
}

// Each refusal of the record validation, as the user meets it: exit 2, and exactly one line
// that names the file and the field.
TEST(ReportCli, InvalidRecordsAreRefusedWithExitTwoAndTheirField) {
  const std::string dir = test::temp_dir();
  auto expect_refusal = [&](const std::string& name, const nlohmann::json& j,
                            const std::string& what) {
    const std::string path = dir + "/" + name;
    test::write_file(path, j.dump());
    const test::Result r = test::run(kBin + "report " + path);
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_EQ(r.err, "pinbench: error: '" + path + "': run record: " + what + "\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
  };
  const nlohmann::json good = to_json(test::make_lesson_record());
  nlohmann::json j = good;
  j["cases"][3]["bytes"] = -1048576;
  expect_refusal("negative.json", j,
                 "'cases[3].bytes' is -1048576: a byte count cannot be negative");
  j = good;
  j["created_utc"] = "yesterday";
  expect_refusal("date.json", j,
                 "'created_utc' is \"yesterday\", not an RFC 3339 date-time like "
                 "2026-11-30T16:04:05Z");
  j = good;
  j["cases"][5]["samples_ms"] = nlohmann::json::array();
  expect_refusal("nosamples.json", j,
                 "'cases[5].samples_ms' is empty: a case without samples has no figure to show");

  // A number past a double is refused while parsing, by its field, not as an internal error.
  std::string text = good.dump();
  const std::string key = "\"bytes\":1048576";
  text.replace(text.find(key), key.size(), "\"bytes\":1e400");
  test::write_file(dir + "/huge.json", text);
  const test::Result huge = test::run(kBin + "report " + dir + "/huge.json");
  EXPECT_EQ(huge.exit_code, 2) << huge.err;
  EXPECT_EQ(huge.err, "pinbench: error: '" + dir +
                          "/huge.json': run record: 'cases[0].bytes' is 1e400, a number out of "
                          "range\n");
}

TEST(ReportCli, StreamsDevicesAndFoldersAreRefusedAtOnceWithExitTwo) {
  const std::string dir = test::temp_dir();
  const test::Result zero = test::run(kBin + "report /dev/zero");
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_EQ(zero.err,
            "pinbench: error: '/dev/zero' is a character device, not a regular file: pinbench "
            "reads a run record only from a file\n");
  // A pipe: `yes` would run forever if the stream were read.
  const test::Result pipe = test::run("yes | " + kBin + "report /dev/stdin");
  EXPECT_EQ(pipe.exit_code, 2) << pipe.err;
  EXPECT_EQ(pipe.err,
            "pinbench: error: '/dev/stdin' is a fifo, not a regular file: pinbench reads a run "
            "record only from a file\n");
  // A FIFO with no writer: opening it must not wait for one.
  ASSERT_EQ(::mkfifo((dir + "/fifo.json").c_str(), 0644), 0);
  const test::Result fifo = test::run("timeout 20 " + kBin + "report " + dir + "/fifo.json");
  EXPECT_EQ(fifo.exit_code, 2) << fifo.err;
  EXPECT_EQ(fifo.err, "pinbench: error: '" + dir +
                          "/fifo.json' is a fifo, not a regular file: pinbench reads a run record "
                          "only from a file\n");
  const test::Result folder = test::run(kBin + "report " + dir);
  EXPECT_EQ(folder.exit_code, 2) << folder.err;
  EXPECT_EQ(folder.err, "pinbench: error: '" + dir + "' is a directory, not a run record\n");
}

TEST(ReportCli, OutputsThatAreNotRegularFilesAreRefused) {
  const test::Result dev =
      test::run(kBin + "report " + test::h200_lesson_path() + " --csv /dev/full");
  EXPECT_EQ(dev.exit_code, 2) << dev.err;
  EXPECT_EQ(dev.err,
            "pinbench: error: '/dev/full' is a character device, not a regular file: pinbench "
            "writes reports only to regular files\n");
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
  // A full disk under standard output is an error, not exit 0.
  const test::Result full = test::run(kBin + "report " + test::h200_lesson_path() + " > /dev/full");
  EXPECT_EQ(full.exit_code, 2) << full.err;
  EXPECT_EQ(full.err,
            "pinbench: error: cannot write to standard output: No space left on device\n");
}

// The reader of a pipe may stop early (`| head`): pinbench ends quietly, with nothing on stderr.
TEST(ReportCli, AClosedPipeEndsQuietly) {
  // A sweep's CSV is far larger than a pipe's buffer, so pinbench is still writing when head
  // has gone: the write meets EPIPE.
  const std::string sweep =
      std::string(PINBENCH_DATA_DIR) + "/runs/sweep-h200-2026-11-30T162938Z.json";
  const test::Result r = test::run("bash -c 'set -o pipefail; " + kBin + "report " + sweep +
                                   " --csv - | head -c 10 >/dev/null'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(ReportCli, AnOutputThatIsAnInputOrAnotherOutputIsRefused) {
  const std::string dir = test::temp_dir();
  std::filesystem::copy_file(test::h200_traced_lesson_path(), dir + "/run.json");
  test::write_file(dir + "/run.trace.json", test::read_file(test::sweep_trace_path()));
  std::filesystem::create_symlink(dir + "/run.trace.json", dir + "/link.html");
  const std::string before = test::read_file(dir + "/run.trace.json");
  const test::Result trace =
      test::run(kBin + "report " + dir + "/run.json --html " + dir + "/run.trace.json");
  EXPECT_EQ(trace.exit_code, 2);
  EXPECT_EQ(trace.err, "pinbench: error: the HTML report '" + dir +
                           "/run.trace.json' would overwrite the trace '" + dir +
                           "/run.trace.json'\n");
  const test::Result link =
      test::run(kBin + "report " + dir + "/run.json --html " + dir + "/link.html");
  EXPECT_EQ(link.exit_code, 2);
  EXPECT_NE(link.err.find("would overwrite the trace"), std::string::npos) << link.err;
  EXPECT_EQ(test::read_file(dir + "/run.trace.json"), before);

  const test::Result twice =
      test::run(kBin + "report " + dir + "/run.json --html " + dir + "/x --csv " + dir + "/x");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "pinbench: error: the CSV report '" + dir + "/x' and the HTML report '" +
                           dir + "/x' are one file\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/x"));
  const test::Result both = test::run(kBin + "report " + dir + "/run.json --csv - --markdown -");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err,
            "pinbench: error: the Markdown report and the CSV report both go to standard output\n");
}

TEST(CompareCli, ExitOneWhenACaseDiffersBeyondTheThreshold) {
  const std::string runs = test::h200_earlier_lesson_path() + " " + test::h200_lesson_path();
  const test::Result r = test::run(kBin + "compare " + runs);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.out.rfind("Same machine: NVIDIA H200", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("27 cases in common; 1 differs by more than 20%."), std::string::npos);
  const test::Result loose = test::run(kBin + "compare " + runs + " --threshold 30");
  EXPECT_EQ(loose.exit_code, 0) << loose.err;
  EXPECT_NE(loose.out.find("none differs by more than 30%"), std::string::npos);
}

// Another GPU model is another condition: both records shown side by side, neither judged (exit
// 5); the machines' differences are still said first.
TEST(CompareCli, AnotherGpuModelIsShownNotJudged) {
  const test::Result r =
      test::run(kBin + "compare " + test::t4_reference_path() + " " + test::h200_lesson_path());
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_EQ(r.out.rfind("Different machines (device Tesla T4 vs NVIDIA H200", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n  - GPU model: Tesla T4 in A, NVIDIA H200 in B\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("14 cases in both, none judged."), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("differs by more than"), std::string::npos) << r.out;
}

TEST(CompareCli, BadInputIsOneLineAndExitTwo) {
  const BadFiles bad;
  const std::string good = test::h200_lesson_path();
  for (const std::string& path : {bad.absent, bad.cut, bad.foreign}) {
    expect_one_line_error(test::run(kBin + "compare " + good + " " + path), path);
    expect_one_line_error(test::run(kBin + "compare " + path + " " + good), path);
  }
  // A record of the same conditions with no case in common: every size moved by one byte.
  RunRecord other = load_record(good);
  for (Case& c : other.cases) ++c.bytes;
  const std::string apart = bad.dir + "/apart.json";
  save_record(other, apart);
  expect_one_line_error(test::run(kBin + "compare " + good + " " + apart), "no case in common");
  expect_one_line_error(test::run(kBin + "compare " + good), "B is required");
  expect_one_line_error(test::run(kBin + "compare " + good + " " + good + " --threshold=-5"),
                        "threshold");
  expect_one_line_error(test::run(kBin + "compare " + good + " " + good + " --threshold lots"),
                        "--threshold");
  expect_one_line_error(test::run(kBin + "compare " + good + " " + good + " --frobnicate"),
                        "--frobnicate");
}

}  // namespace
}  // namespace pinbench
