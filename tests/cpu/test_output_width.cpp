// Every line a user reads within kTextColumns (100) columns, counted as a terminal counts them
// (code points: "│" and "µ" are one column each): the text of every committed record under
// data/runs/, as `pinbench report RECORD --text -` prints it (what its measuring command printed,
// live or replayed), and `pinbench fleet` over every committed check record. The loop is over the
// folder, not a list: a record of an experiment added later is covered without editing this file.
// And the shared table layout (render/text_table.hpp) that keeps them there, layout by layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "framework/render/text_table.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

struct WideLine {
  std::size_t number = 0;  // from 1
  std::size_t width = 0;
  std::string text;
};

// The lines of `text` wider than kTextColumns. A line that is one word after its indent (a path,
// a UUID longer than a line) is the one thing that may run past: nothing can break it.
std::vector<WideLine> wide_lines(const std::string& text) {
  std::vector<WideLine> out;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, nl - at);
    ++number;
    at = nl + 1;
    const std::size_t width = display_width(line);
    if (width <= kTextColumns) continue;
    const std::size_t word = line.find_first_not_of(' ');
    if (line.find(' ', word) == std::string::npos) continue;
    out.push_back({number, width, line});
  }
  return out;
}

std::string describe(const std::string& what, const std::vector<WideLine>& wide) {
  std::string out;
  for (const WideLine& w : wide) {
    out += what + ": line " + std::to_string(w.number) + " is " + std::to_string(w.width) +
           " columns: " + w.text + "\n";
  }
  return out;
}

struct Committed {
  std::string path;
  std::string experiment;
};

// Every run record under data/runs/, in its subfolders too: each .json that is a JSON object with
// an "experiment" (a trace, a timeline or a benchmark's own table is not a record), by path.
std::vector<Committed> committed_records() {
  std::vector<Committed> out;
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(std::string(PINBENCH_DATA_DIR) + "/runs")) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const nlohmann::json j = nlohmann::json::parse(test::read_file(e.path().string()), nullptr,
                                                   /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("experiment") && j["experiment"].is_string()) {
      out.push_back({e.path().string(), j["experiment"].get<std::string>()});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Committed& a, const Committed& b) { return a.path < b.path; });
  return out;
}

struct Printed {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Each command through the shell, as many at once as the machine has cores (the records are
// independent, and each replay is a process of its own). test::run is not used
// from the threads: its temporary folders are one list, not guarded.
std::vector<Printed> run_all(const std::vector<std::string>& commands) {
  const std::string dir = test::temp_dir();
  std::vector<Printed> results(commands.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < commands.size(); i = next++) {
      const std::string err = dir + "/" + std::to_string(i) + ".err";
      FILE* pipe = popen((commands[i] + " 2>'" + err + "'").c_str(), "r");
      if (pipe == nullptr) continue;
      char buf[8192];
      for (std::size_t n = 0; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) {
        results[i].out.append(buf, n);
      }
      const int status = pclose(pipe);
      results[i].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      results[i].err = test::read_file(err);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t) {
    threads.emplace_back(work);
  }
  for (std::thread& t : threads) t.join();
  return results;
}

const std::string kBin = std::string(PINBENCH_BINARY);

// Every record, all of them: each is what a user replays, and the layouts differ by what a record
// holds (a program's command line, a call site's path, a fleet's hosts), not only by experiment.
// The records are independent, so the replays are spread over the cores.
TEST(OutputWidth, EveryCommittedRecordReplaysWithinOneHundredColumns) {
  const std::vector<Committed> records = committed_records();
  std::map<std::string, std::size_t> experiments;
  std::vector<std::string> commands;
  for (const Committed& r : records) {
    ++experiments[r.experiment];
    commands.push_back(kBin + " report '" + r.path + "' --text -");
  }
  // The folder holds records of most experiments; a loop that found none tests nothing.
  EXPECT_GE(experiments.size(), 10u);
  const std::vector<Printed> printed = run_all(commands);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string name = fs::relative(records[i].path, PINBENCH_DATA_DIR).string();
    ASSERT_EQ(printed[i].exit_code, 0) << name << ": " << printed[i].err;
    EXPECT_FALSE(printed[i].out.empty()) << name;
    const std::vector<WideLine> wide = wide_lines(printed[i].out);
    EXPECT_TRUE(wide.empty()) << describe(name, wide);
  }
}

TEST(OutputWidth, TheFleetOfEveryCommittedCheckFits) {
  std::string command = kBin + " fleet";
  std::size_t checks = 0;
  for (const Committed& r : committed_records()) {
    if (r.experiment != "check") continue;
    command += " '" + r.path + "'";
    ++checks;
  }
  ASSERT_GE(checks, 2u);
  const test::Result r = test::run(command);
  // 1: something was flagged (two checks of one GPU are duplicates); the text is printed alike.
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << ": " << r.err;
  EXPECT_NE(r.out.find("Every GPU"), std::string::npos) << r.out;
  const std::vector<WideLine> wide = wide_lines(r.out);
  EXPECT_TRUE(wide.empty()) << describe("pinbench fleet", wide);
}

// The checker itself: a wide line is caught by number and width, counted in code points; a lone
// word past the width is not.
TEST(OutputWidth, TheCheckerNamesAWideLineAndCountsCodePoints) {
  const std::string ok(kTextColumns - 1, 'x');
  const std::string micro = "µ";  // two bytes, one column
  std::string fits;
  for (std::size_t i = 0; i < kTextColumns; ++i) fits += micro;
  const std::string wide = "a " + std::string(kTextColumns - 1, 'y');
  const std::vector<WideLine> found =
      wide_lines(ok + "\n" + fits + "\n  " + std::string(150, 'z') + "\n" + wide + "\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].number, 4u);
  EXPECT_EQ(found[0].width, kTextColumns + 1);
}

// The shared table layout, each way it keeps a table within the width.

TextTable table_of(const std::vector<std::string>& header, const std::vector<bool>& right,
                   const std::vector<std::vector<std::string>>& rows) {
  TextTable t(header, right);
  for (const auto& row : rows) t.add_row(row);
  return t;
}

std::size_t widest(const std::string& text) {
  std::size_t w = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    w = std::max(w, display_width(text.substr(at, nl - at)));
    at = nl + 1;
  }
  return w;
}

TEST(TableLayout, ATableThatFitsIsAsItWas) {
  const TextTable t = table_of({"name", "GB/s"}, {false, true}, {{"pinned", "55.3"}});
  EXPECT_EQ(t.render("", 20),
            "name    GB/s\n"
            "------------\n"
            "pinned  55.3\n");
}

TEST(TableLayout, AHeaderWiderThanItsNumbersWrapsOntoTheRule) {
  const TextTable t = table_of({"size", "pageable GB/s", "pinned GB/s"}, {false, true, true},
                               {{"4 KiB", "0.43", "1.25"}});
  // 35 columns as it is: the widest header wraps, its last line on the rule; the next stays whole
  // where that is enough, and wraps too where it is not.
  EXPECT_EQ(t.render("  ", 30),
            "         pageable\n"
            "  size       GB/s  pinned GB/s\n"
            "  ----------------------------\n"
            "  4 KiB      0.43         1.25\n");
  EXPECT_EQ(t.render("  ", 29),
            "         pageable  pinned\n"
            "  size       GB/s    GB/s\n"
            "  -----------------------\n"
            "  4 KiB      0.43    1.25\n");
}

TEST(TableLayout, ALongTextCellWrapsWithinItsColumn) {
  const std::string why =
      "the GPU's NUMA node is unknown (the platform does not say), so no page can be said to "
      "lie off it";
  const TextTable t = table_of({"finding", "why"}, {false, false}, {{"numa-placement", why}});
  const std::string text = t.render("  ", 60);
  EXPECT_EQ(text,
            "  finding         why\n"
            "  ---------------------------------------------------------\n"
            "  numa-placement  the GPU's NUMA node is unknown (the\n"
            "                  platform does not say), so no page can be\n"
            "                  said to lie off it\n");
  EXPECT_LE(widest(text), 60u);
}

TEST(TableLayout, ATooWideTableIsSplitIntoPartsThatRepeatTheKeyColumns) {
  std::vector<std::string> header = {"host", "GPU"};
  std::vector<std::string> row = {"node-17", "3"};
  for (int i = 0; i < 8; ++i) {
    header.push_back("figure" + std::to_string(i));
    row.push_back(std::to_string(1000 + i));
  }
  TextTable t(header, std::vector<bool>(header.size(), true));
  t.key_columns(2);
  t.add_row(row);
  const std::string text = t.render("  ", 41);
  EXPECT_LE(widest(text), 41u) << text;
  EXPECT_EQ(text,
            "     host  GPU  figure0  figure1  figure2\n"
            "  ---------------------------------------\n"
            "  node-17    3     1000     1001     1002\n"
            "\n"
            "     host  GPU  figure3  figure4  figure5\n"
            "  ---------------------------------------\n"
            "  node-17    3     1003     1004     1005\n"
            "\n"
            "     host  GPU  figure6  figure7\n"
            "  ------------------------------\n"
            "  node-17    3     1006     1007\n");
}

TEST(TableLayout, KeysAndAColumnThatCannotStandSideBySideGiveOneBlockARow) {
  const std::string site = "(tests/gpu/doctor_programs/doctor_pitfalls.cu:52)";
  const std::string from = "main (tests/gpu/doctor_programs/doctor_pitfalls.cu:223) < _start";
  const TextTable t = table_of({"call site", "calls", "called from"}, {false, true, false},
                               {{"f() " + site, "8", from}, {"g()", "4", "main"}});
  const std::string text = t.render("  ", 76);
  EXPECT_EQ(text,
            "  call site    f() (tests/gpu/doctor_programs/doctor_pitfalls.cu:52)\n"
            "  calls        8\n"
            "  called from  main (tests/gpu/doctor_programs/doctor_pitfalls.cu:223) <\n"
            "               _start\n"
            "\n"
            "  call site    g()\n"
            "  calls        4\n"
            "  called from  main\n");
  EXPECT_LE(widest(text), 76u);
}

TEST(TableLayout, AWordLongerThanALineStandsAloneAndNothingElsePassesTheWidth) {
  const std::string path = "/" + std::string(120, 'p');
  const TextTable t = table_of({"program", "ended"}, {false, false}, {{path + " --loop", "exit"}});
  const std::string text = t.render("  ", kTextColumns);
  const std::vector<WideLine> wide = wide_lines(text);
  EXPECT_TRUE(wide.empty()) << text;
  EXPECT_EQ(text, "  program\n      " + path + "\n      --loop\n  ended    exit\n");
}

TEST(TableLayout, WidthsAreCodePointsAndAnIndentedCellKeepsItsIndentWhenWrapped) {
  EXPECT_EQ(display_width("µs │ —"), 6u);
  EXPECT_EQ(wrap_words("    from or to pageable memory", 16),
            (std::vector<std::string>{"    from or to", "    pageable", "    memory"}));
  EXPECT_EQ(wrap_words("", 10), std::vector<std::string>{""});
}

}  // namespace
}  // namespace pinbench
