// One output policy for every file option of every subcommand, walked from the CLI's own reference
// (`pinbench help --reference`), so an option not yet written is covered: no file option may
// replace pinbench's program or libraries, a file the program reads, or something that is not a
// regular file; standard output is taken only where nothing else writes there; and the refusal
// comes before anything runs (the program of doctor and accel never starts).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

// A copy of pinbench and the libraries it loads into a program, in a folder of the test's own: a
// policy that failed would overwrite the copy, never the build's binary.
struct CopiedPinbench {
  std::string dir = test::temp_dir();
  std::string bin = dir + "/pinbench";
  std::string library;
  CopiedPinbench() {
    const fs::path build = fs::path(PINBENCH_BINARY).parent_path();
    fs::copy_file(PINBENCH_BINARY, bin);
    for (const auto& entry : fs::directory_iterator(build)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("libpinbench", 0) == 0 && name.find(".so") != std::string::npos) {
        fs::copy_file(entry.path(), dir + "/" + name);
        if (name.find("accel") != std::string::npos) library = dir + "/" + name;
      }
    }
  }
};

struct Stamp {
  std::uintmax_t size = 0;
  fs::file_time_type time;
  bool operator==(const Stamp& o) const { return size == o.size && time == o.time; }
};
Stamp stamp(const std::string& path) {
  return {fs::file_size(path), fs::last_write_time(path)};
}

// What each subcommand needs besides the option to reach its checks.
std::string rest_of(const std::string& sub, const std::string& marker) {
  if (sub == "doctor" || sub == "accel") return " -- sh -c 'touch " + marker + "'";
  if (sub == "report") return " " + test::h200_lesson_path();
  if (sub == "fleet") return " " + std::string(PINBENCH_DATA_DIR) + "/runs";
  return "";
}

void expect_refused(const test::Result& r, const std::string& what) {
  EXPECT_TRUE(r.exit_code == 2 || r.exit_code == 3) << what << ": exit " << r.exit_code << "\n"
                                                    << r.err;
  EXPECT_EQ(r.err.rfind("pinbench: error: ", 0), 0u) << what << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
}

TEST(OutputPolicy, NoFileOptionReplacesPinbenchOrWhatItReadsOrAnythingButAFile) {
  const CopiedPinbench copy;
  ASSERT_FALSE(copy.library.empty());
  const std::string dir = test::temp_dir();
  const std::string marker = dir + "/the-program-ran";
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const Stamp bin = stamp(copy.bin);
  const Stamp lib = stamp(copy.library);
  int tried = 0;
  for (const auto& [sub, rows] : test::reference_options(test::cli_reference())) {
    for (const test::OptionRow& o : rows) {
      if (o.metavar != "FILE" || test::long_name(o).empty()) continue;
      const std::string flag = test::long_name(o);
      for (const std::string& value :
           {copy.bin, copy.library, std::string("/proc/version"), fifo}) {
        const std::string what = sub + " " + flag + " " + value;
        const test::Result r = test::run("timeout 20 " + copy.bin + " " + sub + " " + flag + " " +
                                         value + rest_of(sub, marker));
        expect_refused(r, what);
        EXPECT_FALSE(fs::exists(marker)) << what << ": the program ran before the refusal";
        fs::remove(marker);
        ++tried;
      }
      // Standard output: report's files alone may go there, since report prints nothing else.
      const test::Result r = test::run("timeout 20 " + copy.bin + " " + sub + " " + flag + " -" +
                                       rest_of(sub, marker));
      if (sub == "report") {
        EXPECT_EQ(r.exit_code, 0) << sub << " " << flag << " -: " << r.err;
      } else {
        expect_refused(r, sub + " " + flag + " -");
        EXPECT_FALSE(fs::exists(marker)) << sub << " " << flag << " -: the program ran";
      }
      fs::remove(marker);
    }
  }
  EXPECT_TRUE(stamp(copy.bin) == bin) << "pinbench's program was replaced";
  EXPECT_TRUE(stamp(copy.library) == lib) << "pinbench's library was replaced";
  EXPECT_GT(tried, 150);
}

// A file the program's arguments name (its script, a config after '=') is the program's input.
TEST(OutputPolicy, AFileTheProgramsArgumentsNameIsNotAnOutput) {
  const std::string dir = test::temp_dir();
  const std::string script = dir + "/train.sh";
  const std::string config = dir + "/config.txt";
  test::write_file(script, "touch " + dir + "/the-program-ran\n");
  test::write_file(config, "lr = 1\n");
  const std::string bin = std::string(PINBENCH_BINARY) + " ";
  for (const char* sub : {"doctor", "accel"}) {
    for (const std::string& line :
         {std::string(sub) + " --json " + script + " -- sh " + script,
          std::string(sub) + " --json " + config + " -- sh " + script + " --config=" + config,
          std::string(sub) + " --json ./" + fs::path(script).filename().string() + " -- sh " +
              script}) {
      const test::Result r = test::run("cd " + dir + " && " + bin + line);
      expect_refused(r, line);
      EXPECT_NE(r.err.find("would overwrite the program's argument"), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(dir + "/the-program-ran")) << line;
    }
  }
  EXPECT_EQ(test::read_file(script), "touch " + dir + "/the-program-ran\n");
  EXPECT_EQ(test::read_file(config), "lr = 1\n");
}

}  // namespace
}  // namespace pinbench
