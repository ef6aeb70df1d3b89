// The CLI's one voice, held by mechanisms that cover options not yet written: every help page
// fits 100 columns, every value has a named metavariable, docs/cli.md is what the CLI says of
// itself, and a mistyped option, subcommand or value of any subcommand gets one line that names it
// and the help to read. Each test walks the CLI's own list of subcommands and options (the
// reference `pinbench help --reference` prints), so a new option is covered without editing here.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "framework/render/text_table.hpp"

namespace pinbench {
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

using test::long_name;
using test::OptionRow;
using test::reference_options;

std::string reference() {
  return test::cli_reference();
}

void expect_within(const std::string& text, std::size_t width, const std::string& what) {
  std::istringstream lines(text);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    EXPECT_LE(display_width(line), width) << what << ", line " << n << ": " << line;
  }
}

TEST(CliHelp, TheReferenceListsEverySubcommand) {
  const auto options = reference_options(reference());
  for (const char* sub :
       {"lesson", "sweep", "staged", "blocks", "doctor", "accel", "check", "fleet", "host", "pin",
        "report", "compare", "help", "info", "trace-check"}) {
    EXPECT_EQ(options.count(sub), 1u) << sub;
  }
  EXPECT_GE(options.size(), 17u);
}

TEST(CliHelp, EveryHelpPageFitsOneHundredColumnsAndSaysHowItExits) {
  expect_within(test::run(kBin + "--help").out, 100, "pinbench --help");
  for (const auto& [sub, rows] : reference_options(reference())) {
    const test::Result r = test::run(kBin + sub + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub << ": " << r.err;
    expect_within(r.out, 100, "pinbench " + sub + " --help");
    EXPECT_NE(r.out.find("Usage: pinbench " + sub), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nExit: "), std::string::npos) << sub << " says nothing of its exit";
    // Every option the reference lists is on the page.
    for (const OptionRow& o : rows) {
      EXPECT_NE(r.out.find(o.names), std::string::npos) << sub << " --help lacks " << o.names;
    }
  }
}

TEST(CliHelp, HelpSubcommandPrintsWhatDashDashHelpPrints) {
  EXPECT_EQ(test::run(kBin + "help").out, test::run(kBin + "--help").out);
  EXPECT_EQ(test::run(kBin + "help sweep").out, test::run(kBin + "sweep --help").out);
  EXPECT_EQ(test::run(kBin + "help doctor").out, test::run(kBin + "doctor --help").out);
}

TEST(CliHelp, EveryValueHasANamedMetavariable) {
  // CLI11's own names for a value's type say nothing of what to give.
  const std::set<std::string> generic = {"TEXT",   "INT",     "UINT", "FLOAT",
                                         "NUMBER", "BOOLEAN", "ENUM", "VALUE"};
  const std::regex named("^[A-Z]+(\\.\\.\\.)?$");
  for (const auto& [sub, rows] : reference_options(reference())) {
    for (const OptionRow& o : rows) {
      if (o.metavar.empty()) continue;
      EXPECT_TRUE(std::regex_match(o.metavar, named)) << sub << " " << o.names << ": " << o.metavar;
      EXPECT_EQ(generic.count(o.metavar.substr(0, o.metavar.find('.'))), 0u)
          << sub << " " << o.names << " is shown as CLI11's " << o.metavar;
    }
  }
}

TEST(CliHelp, DocsCliMdIsTheReferenceTheCliPrints) {
  const std::string committed = test::read_file(std::string(PINBENCH_SOURCE_DIR) + "/docs/cli.md");
  EXPECT_EQ(committed, reference())
      << "docs/cli.md differs from `pinbench help --reference`: run `make docs` and commit it";
}

TEST(CliHelp, TheReferenceListsEveryCsvColumn) {
  // The header of a real CSV report, each column named in the reference's table.
  const std::string csv = test::run(kBin + "report " + test::h200_lesson_path() + " --csv -").out;
  const std::string header = csv.substr(0, csv.find('\r'));
  const std::string ref = reference();
  std::istringstream columns(header);
  std::string column;
  int n = 0;
  while (std::getline(columns, column, ',')) {
    ++n;
    EXPECT_NE(ref.find("| `" + column + "` |"), std::string::npos) << column;
  }
  EXPECT_GT(n, 20);
}

void expect_one_line(const test::Result& r, const std::vector<std::string>& contains,
                     const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: ", 0), 0u) << what << ": " << r.err;
  for (const std::string& c : contains) {
    EXPECT_NE(r.err.find(c), std::string::npos) << what << ": '" << c << "' not in " << r.err;
  }
}

TEST(CliHelp, AnUnknownOptionOfAnySubcommandNamesItTheNearestAndTheHelp) {
  for (const auto& [sub, rows] : reference_options(reference())) {
    // A known option with its last letter dropped: a typo the nearest-name search must catch.
    std::string known;
    for (const OptionRow& o : rows) {
      if (long_name(o).size() > 6 && long_name(o) != "--help") known = long_name(o);
    }
    const std::string typo = known.empty() ? "--no-such-option" : known.substr(0, known.size() - 1);
    const std::string program = sub == "doctor" || sub == "accel" ? " -- true" : "";
    const test::Result r = test::run(kBin + sub + " " + typo + "x" + program);
    std::vector<std::string> expected = {"'" + typo + "x'", "pinbench " + sub + " --help"};
    if (!known.empty()) expected.push_back("did you mean '" + known + "'");
    expect_one_line(r, expected, sub + " " + typo + "x");
  }
}

TEST(CliHelp, AnUnknownSubcommandNamesTheNearest) {
  expect_one_line(test::run(kBin + "lesosn"),
                  {"'lesosn'", "did you mean 'lesson'", "pinbench help"}, "lesosn");
  expect_one_line(test::run(kBin + "help lesosn"), {"'lesosn'", "did you mean 'lesson'"},
                  "help lesosn");
  expect_one_line(test::run(kBin + "zzzzzzzz"), {"'zzzzzzzz'"}, "zzzzzzzz");
}

TEST(CliHelp, AMalformedValueOfAnyOptionNamesItsFlag) {
  // Every option whose value is a size or a count, in every subcommand, given a value that is
  // neither: the one line names the flag. check needs a GPU before it reads some values, and
  // doctor and accel a program, so both are given what they need to reach the value.
  const std::map<std::string, std::string> bad = {
      {"SIZE", "12XB"}, {"SIZES", "12XB"}, {"N", "twelve"},       {"COUNTS", "twelve"},
      {"MS", "twelve"}, {"PCT", "twelve"}, {"SECONDS", "twelve"}, {"X", "twelve"},
      {"US", "twelve"}, {"GBPS", "twelve"}};
  int tried = 0;
  for (const auto& [sub, rows] : reference_options(reference())) {
    for (const OptionRow& o : rows) {
      const auto value = bad.find(o.metavar);
      if (value == bad.end() || long_name(o).empty()) continue;
      const std::string program = sub == "doctor" || sub == "accel" ? " -- true" : "";
      const test::Result r =
          test::run(kBin + sub + " " + long_name(o) + " " + value->second + program);
      // check measures before it reads its floors' meaning, so without a GPU it may stop at 3;
      // never with a message that does not name the flag.
      if (r.exit_code == 3) continue;
      expect_one_line(r, {long_name(o)}, sub + " " + long_name(o) + " " + value->second);
      ++tried;
    }
  }
  EXPECT_GT(tried, 40);
}

}  // namespace
}  // namespace pinbench
