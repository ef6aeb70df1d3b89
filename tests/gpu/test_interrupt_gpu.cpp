// SIGINT and SIGTERM in the middle of a real measurement: the run ends after the case in flight,
// exits 128 + N, and its record holds every case measured so far, each with its gate, marked
// incomplete. The pinbench binary beside this test binary (the build tree's or a GPU bundle's)
// is started, signalled a few seconds in, and its record read back.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "framework/by_experiment.hpp"
#include "gpu_test.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

std::string pinbench_binary() {
  return test::beside_this_binary("pinbench", PINBENCH_BINARY_FALLBACK);
}

// Starts pinbench with `args`, its output thrown away; sends `sig` after `delay`; returns the
// wait status.
int run_and_signal(const std::vector<std::string>& args, int sig, std::chrono::milliseconds delay) {
  const std::string bin = pinbench_binary();
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(delay);
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

void expect_cut(const std::string& json, const char* signal_name, std::size_t most_cases) {
  const RunRecord r = load_record(json);
  EXPECT_TRUE(r.incomplete);
  EXPECT_EQ(r.interrupted_by, signal_name);
  EXPECT_LT(r.cases.size(), most_cases) << "the run finished before the signal";
  for (const Case& c : r.cases) {
    EXPECT_TRUE(c.stop.has_value()) << c.gate;
    bool gated = false;
    for (const Gate& g : r.gates) gated = gated || g.name == c.gate;
    EXPECT_TRUE(gated) << c.gate << " has no gate: a case was cut in half";
  }
}

class GpuInterrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    PINBENCH_REQUIRE_GPU();
    if (pinbench_binary().empty()) GTEST_SKIP() << "no pinbench binary beside this test binary";
    dir_ = fs::temp_directory_path() / ("pinbench-interrupt-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(GpuInterrupt, SigintStopsTheSweepAfterTheCaseInFlight) {
  const std::string json = (dir_ / "sweep.json").string();
  // 2 kinds x 19 sizes x 5 cases (h2d, d2h, bidir as three), each sampled for up to 300 ms: far
  // longer than the 3 s given.
  const int status =
      run_and_signal({"sweep", "--kinds", "pinned,pageable", "--methods", "ce", "--sizes",
                      "4KiB:1GiB:x2", "--time-cap", "300", "--json", json},
                     SIGINT, std::chrono::milliseconds(3000));
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  expect_cut(json, "SIGINT", 2 * 19 * 5);
}

TEST_F(GpuInterrupt, SigtermStopsTheStagedBenchmark) {
  const std::string json = (dir_ / "staged.json").string();
  const int status =
      run_and_signal({"staged", "--json", json}, SIGTERM, std::chrono::milliseconds(4000));
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 143);
  expect_cut(json, "SIGTERM", 1000);
}

TEST_F(GpuInterrupt, SigintStopsThePipeline) {
  const std::string json = (dir_ / "pipeline.json").string();
  const int status =
      run_and_signal({"pipeline", "--json", json}, SIGINT, std::chrono::milliseconds(2500));
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  expect_cut(json, "SIGINT", 100);
}

}  // namespace
}  // namespace pinbench
