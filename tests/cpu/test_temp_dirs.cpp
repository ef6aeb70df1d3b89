// A test cleans up after itself: one `make test` once left 460 pinbench-test-* folders in the
// temporary directory. The tests that make folders (and run the CLI) are run again here with a
// temporary directory of their own, which must be empty when they are done.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "fixtures.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

TEST(TempDirs, TestsLeaveNothingInTheTemporaryDirectory) {
  const std::string tmp = test::temp_dir();
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const test::Result r =
      test::run("TMPDIR='" + tmp + "' '" + self +
                "' --gtest_filter='AccelCli.OutputsAreCheckedBeforeTheProgramRuns:"
                "ReportCli.BadInputIsOneLineAndExitTwo'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[  PASSED  ] 2 tests"), std::string::npos) << r.out;
  std::string left;
  for (const fs::directory_entry& e : fs::directory_iterator(tmp)) {
    left += e.path().filename().string() + " ";
  }
  EXPECT_EQ(left, "") << "left in the temporary directory";
}

}  // namespace
}  // namespace pinbench
