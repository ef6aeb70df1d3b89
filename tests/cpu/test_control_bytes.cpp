// No raw control byte where a person reads. Every committed record is made hostile (ESC, BEL, CR,
// BS and NUL in its words: the machine, the note, the gates, the cases' methods, the
// experiment's own section) and rendered by every printer: the terminal text, markdown, CSV and
// HTML; the CLI's replays, reports, comparisons and error messages are run on it too. No byte
// below 0x20 but a line break or a tab may come out (CSV rows end in CR LF, as RFC 4180 asks).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/check/prometheus.hpp"
#include "fixtures.hpp"
#include "framework/by_experiment.hpp"
#include "framework/errors.hpp"
#include "framework/record.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"

namespace pinbench {
using namespace experiments::check;
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kBin = std::string(PINBENCH_BINARY) + " ";
// A terminal title, a bell, a colour, a carriage return, a backspace and a NUL.
const std::string kHostile = std::string("\x1b]0;owned\x07\x1b[31m\r\b") + '\0' + "!";

// The first byte of `text` below 0x20 other than a line break or a tab (or DEL), with what
// surrounds it, or "" when there is none.
std::string first_control_byte(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7F) {
      const std::size_t from = i < 40 ? 0 : i - 40;
      return "byte " + std::to_string(b) + " at " + std::to_string(i) + " after '" +
             text.substr(from, i - from) + "'";
    }
  }
  return "";
}

void expect_clean(const std::string& text, const std::string& what) {
  EXPECT_EQ(first_control_byte(text), "") << what;
}

// CSV rows end in CR LF; nothing else may hold a CR.
std::string without_row_ends(std::string csv) {
  std::string out;
  for (std::size_t i = 0; i < csv.size(); ++i) {
    if (csv[i] == '\r' && i + 1 < csv.size() && csv[i + 1] == '\n') continue;
    out += csv[i];
  }
  return out;
}

// Names the record's validation or its experiment reads as a fixed vocabulary: a hostile value
// there is refused with exit 2, which another test covers. Every other string gets kHostile.
const std::set<std::string> kVocabulary = {
    "experiment", "source",   "created_utc",    "schema",           "stop", "timing",   "part",
    "direction",  "memory",   "interrupted_by", "pinbench_version", "kind", "src_kind", "dst_kind",
    "verdict",    "stability"};

void poison_all(json& j, const std::string& key) {
  if (j.is_string()) {
    if (kVocabulary.count(key) == 0) j = j.get<std::string>() + kHostile;
  } else if (j.is_object()) {
    for (auto& [k, v] : j.items()) poison_all(v, k);
  } else if (j.is_array()) {
    for (auto& v : j) poison_all(v, key);
  }
}

// Only the words every record has and no analysis reads as a name.
void poison_machine(json& j) {
  for (const char* k : {"hostname", "device_name", "host_cpu", "os", "driver_release", "pci_bus_id",
                        "device_uuid", "cpu_list"}) {
    if (j["machine"].contains(k)) j["machine"][k] = j["machine"][k].get<std::string>() + kHostile;
  }
  j["note"] = kHostile;
  for (auto& g : j["gates"]) g["detail"] = g["detail"].get<std::string>() + kHostile;
}

struct Hostile {
  RunRecord record;
  std::string how;  // "every word" or "machine, note and gates"
};

// The record at `path` with kHostile in as many of its words as it still reads and analyses with.
Hostile hostile(const std::string& path) {
  const json original = json::parse(test::read_file(path));
  json all = original;
  poison_all(all, "");
  try {
    RunRecord r = record_from_json(all);
    analyse(r);
    return {r, "every word"};
  } catch (const InputError&) {
  }
  json some = original;
  poison_machine(some);
  return {record_from_json(some), "machine, note and gates"};
}

// One committed record of each kind of run.
std::vector<std::string> one_record_per_experiment() {
  std::map<std::string, std::string> first;
  for (const fs::directory_entry& e :
       fs::directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || e.path().extension() != ".json" ||
        name.find(".trace.json") != std::string::npos) {
      continue;
    }
    // The kind of run from its file name (experiment, and what it ran, before the machine's
    // name): reading every record here would cost each test process its start-up (this runs
    // when the tests are registered, in every one of them), seconds under the sanitizers.
    const std::string kind = name.substr(0, std::min(name.find("-h200"), name.find("-t4")));
    if (first.count(kind) == 0 || e.path().string() < first[kind]) first[kind] = e.path().string();
  }
  std::vector<std::string> paths;
  for (const auto& [experiment, path] : first) paths.push_back(path);
  return paths;
}

class ControlBytes : public ::testing::TestWithParam<std::string> {};

TEST_P(ControlBytes, NoPrinterPassesOneOn) {
  const Hostile h = hostile(GetParam());
  const std::string what = fs::path(GetParam()).filename().string() + " (" + h.how + ")";
  const ReportModel model = analyse(h.record);
  expect_clean(render_text(model), what + ", text");
  expect_clean(render_markdown(model), what + ", markdown");
  expect_clean(without_row_ends(render_csv(model)), what + ", CSV");
  expect_clean(render_html(h.record, model, {}), what + ", HTML");
  expect_clean(render_sampling_text(model), what + ", sampling");
  expect_clean(render_flags_text(model), what + ", unstable cases");
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Committed, ControlBytes, ::testing::ValuesIn(one_record_per_experiment()),
                         test_name);

// A report's words from its model alone: the sampling paragraph names a stop reason and the
// widest case, the unstable cases their labels and details.
TEST(ControlBytes, SamplingAndUnstableLinesShowTheirWordsEscaped) {
  ReportModel m;
  CaseLine line;
  line.label = "copy h2d" + kHostile;
  line.stop = "count" + kHostile;
  line.spread = 0.5;
  m.cases.push_back(line);
  CaseFlag flag;
  flag.label = "copy h2d" + kHostile;
  flag.detail = "bimodal" + kHostile;
  m.flags.push_back(flag);
  expect_clean(render_sampling_text(m), "sampling");
  expect_clean(render_flags_text(m), "unstable cases");
  EXPECT_NE(render_flags_text(m).find("\\x1B]0;owned\\x07"), std::string::npos)
      << render_flags_text(m);
}

TEST(ControlBytes, PrometheusLabelsEscapeALineFeedAsTheFormatAsks) {
  EXPECT_EQ(metric_label("a\nb"), "a\\nb");
  // A backslash of the value is doubled before the format's escape doubles it again, so that a
  // control byte's escape (\x01) is never a host's own text (test_figures.cpp: one to one).
  EXPECT_EQ(metric_label("a\"b\\c"), "a\\\"b\\\\\\\\c");
  EXPECT_EQ(metric_label(std::string{'c', '\x01', 'd'}), "c\\\\x01d");
  EXPECT_EQ(metric_label("c\\x01d"), "c\\\\\\\\x01d");
  // A host named with a line feed and one named with the text "\x0A" are two series.
  EXPECT_NE(metric_label("a\nb"), metric_label("a\\x0Ab"));
  expect_clean(metric_label("a" + kHostile), "label");
}

// The CLI: a replay's first line names the file and the device, an error quotes the argument.
TEST(ControlBytes, TheCliPrintsNoneFromARecordOrAnArgument) {
  const std::string dir = test::temp_dir();
  std::map<std::string, std::string> by_experiment;
  for (const std::string& path : one_record_per_experiment()) {
    const Hostile h = hostile(path);
    // A file name with ESC and BEL in it (the shell's single quotes carry them as they are).
    const std::string file = dir + "/" + h.record.experiment + "\x1b[2J\x07.json";
    save_record(h.record, file);
    by_experiment[h.record.experiment] = file;
  }
  std::vector<std::string> commands;
  for (const char* experiment : {"accel", "doctor"}) {
    ASSERT_TRUE(by_experiment.count(experiment)) << experiment;
    commands.push_back(std::string(experiment) + " --replay '" + by_experiment[experiment] + "'");
  }
  for (const auto& [experiment, file] : by_experiment) {
    commands.push_back("report '" + file + "' --csv - ");
    commands.push_back("report '" + file + "' --text - ");
    commands.push_back("report '" + file + "' --markdown - ");
    commands.push_back("report '" + file + "' --html '" + dir + "/" + experiment + ".html'");
  }
  commands.push_back("compare '" + by_experiment["lesson"] + "' '" + by_experiment["lesson"] + "'");
  commands.push_back("report '" + dir + "/missing\x1b[31m\x07.json'");
  commands.push_back("lesson --replay '" + by_experiment["doctor"] + "'");
  commands.push_back("report --no-such\x1b[2J");
  for (const std::string& c : commands) {
    const test::Result r = test::run(kBin + c);
    const bool csv = c.find("--csv") != std::string::npos;
    expect_clean(csv ? without_row_ends(r.out) : r.out, c + ": stdout");
    expect_clean(r.err, c + ": stderr");
  }
  for (const auto& [experiment, file] : by_experiment) {
    expect_clean(test::read_file(dir + "/" + experiment + ".html"), experiment + ".html");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pinbench
