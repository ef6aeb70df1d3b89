// What the command line means by what it is given: an empty value is refused (exit 2, one line),
// never taken as "not given"; the words after a program's name are the program's; a JSON error
// says "truncated?" only of a file that ends before its JSON does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fixtures.hpp"

namespace pinbench {
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";
const std::string kRuns = std::string(PINBENCH_DATA_DIR) + "/runs";

void expect_refused(const test::Result& r, const std::string& option, const std::string& command) {
  EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.out << r.err;
  EXPECT_EQ(r.err, "pinbench: error: " + option + " was given an empty value; give one, or leave " +
                       option + " out (see pinbench " + command + " --help)\n");
  EXPECT_EQ(r.out, "");
}

TEST(CliValues, AnEmptyValueIsRefusedNotTakenAsNotGiven) {
  const std::string dir = test::temp_dir();
  const std::string lesson = test::h200_lesson_path();
  const std::string blocks = kRuns + "/blocks-h200-2026-12-02T064418Z.json";
  const std::string doctor = kRuns + "/doctor-pageable-async-h200-2026-12-01T100629Z.json";
  expect_refused(test::run(kBin + "report " + lesson + " --html ''"), "--html", "report");
  expect_refused(test::run(kBin + "report " + lesson + " --markdown ''"), "--markdown", "report");
  expect_refused(test::run(kBin + "lesson --replay " + lesson + " --json ''"), "--json", "lesson");
  expect_refused(test::run(kBin + "blocks --replay " + blocks + " --recommend ''"), "--recommend",
                 "blocks");
  // An empty --fail-on turned the gate off: a finding would have passed as exit 0.
  expect_refused(test::run(kBin + "doctor --replay " + doctor + " --fail-on ''"), "--fail-on",
                 "doctor");
  expect_refused(test::run(kBin + "accel --json '' -- touch " + dir + "/ran"), "--json", "accel");
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran")) << "the program ran";
  expect_refused(test::run(kBin + "fleet " + dir + " --html ''"), "--html", "fleet");
}

TEST(CliValues, TheWordsAfterTheProgramAreTheProgramsOwn) {
  const std::string dir = test::temp_dir();
  const test::Result r =
      test::run(kBin + "accel sh -c 'echo \"[$*]\"' sh --json " + dir + "/x.json --replay y");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[--json " + dir + "/x.json --replay y]"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.json"));
  // pinbench's own options before the program, and `--`, work as before.
  const test::Result own = test::run(kBin + "accel --json " + dir + "/y.json -- sh -c 'echo $0' z");
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_NE(own.out.find("z"), std::string::npos) << own.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/y.json"));
  // A flag takes no value: the word after it is the program.
  const test::Result flag = test::run(kBin + "doctor --no-calibration echo flagged");
  EXPECT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_NE(flag.out.find("flagged"), std::string::npos) << flag.out << flag.err;
  // An option pinbench does not know, before the program, is a mistake, not a program.
  const test::Result typo = test::run(kBin + "doctor --jsn x -- true");
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
  EXPECT_NE(typo.err.find("--jsn"), std::string::npos) << typo.err;
  EXPECT_EQ(typo.err.find('\n'), typo.err.size() - 1) << typo.err;
}

TEST(CliValues, OnlyATextThatEndsEarlyIsCalledTruncated) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/cut.json", "{\"schema\": ");
  test::write_file(dir + "/bad.json", "{\"schema\": nope}");
  const test::Result cut = test::run(kBin + "report " + dir + "/cut.json");
  EXPECT_NE(cut.err.find("is not valid JSON (truncated?) near byte 12"), std::string::npos)
      << cut.err;
  const test::Result bad = test::run(kBin + "report " + dir + "/bad.json");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("is not valid JSON near byte"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("truncated"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace pinbench
