// The shared text layer of terminal reports (framework/render/text.hpp): every paragraph is
// wrapped at 100 columns, under its indent or its label, and a table stays within its ruler and
// within 100 columns (render/text_table.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "experiments/doctor/analysis.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/text.hpp"
#include "framework/render/text_table.hpp"
#include "framework/report_model.hpp"

namespace pinbench {
using namespace experiments::doctor;
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

bool is_ruler(const std::string& line) {
  const std::size_t at = line.find_first_not_of(' ');
  return at != std::string::npos && line.size() - at >= 8 &&
         line.find_first_not_of('-', at) == std::string::npos;
}

// What is wrong with `text` as terminal text: a line wider than 100 columns, or a table's header
// or row wider than its ruler. "" when nothing is.
std::string layout_problem(const std::string& text) {
  const std::vector<std::string> lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_ruler(lines[i])) continue;
    const std::size_t ruler = display_width(lines[i]);
    if (i > 0) {
      if (display_width(lines[i - 1]) > ruler)
        return "header wider than its ruler: " + lines[i - 1];
    }
    for (std::size_t j = i + 1; j < lines.size() && !lines[j].empty() && !is_ruler(lines[j]); ++j) {
      const std::size_t w = display_width(lines[j]);
      if (w > kTextColumns && w > ruler) return "row wider than its ruler: " + lines[j];
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (display_width(lines[i]) > kTextColumns) {
      // A word wider than a line (a long path) is the one thing that may stand alone.
      if (lines[i].find(' ', lines[i].find_first_not_of(' ')) == std::string::npos) continue;
      return "a line of " + std::to_string(display_width(lines[i])) + " columns: " + lines[i];
    }
  }
  return "";
}

TEST(TextLayer, AParagraphIsWrappedUnderItsLabel) {
  const std::string words(30, 'w');
  const std::string para = words + " " + words + " " + words + " " + words;
  EXPECT_EQ(wrap_paragraph(para, "Units:   ", "         ", 80),
            "Units:   " + words + " " + words + "\n         " + words + " " + words + "\n");
  const std::string wrapped = wrap_text("  - " + para + "\n  a  table  row " + para + "\n", 80);
  EXPECT_EQ(wrapped, "  - " + words + " " + words + "\n    " + words + " " + words +
                         "\n  a  table  row " + para + "\n");
  EXPECT_EQ(wrap_text("short\n\nlines\n"), "short\n\nlines\n");
  EXPECT_EQ(layout_problem(wrap_text(std::string(150, 'x') + "\n" + para + " " + para)), "");
}

std::vector<std::string> committed_records() {
  std::vector<std::string> paths;
  for (const fs::directory_entry& e :
       fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && e.path().extension() == ".json" &&
        name.find(".trace.json") == std::string::npos) {
      paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(TextLayer, EveryCommittedRecordPrintsWithinOneHundredColumns) {
  for (const std::string& path : committed_records()) {
    const RunRecord record = load_record(path);
    EXPECT_EQ(layout_problem(render_text(analyse(record))), "") << path;
  }
}

// Every report ends the same way, whichever subcommand made it: how it sampled, its unstable
// cases, then its checks, last.
TEST(TextLayer, EveryReportEndsWithSamplingThenItsChecks) {
  for (const std::string& path : committed_records()) {
    const std::string text = render_text(analyse(load_record(path)));
    const std::size_t checks = text.rfind("\nChecks\n");
    ASSERT_NE(checks, std::string::npos) << path;
    const std::string after = text.substr(checks + 8);
    // Nothing after the checks but their own indented lines.
    for (std::size_t at = 0; at < after.size();) {
      const std::size_t end = after.find('\n', at);
      const std::string line = after.substr(at, end - at);
      EXPECT_TRUE(line.empty() || line[0] == ' ') << path << ": after the checks: " << line;
      if (end == std::string::npos) break;
      at = end + 1;
    }
    const std::size_t sampling = text.find("\nSampling: ");
    if (sampling != std::string::npos) {
      EXPECT_LT(sampling, checks) << path;
    }
    const std::size_t unstable = text.find("\nUnstable cases (");
    if (unstable != std::string::npos) {
      EXPECT_LT(unstable, checks) << path;
    }
  }
}

TEST(TextLayer, ComparesAndFleetsStayWithinTheirRulers) {
  const std::string bin = std::string(PINBENCH_BINARY) + " ";
  const std::string runs = std::string(PINBENCH_DATA_DIR) + "/runs/";
  const test::Result c =
      test::run(bin + "compare " + runs + "lesson-h200-2026-11-30T155159Z.json " + runs +
                "lesson-h200-2026-11-30T155947Z.json");
  EXPECT_EQ(layout_problem(c.out), "");
  // Two check records of one host and GPU: the duplicates table.
  const std::string dir = test::temp_dir();
  fs::copy_file(runs + "check-h200-2026-12-01T095735Z.json", dir + "/a.json");
  fs::copy_file(runs + "check-h200-2026-12-01T095735Z.json", dir + "/b.json");
  const test::Result f = test::run(bin + "fleet " + dir);
  EXPECT_NE(f.out.find("Duplicates"), std::string::npos) << f.out << f.err;
  EXPECT_EQ(layout_problem(f.out), "");
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// One voice: a command names itself, says "unknown" for what it does not know, says what a stop
// reason means, and says once what it did not measure.
TEST(TextLayer, EveryReportSpeaksOneWay) {
  const std::string runs = std::string(PINBENCH_DATA_DIR) + "/runs/";
  const std::string blocks =
      render_text(analyse(load_record(runs + "blocks-h200-2026-12-02T064418Z.json")));
  EXPECT_EQ(blocks.rfind("pinbench blocks on NVIDIA H200", 0), 0u) << blocks.substr(0, 80);
  EXPECT_EQ(blocks.find("pinbench report:"), std::string::npos);

  const std::string check =
      render_text(analyse(load_record(runs + "check-h200-2026-12-01T095735Z.json")));
  EXPECT_EQ(check.find(" ? "), std::string::npos) << check;
  EXPECT_NE(check.find("unknown"), std::string::npos) << check;

  const std::string sweep =
      render_text(analyse(load_record(runs + "sweep-h200-2026-11-30T162938Z.json")));
  EXPECT_NE(sweep.find("Not measured"), std::string::npos);
  EXPECT_LE(count_of(sweep, "cudaDevAttrPageableMemoryAccess is 0"), 3u) << sweep;
  EXPECT_NE(sweep.find("4 KiB to 256 MiB"), std::string::npos) << sweep;
  // "why sampling stopped: count 27" said nothing: each reason says what it means.
  EXPECT_EQ(sweep.find("why sampling stopped:"), std::string::npos);
  EXPECT_NE(sweep.find("reached their time limit first (time cap)"), std::string::npos) << sweep;

  const std::string doctor = test::unwrapped(render_text(
      analyse(load_record(runs + "doctor-pageable-async-h200-2026-12-01T100629Z.json"))));
  EXPECT_EQ(doctor.find("CUPTI 130001"), std::string::npos);
  EXPECT_NE(doctor.find("NVIDIA's tracing library (API version 130001)"), std::string::npos);
  // A doctor run on a host without a GPU describes no GPU: one phrase, not eight "unknown"s.
  RunRecord no_gpu = load_record(runs + "doctor-pageable-async-h200-2026-12-01T100629Z.json");
  no_gpu.cases.clear();
  no_gpu.gates.clear();
  no_gpu.machine = MachineInfo{};
  no_gpu.machine.host_cpu = "Some CPU";
  no_gpu.machine.host_logical_cpus = 4;
  no_gpu.machine.host_memory_bytes = std::uint64_t{8} << 30;
  const std::string host_only = render_text(analyse(no_gpu));
  EXPECT_NE(host_only.find("no GPU described"), std::string::npos) << host_only;
  EXPECT_LE(count_of(host_only, "unknown"), 1u) << host_only;
  EXPECT_NE(host_only.find("nothing was measured here"), std::string::npos) << host_only;

  // The gates say it in one form, in a layout of its own and in the model's.
  const std::string lesson = render_text(analyse(load_record(test::h200_lesson_path())));
  EXPECT_NE(lesson.find("gates passed: "), std::string::npos);
  EXPECT_EQ(lesson.find("Passed ("), std::string::npos);
}

// The README shows real output: each of its blocks that starts with "$ ./build/pinbench ARGS" is
// made of lines the command prints, in the order it prints them, from a committed record.
// The README's and docs' examples are run by docs.commands (tests/scripts/check_docs_commands.py).

// accel's page has a chart, and its CSV rows (it had a header over nothing).
TEST(TextLayer, AccelsPageHasAChartAndItsCsvHasRows) {
  const RunRecord r = load_record(std::string(PINBENCH_DATA_DIR) +
                                  "/runs/accel-torch-h200-2026-12-02T024712Z.json");
  const ReportModel m = analyse(r);
  const std::string html = render_html(r, m, {});
  EXPECT_NE(html.find("Bytes by outcome"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  const std::string csv = render_csv(m);
  EXPECT_GT(count_of(csv, "\r\n"), 10u) << csv;
  EXPECT_NE(csv.find("accel,accel-copies,1,outcome,"), std::string::npos) << csv;
  EXPECT_EQ(csv.substr(csv.size() - 2), "\r\n");
}

// staged's legend explains the columns it prints, and no others.
TEST(TextLayer, StagedsLegendExplainsOnlyItsColumns) {
  RunRecord r =
      load_record(std::string(PINBENCH_DATA_DIR) + "/runs/staged-h200-2026-12-01T075638Z.json");
  const std::string all = render_text(analyse(r));
  EXPECT_NE(all.find("cudaHostRegister"), std::string::npos);
  r.cases.erase(std::remove_if(r.cases.begin(), r.cases.end(),
                               [](const Case& c) {
                                 return c.method != "staged" && c.method != "pinned" &&
                                        c.method != "pageable-driver";
                               }),
                r.cases.end());
  const std::string few = render_text(analyse(r));
  EXPECT_NE(few.find("driver = cudaMemcpyAsync from pageable memory"), std::string::npos) << few;
  for (const char* unprinted :
       {"cudaHostRegister", "cudaMemcpyBatchAsync", "several threads", "staged b2b ="}) {
    EXPECT_EQ(few.find(unprinted), std::string::npos) << unprinted << "\n" << few;
  }
}

// Help that agrees with itself: doctor and accel exit with the program's status, so the shared
// exit codes are not printed under theirs; doctor lists what --fail-on takes; check says how it
// replays.
TEST(TextLayer, HelpDoesNotContradictItself) {
  const std::string bin = std::string(PINBENCH_BINARY) + " ";
  // The measuring commands' shared exit sentence (cli/exit_codes.hpp) would contradict theirs.
  const std::string shared = "Exit: 0 success;";
  for (const char* command : {"doctor", "accel"}) {
    const test::Result r = test::run(bin + command + " --help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("Exit: the program's own status"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(shared), std::string::npos) << command << ": " << r.out;
  }
  const std::string doctor = test::run(bin + "doctor --help").out;
  for (const std::string& id : doctor_finding_ids()) {
    EXPECT_NE(doctor.find(id), std::string::npos) << id;
  }
  const std::string check = test::run(bin + "check --help").out;
  EXPECT_NE(check.find("--replay"), std::string::npos);
  EXPECT_EQ(check.find("never"), std::string::npos) << check;
  EXPECT_NE(test::run(bin + "lesson --help").out.find(shared), std::string::npos);
  EXPECT_NE(test::run(bin + "report --help").out.find("Exit: 0 whatever the record's gates say"),
            std::string::npos);
}

}  // namespace
}  // namespace pinbench
