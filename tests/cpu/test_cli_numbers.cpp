// One number reader for every option of every subcommand (cli/numbers.hpp, framework/numbers.hpp):
// decimal only ("010" is ten, "0x10" is refused), never infinity or NaN, within the range the
// option states in its help and the type it is read into, and no value that means "not given".
// The walk test reads every option from the CLI's own reference (`pinbench help --reference`), so
// an option added tomorrow is fed the same bad values without editing here; and an option that
// skips the reader stops pinbench from starting at all (hold_numbers), which every test would see.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/numbers.hpp"
#include "fixtures.hpp"
#include "framework/errors.hpp"
#include "framework/numbers.hpp"
#include "framework/units.hpp"

namespace pinbench {
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

// --- the reader -------------------------------------------------------------------------------

TEST(Numbers, WholeNumbersAreDecimalAndWithinTheirType) {
  EXPECT_EQ(read_whole<int>("010"), 10);
  EXPECT_EQ(read_whole<int>("-0"), 0);
  EXPECT_EQ(read_whole<std::uint64_t>("18446744073709551615"),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(read_whole<std::int64_t>("-9223372036854775808"),
            std::numeric_limits<std::int64_t>::min());
  for (const char* bad : {"0x10", "0X10", "", "-", "+5", " 5", "5 ", "1e3", "1.0", "inf", "nan",
                          "010x", "0b1", "1'000"}) {
    EXPECT_THROW(read_whole<int>(bad), InputError) << bad;
  }
  EXPECT_THROW(read_whole<std::uint64_t>("18446744073709551616"), InputError);
  EXPECT_THROW(read_whole<std::uint64_t>("99999999999999999999999"), InputError);
  EXPECT_THROW(read_whole<std::uint64_t>("-1"), InputError);
  EXPECT_THROW(read_whole<std::int64_t>("-9223372036854775809"), InputError);
  EXPECT_THROW(read_whole<std::int64_t>("9223372036854775808"), InputError);
  EXPECT_THROW(read_whole<int>("2147483648"), InputError);
  EXPECT_THROW(read_whole<unsigned>("4294967296"), InputError);  // not 0, as a cast would make it
  EXPECT_THROW(read_whole<int>("5", 6, 9), InputError);
  EXPECT_THROW(read_whole<int>("10", 6, 9), InputError);
  try {
    read_whole<std::uint64_t>("-1");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "'-1' is below 0");
  }
  try {
    read_whole<int>("0x10");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "'0x10' is not a whole number in decimal digits");
  }
}

TEST(Numbers, RealNumbersAreDecimalAndFinite) {
  EXPECT_EQ(read_real("010"), 10.0);
  EXPECT_EQ(read_real("2.5"), 2.5);
  EXPECT_EQ(read_real(".5"), 0.5);
  EXPECT_EQ(read_real("5."), 5.0);
  EXPECT_EQ(read_real("-1e-3"), -0.001);
  EXPECT_EQ(read_real("1E2"), 100.0);
  for (const char* bad : {"inf", "-inf", "infinity", "nan", "NaN", "0x10", "0x1p3", "", ".", "-",
                          "+1", " 1", "1 ", "1e", "1e+", "e5", "1,5", "1e400", "-1e400"}) {
    EXPECT_THROW(read_real(bad), InputError) << bad;
  }
  const RealRange share{0.0, 1.0, true, false};
  EXPECT_THROW(read_real("0", share), InputError);
  EXPECT_EQ(read_real("1", share), 1.0);
  EXPECT_THROW(read_real("1.0000001", share), InputError);
  EXPECT_EQ(range_words(share), "more than 0, at most 1");
  EXPECT_EQ(range_words(RealRange{0.0, 60000.0}), "0 to 60000");
  EXPECT_EQ(range_words(RealRange{0.0}), "at least 0");
  EXPECT_EQ(range_words<int>(1, std::numeric_limits<int>::max()), "at least 1");
  EXPECT_EQ(range_words<int>(2, 64), "2 to 64");
}

TEST(Numbers, SizesAndTheirListsReadTheirNumbersWithTheSameReader) {
  EXPECT_EQ(parse_size("010"), 10u);
  EXPECT_EQ(parse_size("64MiB"), 64 * kMiB);
  EXPECT_EQ(parse_size("1.5KiB"), 1536u);
  EXPECT_EQ(parse_size("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse_size_or_zero("0"), 0u);
  EXPECT_EQ(parse_size_or_zero("00"), 0u);
  for (const char* bad : {"0x10", "-1", "inf", "nan", "1e400", "", "18446744073709551616", "16GiB0",
                          "17179869184GiB", "1.2.3", "0"}) {
    EXPECT_THROW(parse_size(bad), InputError) << bad;
  }
  EXPECT_EQ(parse_sizes("4KiB:64KiB:x010").size(), 2u);  // 4 KiB, 40 KiB
  EXPECT_THROW(parse_sizes("4KiB:64KiB:x0x4"), InputError);
  EXPECT_THROW(parse_sizes("4KiB:64KiB:x-1"), InputError);
  EXPECT_THROW(parse_size_list("4KiB,0x10"), InputError);
}

// --- the walk over an App ---------------------------------------------------------------------

// Parses `args` (a value may be empty) and returns the error, or "" when CLI11 took them.
std::string parse(CLI::App& app, std::vector<std::string> args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
    return "";
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
}

std::string logic_error_of(CLI::App& app) {
  try {
    cli::hold_numbers(app);
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

TEST(CliNumbers, ANumericOptionThatSkipsTheReaderStopsPinbenchFromStarting) {
  {
    CLI::App app;
    int n = 0;
    app.add_subcommand("probe")->add_option("--count", n, "")->type_name("N");
    EXPECT_NE(logic_error_of(app).find("option --count of probe takes a N without"),
              std::string::npos)
        << logic_error_of(app);
  }
  {
    CLI::App app;
    std::string size;
    app.add_subcommand("probe")->add_option("--size", size, "")->type_name("SIZE");
    EXPECT_NE(logic_error_of(app).find("--size"), std::string::npos);
  }
  {
    CLI::App app;
    double x = 0;
    app.add_subcommand("probe")->add_option("--x", x, "");  // CLI11's own FLOAT: no kind
    EXPECT_NE(logic_error_of(app).find("'FLOAT' is not a metavariable"), std::string::npos);
  }
  {
    CLI::App app;
    std::string file;
    int n = 0;
    CLI::App* sub = app.add_subcommand("probe");
    sub->add_option("--json", file, "")->type_name("FILE");
    cli::whole<int>(sub->add_option("--count", n, ""), 0)->type_name("N");
    EXPECT_EQ(logic_error_of(app), "");
  }
}

TEST(CliNumbers, TheReaderRewritesWhatCli11ReadsAndRefusesTheRest) {
  CLI::App app;
  int n = -5;
  std::uint64_t seed = 0;
  double pct = 0;
  cli::whole<int>(app.add_option("--n", n), 0, 100)->type_name("N");
  cli::whole<std::uint64_t>(app.add_option("--seed", seed), 0)->type_name("N");
  cli::real(app.add_option("--pct", pct), {0.0, 100.0, true, false})->type_name("PCT");
  cli::hold_numbers(app);
  EXPECT_EQ(parse(app, {"--n", "010"}), "");
  EXPECT_EQ(n, 10);  // not 8
  EXPECT_EQ(parse(app, {"--seed", "18446744073709551615"}), "");
  EXPECT_EQ(seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse(app, {"--pct", "0.1"}), "");
  EXPECT_EQ(pct, 0.1);
  EXPECT_EQ(parse(app, {"--pct", "99.99999999999999"}), "");
  EXPECT_EQ(pct, 99.99999999999999);
  EXPECT_EQ(parse(app, {"--n", "0x10"}), "--n: '0x10' is not a whole number in decimal digits");
  EXPECT_EQ(parse(app, {"--n", "101"}), "--n: '101' is above 100");
  EXPECT_EQ(parse(app, {"--seed", "-1"}), "--seed: '-1' is below 0");
  EXPECT_EQ(parse(app, {"--seed", "18446744073709551616"}),
            "--seed: '18446744073709551616' is above 18446744073709551615");
  EXPECT_EQ(parse(app, {"--pct", "inf"}), "--pct: 'inf' is not a decimal number");
  EXPECT_EQ(parse(app, {"--pct", "1e400"}), "--pct: '1e400' is beyond the largest number");
  EXPECT_EQ(parse(app, {"--pct", "0"}), "--pct: '0' is not more than 0");
  EXPECT_EQ(parse(app, {"--n", ""}), "--n: " + cli::kEmptyValue);
  // The help states each range.
  EXPECT_EQ(app.get_option("--n")->get_type_name(), "N:[0 to 100]");
  EXPECT_EQ(app.get_option("--seed")->get_type_name(), "N:[at least 0]");
  EXPECT_EQ(app.get_option("--pct")->get_type_name(), "PCT:[more than 0, at most 100]");
}

TEST(CliNumbers, AnOptionRangedByCli11sOwnCheckGetsTheReaderByItsKind) {
  CLI::App app;
  double wait = 0;
  int ms = 0;
  app.add_option("--wait", wait)->check(CLI::Range(0.0, 86400.0))->type_name("SECONDS");
  app.add_option("--ms", ms)->check(CLI::Range(0, 60000))->type_name("MS");
  app.add_option("--count", ms)->check(CLI::Range(0, 9))->type_name("N");
  cli::hold_numbers(app);
  EXPECT_EQ(parse(app, {"--wait", "010"}), "");
  EXPECT_EQ(wait, 10.0);
  EXPECT_EQ(parse(app, {"--count", "09"}), "");  // not an octal digit: strtoll would stop there
  EXPECT_EQ(ms, 9);
  for (const char* bad : {"nan", "inf", "-inf", "0x10", "1e400", ""}) {
    EXPECT_NE(parse(app, {"--wait", bad}), "") << bad;
    EXPECT_NE(parse(app, {"--ms", bad}), "") << bad;
  }
  EXPECT_NE(parse(app, {"--count", "010"}), "");  // ten, past the check's 9: not eight
}

// --- every option the CLI defines ---------------------------------------------------------------

struct OptionRow {
  std::string command;
  std::string flag;
  std::string metavar;
  std::string meaning;
};

// Every option of every subcommand, from the CLI's own reference.
std::vector<OptionRow> every_option() {
  std::vector<OptionRow> out;
  for (const auto& [command, rows] : test::reference_options(test::cli_reference())) {
    for (const test::OptionRow& o : rows) {
      out.push_back({command, test::long_name(o), o.metavar, o.meaning});
    }
  }
  return out;
}

// The range an option's help states at the end of its meaning: "(0 to 60000)", "(at least 1)",
// "(more than 0, at most 100)", "(at least 0, less than 1)".
struct StatedRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_excluded = false, max_excluded = false;
  bool admits(double v) const {
    return (min_excluded ? v > min : v >= min) && (max_excluded ? v < max : v <= max);
  }
};

std::optional<StatedRange> stated_range(const std::string& meaning) {
  std::smatch m;
  if (!std::regex_search(meaning, m, std::regex(R"(\(([^()]*)\)$)"))) return std::nullopt;
  const std::string words = m[1].str();
  StatedRange r;
  const std::regex both(R"(^(-?[0-9.e+]+) to (-?[0-9.e+]+)$)");
  if (std::regex_match(words, m, both)) {
    r.min = std::stod(m[1].str());
    r.max = std::stod(m[2].str());
    return r;
  }
  const std::regex end(R"((at least|more than|at most|less than) (-?[0-9.e+]+))");
  int ends = 0;
  for (auto it = std::sregex_iterator(words.begin(), words.end(), end);
       it != std::sregex_iterator(); ++it, ++ends) {
    const std::string how = (*it)[1].str();
    const double v = std::stod((*it)[2].str());
    if (how == "at least" || how == "more than") {
      r.min = v;
      r.min_excluded = how == "more than";
    } else {
      r.max = v;
      r.max_excluded = how == "less than";
    }
  }
  if (ends == 0) return std::nullopt;
  return r;
}

const std::set<std::string> kNumberKinds = {"N", "PCT", "MS", "US", "SECONDS", "X", "GBPS"};
const std::set<std::string> kParsedKinds = {"SIZE", "SIZES", "COUNTS", "RANGE"};
const std::set<std::string> kTextKinds = {"FILE",    "DIR",  "RECORD", "A",         "B",
                                          "PROGRAM", "LIST", "NAME",   "SUBCOMMAND"};

std::string command_line(const OptionRow& o, const std::string& value) {
  // doctor and accel read the option before they run a program; `true` is given so that
  // nothing else is missing.
  const bool runs = o.command == "doctor" || o.command == "accel";
  return kBin + o.command + " " + o.flag + " '" + value + "'" + (runs ? " -- true" : "");
}

void expect_refused(const OptionRow& o, const std::string& value) {
  const test::Result r = test::run(command_line(o, value));
  const std::string what = o.command + " " + o.flag + " '" + value + "'";
  EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: " + o.flag, 0), 0u) << what << ": " << r.err;
  EXPECT_EQ(r.out, "") << what;
}

// Accepted: the value is read (and the run then stops at --help, which comes after the values
// are read), so the command exits 0 having printed its help.
void expect_read(const OptionRow& o, const std::string& value) {
  const test::Result r = test::run(kBin + o.command + " " + o.flag + " '" + value + "' --help");
  EXPECT_EQ(r.exit_code, 0) << o.command << " " << o.flag << " '" << value << "': " << r.err;
  EXPECT_EQ(r.err, "") << o.command << " " << o.flag;
}

TEST(CliNumbers, EveryNumericOptionOfEverySubcommandReadsOnlyDecimalNumbersInItsRange) {
  const std::vector<OptionRow> options = every_option();
  ASSERT_GT(options.size(), 100u);
  const std::string two_to_64 = "18446744073709551616";
  int numbers = 0, parsed = 0;
  for (const OptionRow& o : options) {
    if (o.metavar.empty() || o.flag.empty()) continue;  // a flag, or an argument (a text)
    const std::string kind = o.metavar.substr(0, o.metavar.find('.'));
    const std::string what = o.command + " " + o.flag + " " + o.metavar;
    ASSERT_TRUE(kNumberKinds.count(kind) + kParsedKinds.count(kind) + kTextKinds.count(kind) == 1)
        << what << ": a metavariable of no known kind";
    if (kTextKinds.count(kind) > 0) continue;
    for (const char* bad : {"0x10", "inf", "nan", "1e400", ""}) expect_refused(o, bad);
    if (kParsedKinds.count(kind) > 0) {
      ++parsed;
      expect_read(o, "010");
      expect_refused(o, two_to_64);
      // A list of counts may take a negative that its command refuses later, with its own line.
      if (kind != "COUNTS") expect_refused(o, "-1");
      continue;
    }
    ++numbers;
    const std::optional<StatedRange> range = stated_range(o.meaning);
    ASSERT_TRUE(range) << what << " states no range in its help: " << o.meaning;
    if (range->admits(10)) expect_read(o, "010");
    if (!range->admits(-1)) expect_refused(o, "-1");
    // 2^64 is past every whole number's type (an unsigned 64-bit one ends at 2^64 - 1), stated or
    // not; a real number without a stated ceiling takes it.
    if (kind != "N" && range->admits(18446744073709551616.0)) {
      expect_read(o, two_to_64);
    } else {
      expect_refused(o, two_to_64);
    }
  }
  EXPECT_GT(numbers, 40);
  EXPECT_GT(parsed, 20);
}

TEST(CliNumbers, ALeadingZeroIsDecimalEndToEnd) {
  // trace-check says how many timed calls it read per source: --timed 010 is ten, not eight.
  const test::Result r = test::run(kBin + "trace-check " + std::string(PINBENCH_TEST_DATA_DIR) +
                                   "/nsys/v2024-us --timed 010");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the next 10 are timed"), std::string::npos) << r.out;
}

TEST(CliNumbers, NoValueOfAnOptionMeansNotGiven) {
  // --max-slowdown -1 was the option's own "not given", and wrote rules with no budget.
  const std::string dir = test::temp_dir();
  const std::string record =
      std::string(PINBENCH_DATA_DIR) + "/runs/blocks-h200-2026-12-02T064418Z.json";
  expect_refused({"blocks", "--max-slowdown", "PCT", ""}, "-1");
  const test::Result r = test::run(kBin + "blocks --replay " + record + " --max-slowdown -1 " +
                                   "--recommend " + dir + "/rules.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--max-slowdown: '-1' is below 0"), std::string::npos) << r.err;
  // --device -1 was "not given": every device for host and check.
  expect_refused({"host", "--device", "N", ""}, "-1");
  expect_refused({"check", "--device", "N", ""}, "-1");
}

}  // namespace
}  // namespace pinbench
