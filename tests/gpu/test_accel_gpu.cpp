// `pinbench accel` on the GPU: accel_programs/accel_program (linked to the shared runtime, built
// with the legacy and the per-thread default stream) makes every covered call at sizes from 1 B to
// 1 GiB, from odd addresses, on streams and default streams, while a stream is captured, from four
// threads, with errors, and checks every byte itself. Each test runs it without accel and under
// `pinbench accel`, as a user would, and requires the same transcript (every return code, every
// check) and the copies routed that the engine should take. What it runs is found beside this
// binary (a GPU bundle), else in the build tree; output goes to a fresh temporary folder.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "experiments/accel/summary.hpp"
#include "framework/by_experiment.hpp"
#include "framework/record.hpp"
#include "gpu_test.hpp"

namespace pinbench {
using namespace experiments::accel;
namespace {

std::string out_dir() {
  static const std::string dir = [] {
    const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                    ("pinbench-accel-gpu-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p.string();
  }();
  return dir;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct ProgramRun {
  int code = -1;
  std::string transcript;
};

ProgramRun run(const std::string& name, const std::string& line) {
  const std::string out = out_dir() + "/" + name + ".out";
  const int status = std::system((line + " >" + out + " 2>" + out + ".err").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out)};
}

std::string pinbench_bin() {
  return test::beside_this_binary("pinbench", PINBENCH_BUILD_DIR "/pinbench");
}

std::string program(const std::string& name) {
  return test::beside_this_binary(name, PINBENCH_BUILD_DIR "/" + name);
}

// The tally of one outcome in one direction over every process.
AccelTally tally(const AccelRun& r, const std::string& dir, const std::string& o) {
  return total(r, dir, o);
}

// Runs program `name` without accel and under it: both exit 0, print the same transcript and
// check every byte; `*r` is what accel counted.
void run_both_ways(const std::string& name, const std::string& args, AccelRun* r) {
  const std::string prog = program(name) + (args.empty() ? "" : " " + args);
  const ProgramRun plain = run(name + "-plain", prog);
  ASSERT_EQ(plain.code, 0) << plain.transcript;
  const std::string json = out_dir() + "/" + name + ".json";
  const ProgramRun accel =
      run(name + "-accel", pinbench_bin() + " accel --json " + json + " -- " + prog);
  EXPECT_EQ(accel.code, 0) << read_file(out_dir() + "/" + name + "-accel.out.err");
  EXPECT_EQ(accel.transcript, plain.transcript);
  EXPECT_NE(accel.transcript.find("every byte right"), std::string::npos);
  *r = accel_run_from_json(load_record(json).section("accel"));
}

void same_program_both_ways(const std::string& name, const std::string& args) {
  AccelRun r;
  ASSERT_NO_FATAL_FAILURE(run_both_ways(name, args, &r));
  ASSERT_EQ(r.processes.size(), 2u);  // the program, and the child it forks
  EXPECT_TRUE(r.processes[0].called);
  EXPECT_TRUE(r.processes[0].exit_ran);
  EXPECT_EQ(r.processes[0].engines, 1);
  EXPECT_EQ(r.processes[1].parent_pid, r.processes[0].pid);
  EXPECT_EQ(r.processes[1].engines, 0);
  EXPECT_EQ(tally(r, "h2d", "forked-child").copies, 1u);
  // Every size from 512 KiB (to the device) and 256 KiB (to the host) up, on every path.
  EXPECT_GT(tally(r, "h2d", "routed").copies, 20u);
  EXPECT_GT(tally(r, "d2h", "routed").copies, 20u);
  EXPECT_EQ(tally(r, "", "failed").copies, 0u);
  EXPECT_GT(tally(r, "h2d", "small").copies, 0u);
  EXPECT_GT(tally(r, "", "page-locked").copies, 0u);
  EXPECT_GT(tally(r, "", "managed").copies, 0u);
  EXPECT_GT(tally(r, "", "strided").copies, 0u);
  EXPECT_GT(tally(r, "", "capturing").copies, 0u);
  EXPECT_GT(tally(r, "", "pending-error").copies, 0u);
  EXPECT_GT(tally(r, "", "engine-refused").copies, 0u);  // past the end of the allocation
}

TEST(AccelGpu, LegacyDefaultStreamProgramKeepsItsMeaningEveryByteChecked) {
  PINBENCH_REQUIRE_GPU();
  same_program_both_ways("accel_program", "");
}

TEST(AccelGpu, PerThreadDefaultStreamProgramKeepsItsMeaningEveryByteChecked) {
  PINBENCH_REQUIRE_GPU();
  same_program_both_ways("accel_program_ptds", "");
}

TEST(AccelGpu, EveryProcessOfAShellScriptIsCountedInAFileOfItsOwn) {
  PINBENCH_REQUIRE_GPU();
  const std::string json = out_dir() + "/shell.json";
  const ProgramRun r = run("shell", pinbench_bin() + " accel --json " + json + " -- /bin/sh -c '" +
                                        program("accel_program") + " --quick; exit 5'");
  EXPECT_EQ(r.code, 5);
  const AccelRun a = accel_run_from_json(load_record(json).section("accel"));
  EXPECT_GE(a.processes.size(), 3u);  // the shell, the program, its forked child
  EXPECT_GT(tally(a, "h2d", "routed").copies, 0u);
}

TEST(AccelGpu, AKilledProgramExitsWith128PlusTheSignalAndKeepsItsCounts) {
  PINBENCH_REQUIRE_GPU();
  const std::string json = out_dir() + "/killed.json";
  const ProgramRun r =
      run("killed", pinbench_bin() + " accel --json " + json + " -- /bin/sh -c '" +
                        program("accel_program") + " --quick >/dev/null; kill -9 $$'");
  EXPECT_EQ(r.code, 137);
  const AccelRun a = accel_run_from_json(load_record(json).section("accel"));
  EXPECT_EQ(a.signal, "SIGKILL");
  EXPECT_GT(tally(a, "h2d", "routed").copies, 0u);
}

// The same program with the runtime linked statically: its copies reach accel through the
// driver's entry points (the static runtime looks them up with cuGetProcAddress), keep their
// meaning byte for byte, and are counted once.
void static_program_both_ways(const std::string& name) {
  AccelRun r;
  ASSERT_NO_FATAL_FAILURE(run_both_ways(name, "", &r));
  ASSERT_EQ(r.processes.size(), 2u);  // the program, and the child it forks
  EXPECT_TRUE(r.processes[0].called);
  EXPECT_TRUE(r.processes[0].via_driver);
  EXPECT_FALSE(r.processes[0].via_runtime);
  EXPECT_FALSE(out_of_reach(r.processes[0]));
  EXPECT_EQ(r.processes[0].engines, 1);
  EXPECT_GT(tally(r, "h2d", "routed").copies, 20u);
  EXPECT_GT(tally(r, "d2h", "routed").copies, 20u);
  EXPECT_EQ(tally(r, "", "failed").copies, 0u);
  EXPECT_GT(tally(r, "", "page-locked").copies, 0u);
  EXPECT_GT(tally(r, "", "capturing").copies, 0u);
}

TEST(AccelGpu, StaticRuntimeProgramIsReachedThroughTheDriverEveryByteChecked) {
  PINBENCH_REQUIRE_GPU();
  static_program_both_ways("accel_program_static");
}

TEST(AccelGpu, StaticRuntimePerThreadProgramIsReachedThroughTheDriverEveryByteChecked) {
  PINBENCH_REQUIRE_GPU();
  static_program_both_ways("accel_program_static_ptds");
}

// doctor's pitfall program, built with nvcc's defaults: its pageable copies are routed.
TEST(AccelGpu, ASeedShapedProgramWithTheStaticRuntimeIsRouted) {
  PINBENCH_REQUIRE_GPU();
  const std::string json = out_dir() + "/static.json";
  const ProgramRun r =
      run("static",
          pinbench_bin() + " accel --json " + json + " -- " +
              test::beside_this_binary("doctor_pitfalls", PINBENCH_BUILD_DIR "/doctor_pitfalls") +
              " pageable-async");
  EXPECT_EQ(r.code, 0);
  const AccelRun a = accel_run_from_json(load_record(json).section("accel"));
  ASSERT_EQ(a.processes.size(), 1u);
  EXPECT_FALSE(out_of_reach(a.processes[0]));
  EXPECT_TRUE(a.processes[0].via_driver);
  EXPECT_GT(total(a, "", "").copies, 0u);
}

}  // namespace
}  // namespace pinbench
