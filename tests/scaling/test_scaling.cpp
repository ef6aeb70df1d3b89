// Every reader is linear: each record kind a registered experiment makes, grown from a committed
// record (record_growth.hpp) to N and 8N units, is read by every command that reads it (report in
// each format, its replay, doctor --rates, and a kind's own readers such as blocks --recommend)
// and, step by step, in this process (its analysis, each printer, read_rows' rows, compare); the
// CPU time per unit at 8N must stay within kMostRatio of that at N. A reader that looks each case
// up among the others (a loop over the cases inside a loop over the cases) costs 8x per case at
// 8N and fails; one that is linear stays near 1x. CPU time, not wall time, and the least of a few
// runs at N: a busy machine slows both sizes alike. The doctor's event lines and BlockCopier's
// calibration tables and rules files are read in this process, by the functions that read them.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <pinbench/block_choice.hpp>

#include "../cpu/doctor_fixtures.hpp"
#include "compare/compare.hpp"
#include "compare/text.hpp"
#include "experiments/doctor/analysis.hpp"
#include "experiments/doctor/trace.hpp"
#include "framework/by_experiment.hpp"
#include "framework/experiment.hpp"
#include "framework/input_limits.hpp"
#include "framework/record.hpp"
#include "framework/record_rows.hpp"
#include "framework/render/csv.hpp"
#include "framework/render/html.hpp"
#include "framework/render/markdown.hpp"
#include "framework/render/text.hpp"
#include "framework/report_model.hpp"
#include "record_growth.hpp"

extern char** environ;

namespace pinbench::test {
using namespace experiments::doctor;
using namespace compare;
namespace {

// The most the CPU time per unit may grow from N to 8N units. Linear readers measure 0.6 to 1.4
// here (less than 1 where a fixed cost is spread over more units); a quadratic one 8.
constexpr double kMostRatio = 3.0;
constexpr std::size_t kFactor = 8;

std::string temp_folder() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "pinbench-scaling-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The CPU time (user and system) a run of pinbench with `args` took. Its standard output goes
// to /dev/null and its standard error to `err`; it must exit 0 or 1 (a record's gates may say
// it failed): 2 would be a record refused, and the time of a refusal measures nothing.
double cpu_seconds(const std::vector<std::string>& args, const std::string& err) {
  std::vector<std::string> words{PINBENCH_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot run " + words[0]);
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) throw std::runtime_error("wait4 failed");
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code != 0 && code != 1) {
    std::string line;
    for (const std::string& w : words) line += " " + w;
    throw std::runtime_error("exit " + std::to_string(code) + " from" + line + ": " + slurp(err));
  }
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// What one reader cost at N and at 8N units, and their ratio per unit.
struct Growth {
  double small = 0, large = 0;
  double ratio() const { return large / (static_cast<double>(kFactor) * std::max(small, 1e-4)); }
};

// `at(0)` runs the reader on the small input and returns its CPU seconds, `at(1)` on the large
// one. The lesser of two runs at N and one at 8N; a ratio past the bound is measured again, up to
// four times more (both sizes, the least of each kept), before it counts: a moment when the
// machine is busy does not fail the test, a reader that grows does every time.
Growth measure(const std::function<double(int)>& at) {
  Growth g;
  g.small = std::min(at(0), at(0));
  g.large = at(1);
  for (int again = 0; again < 4 && g.ratio() >= kMostRatio; ++again) {
    g.small = std::min(g.small, at(0));
    g.large = std::min(g.large, at(1));
  }
  return g;
}

void expect_linear(const std::string& what, std::size_t n, const std::string& unit,
                   const Growth& g) {
  std::printf("  %-64s %7zu %-9s %8.3f s   x%zu: %8.3f s   per unit x%.2f\n", what.c_str(), n,
              unit.c_str(), g.small, kFactor, g.large, g.ratio());
  EXPECT_LT(g.ratio(), kMostRatio)
      << what << ": " << g.small << " s for " << n << " " << unit << ", " << g.large << " s for "
      << n * kFactor << ": the time per unit grows " << g.ratio() << "x";
}

std::vector<std::string> words_of(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  if (!out.empty() && out.front() == "pinbench") out.erase(out.begin());
  return out;
}

// The commands that read a record of `e`'s kind at `record`, with their outputs in `dir`.
struct Reader {
  std::string name;
  std::function<std::vector<std::string>(const std::string& record, const std::string& dir)> args;
};

std::vector<Reader> readers_of(const Experiment& e) {
  std::vector<Reader> out;
  // Every format at once: one read, four printers (a printer that grows shows in the sum).
  out.push_back({"report --text --markdown --csv --html", [](const auto& r, const auto& d) {
                   return std::vector<std::string>{
                       "report",    r,       "--text",     d + "/o.txt", "--markdown",
                       d + "/o.md", "--csv", d + "/o.csv", "--html",     d + "/o.html"};
                 }});
  if (!e.descriptor().command.empty()) {
    std::vector<std::string> command = words_of(e.descriptor().command);
    command.insert(command.end(), {"--replay", "RECORD"});
    // blocks: its rules too (--recommend), from the same analysis.
    if (e.descriptor().name == "blocks") command.insert(command.end(), {"--recommend", "FILE"});
    std::string name;
    for (const std::string& w : command) name += (name.empty() ? "" : " ") + w;
    out.push_back({name, [command](const auto& r, const auto& d) {
                     std::vector<std::string> args = command;
                     for (std::string& a : args) {
                       if (a == "RECORD") a = r;
                       if (a == "FILE") a = d + "/recommend.json";
                     }
                     return args;
                   }});
  }
  // Its cases as rates a program's copies are judged by (doctor --rates), with a program that
  // makes none.
  if (e.descriptor().copy_rates) {
    out.push_back({"doctor --rates RECORD -- true", [](const auto& r, const auto&) {
                     return std::vector<std::string>{"doctor", "--rates", r, "--", "/bin/true"};
                   }});
  }
  return out;
}

class ScalingOf : public ::testing::TestWithParam<std::string> {};

// How many of `unit` a record holds.
std::size_t units_in(const nlohmann::json& record, const std::string& unit) {
  if (unit == "calls") return record["doctor"]["calls"].size();
  if (unit == "processes") return record["accel"]["processes"].size();
  if (unit == "hosts") return record["members"].size();
  return record["cases"].size();  // cases, cells
}

// Each registered record kind has a growth, and what it grows is a record pinbench reads.
TEST(Scaling, EveryRecordKindGrows) {
  for (const Experiment* e : all_experiments()) {
    const RecordGrowth* g = growth_for(e->descriptor().name);
    ASSERT_NE(g, nullptr) << "records of kind '" << e->descriptor().name
                          << "' have no growth in tests/scaling/record_growth.cpp: add one, so "
                             "the scaling tests read them";
    const std::size_t units = g->base / 8;
    const std::string text = grown_record(e->descriptor().name, units);
    const RunRecord r = record_from_json(parse_record_text(text));
    EXPECT_EQ(r.experiment, e->descriptor().name);
    EXPECT_EQ(units_in(nlohmann::json::parse(text), g->unit), units) << e->descriptor().name;
  }
  for (const RecordGrowth& g : record_growths()) {
    EXPECT_EQ(&experiment_for(g.kind) == &generic_experiment(), false)
        << "a growth for '" << g.kind << "', which no experiment registers";
  }
}

// In this process: `read(0)` reads the small input, `read(1)` the large one. A step quicker than
// kLeastSeconds is run again and again until the runs add up to that (the clock's grain and one
// interruption weigh less), and one run's time is their mean.
constexpr double kLeastSeconds = 0.03;

Growth measure_here(const std::function<void(int)>& read) {
  return measure([&](int which) {
    const double start = process_cpu_seconds();
    for (std::size_t runs = 1;; ++runs) {
      read(which);
      const double spent = process_cpu_seconds() - start;
      if (spent >= kLeastSeconds || runs >= 1000) return spent / static_cast<double>(runs);
    }
  });
}

// Each command that reads a record of the kind, then each step of reading it in this process.
TEST_P(ScalingOf, EveryReaderIsLinear) {
  const Experiment& e = experiment_for(GetParam());
  const RecordGrowth* g = growth_for(e.descriptor().name);
  ASSERT_NE(g, nullptr);
  const std::string texts[] = {grown_record(e.descriptor().name, g->base),
                               grown_record(e.descriptor().name, g->base * kFactor)};
  ASSERT_LE(texts[1].size(), kMaxRecordBytes)
      << e.descriptor().name << ": the record of " << g->base * kFactor << " " << g->unit
      << " is past the input cap; choose a smaller N";
  std::printf("%s: %zu bytes at %zu %s\n", e.descriptor().name.c_str(), texts[1].size(),
              g->base * kFactor, g->unit.c_str());

  // The commands.
  const std::string dir = temp_folder();
  const std::string files[] = {dir + "/small.json", dir + "/large.json"};
  write(files[0], texts[0]);
  write(files[1], texts[1]);
  for (const Reader& reader : readers_of(e)) {
    const Growth growth = measure(
        [&](int which) { return cpu_seconds(reader.args(files[which], dir), dir + "/err"); });
    expect_linear(e.descriptor().name + ": " + reader.name, g->base, g->unit, growth);
  }
  std::filesystem::remove_all(dir);

  // Each step after the read, timed alone in this process: the analysis, each printer, the rows
  // Python's read_rows gets, compare. A step's own cost per unit is far below a whole command's
  // (which the read dominates), so a step whose cost grows with the record shows at sizes where
  // the command's time would hide it. The read itself, and the record written back for
  // read_record, are timed by the commands above and by python/test_scaling.py.
  const RunRecord records[] = {record_from_json(parse_record_text(texts[0])),
                               record_from_json(parse_record_text(texts[1]))};
  const ReportModel models[] = {analyse(records[0]), analyse(records[1])};
  std::size_t sink = 0;  // what each step made, so none is left out as unused
  std::vector<std::pair<std::string, std::function<void(int)>>> steps = {
      {"analyse", [&](int w) { sink += analyse(records[w]).cases.size(); }},
      {"text", [&](int w) { sink += render_text(models[w]).size(); }},
      {"markdown", [&](int w) { sink += render_markdown(models[w]).size(); }},
      {"csv", [&](int w) { sink += render_csv(models[w]).size(); }},
      {"html", [&](int w) { sink += render_html(records[w], models[w], HtmlExtras{}).size(); }},
      {"rows (read_rows)", [&](int w) { sink += record_rows(records[w]).size(); }},
  };
  if (g->compared) {
    steps.emplace_back("compare", [&](int w) {
      const RunRecord& r = records[w];
      if (const auto own = experiment_for(r.experiment).compare(r, r)) {
        sink += own->text.size();
        if (const auto cases = compare_common_cases(r, r, 0.2)) {
          sink += render_cases_compared(*cases).size();
        }
      } else {
        sink += render_comparison(compare_records(r, r, 0.2), r, "a", r, "b").size();
      }
    });
  }
  for (const auto& [name, step] : steps) {
    expect_linear(e.descriptor().name + ": " + name, g->base, g->unit, measure_here(step));
  }
  EXPECT_GT(sink, 0u);
}

std::vector<std::string> kinds() {
  std::vector<std::string> out;
  for (const Experiment* e : all_experiments()) {
    if (growth_for(e->descriptor().name) != nullptr) out.push_back(e->descriptor().name);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Kinds, ScalingOf, ::testing::ValuesIn(kinds()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name;
                           for (char c : p.param) name += std::isalnum(c) ? c : '_';
                           return name;
                         });

// A fleet put together from its hosts' check records, one file each.
TEST(Scaling, FleetReadsItsHostsRecordsInLinearTime) {
  const RecordGrowth* g = growth_for("fleet");
  ASSERT_NE(g, nullptr);
  const std::string dir = temp_folder();
  std::vector<std::vector<std::string>> args(2);
  for (int which = 0; which < 2; ++which) {
    const std::size_t hosts = g->base * (which == 0 ? 1 : kFactor);
    const nlohmann::json fleet = nlohmann::json::parse(grown_record("fleet", hosts));
    args[which].push_back("fleet");
    for (std::size_t i = 0; i < fleet["members"].size(); ++i) {
      const std::string path =
          dir + "/" + std::to_string(which) + "-" + std::to_string(i) + ".json";
      write(path, fleet["members"][i].dump());
      args[which].push_back(path);
    }
    args[which].insert(args[which].end(), {"--json", dir + "/fleet.json"});
  }
  const Growth growth = measure([&](int which) { return cpu_seconds(args[which], dir + "/err"); });
  expect_linear("fleet over its hosts' check records", g->base, "hosts", growth);
  std::filesystem::remove_all(dir);
}

// The injection library's event lines, read into a trace and analysed as doctor does after a run.
TEST(Scaling, DoctorEventLinesAreReadInLinearTime) {
  constexpr std::size_t kCalls = 4000;
  const std::string texts[] = {grown_doctor_events(kCalls), grown_doctor_events(kCalls * kFactor)};
  std::size_t seen[2] = {0, 0};
  const Growth growth = measure_here([&](int which) {
    const DoctorTrace t = parse_doctor_events(texts[which]);
    const RunRecord r = record_with(t);
    const DoctorAnalysis a = analyse_doctor(r, t);
    seen[which] = t.calls.size() + a.findings.size();
  });
  EXPECT_GE(seen[1], kCalls * kFactor);
  expect_linear("doctor event lines", kCalls, "calls", growth);
}

// A calibration table read and checked, then 64 choices made from it, as a BlockCopier makes one
// for each batch it is given: each looks at the table's points once, whatever its grid.
TEST(Scaling, CalibrationTablesAreReadAndUsedInLinearTime) {
  constexpr std::size_t kPoints = 12000;
  const std::string texts[] = {grown_calibration(kPoints), grown_calibration(kPoints * kFactor)};
  const BlockDeviceIdentity here{"Scaling GPU", 13000, "0.1.0"};
  std::size_t points[2] = {0, 0};
  const Growth growth = measure_here([&](int which) {
    const CalibrationTable t = calibration_from_json(texts[which], here, "cache.json");
    points[which] = t.points.size();
    for (std::uint64_t i = 0; i < 64; ++i) {
      const std::uint64_t size = t.sizes[i * t.sizes.size() / 64] + 100;
      const std::uint64_t count = t.counts[i * t.counts.size() / 64] + 1;
      choose_block_method(t, {BlockDirection::kToDevice, BlockMemory::kPinned, size, count});
    }
  });
  ASSERT_GE(points[0], kPoints);
  expect_linear("calibration table, and 64 choices", points[0], "points", growth);
}

// A rules file (blocks --recommend) read and checked, then 100 choices made from it.
TEST(Scaling, RulesFilesAreReadInLinearTime) {
  constexpr std::size_t kRules = 20000;  // past the caches at both sizes: a cache miss is no growth
  const std::string texts[] = {grown_rules(kRules), grown_rules(kRules * kFactor)};
  const BlockDeviceIdentity here{"Test GPU", 13000, ""};
  const Growth growth = measure_here([&](int which) {
    const BlockRules r = rules_from_json(texts[which], here, "rules.json");
    for (std::uint64_t i = 1; i <= 100; ++i) {
      choose_block_method(r, {BlockDirection::kToDevice, BlockMemory::kPinned, 4096 * i, i});
    }
  });
  expect_linear("rules file", kRules, "rules per group", growth);
}

}  // namespace
}  // namespace pinbench::test
