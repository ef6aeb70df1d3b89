// Signals belong to the program that `doctor` and `accel` run: a signal the program sends its
// parent at once (a readiness signal) never comes back to kill it, however the start races; a
// job runner's signal still reaches it; a terminal's Ctrl-C during the wait for what the program
// left stops the wait at once and says what was still running.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cli/program.hpp"
#include "fixtures.hpp"

namespace pinbench::cli {
namespace {

const std::string kBin = std::string(PINBENCH_BINARY) + " ";

// Keeps the machine's cores busy while it lives: the race between a program's first signal and
// pinbench learning its pid opens wide on a loaded machine.
class BusyCores {
 public:
  explicit BusyCores(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      threads_.emplace_back([this] {
        volatile unsigned long x = 0;
        while (!stop_.load(std::memory_order_relaxed)) x = x + 1;
      });
    }
  }
  ~BusyCores() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

TEST(ProgramSignals, AProgramSignallingItsParentAtOnceIsNeverKilledByIt) {
  const BusyCores busy(2);
  int killed = 0;
  int runs = 0;
  for (; runs < 80; ++runs) {
    const ProgramExit e = run_program(
        "/bin/sh", {"sh", "-c", "kill -USR1 $PPID; kill -TERM $PPID; kill -HUP $PPID; exit 7"}, {},
        {}, 0);
    if (e.signal != 0 || e.exit_status != 7) ++killed;
  }
  EXPECT_EQ(killed, 0) << killed << " of " << runs << " runs ended by their own signal";
}

TEST(ProgramSignals, ThroughTheCommandLineTooBesideBusyCores) {
  const BusyCores busy(2);
  for (const char* command : {"accel", "doctor --no-calibration"}) {
    int failed = 0;
    std::string last;
    for (int i = 0; i < 12; ++i) {
      const test::Result r =
          test::run(kBin + command + " --wait-descendants 0 -- sh -c 'kill -USR1 $PPID; exit 0'");
      if (r.exit_code != 0) {
        ++failed;
        last = r.err;
      }
    }
    EXPECT_EQ(failed, 0) << command << ": " << last;
  }
}

// A process the program left behind signalling pinbench is not a job runner's signal either: the
// wait goes on (and ends when it does).
TEST(ProgramSignals, WhatTheProgramLeftSignallingPinbenchDoesNotEndTheWait) {
  const std::string dir = test::temp_dir();
  const ProgramExit e = run_program("/bin/sh",
                                    {"sh", "-c",
                                     "(sleep 0.3; kill -USR1 " + std::to_string(getpid()) +
                                         "; sleep 0.3; touch " + dir + "/done) >/dev/null 2>&1 &"},
                                    {}, {}, 5);
  EXPECT_EQ(e.exit_status, 0);
  EXPECT_TRUE(e.still_running.empty());
  EXPECT_EQ(e.stopped_by, 0);
  EXPECT_EQ(access((dir + "/done").c_str(), F_OK), 0)
      << "the wait ended at the descendant's signal";
}

// What a person at a terminal does: pinbench runs on a terminal of its own (a pseudo-terminal, as
// its session's controlling terminal), the program leaves a process that ignores SIGINT, and ^C is
// typed while pinbench waits for it.
TEST(ProgramSignals, CtrlCAtATerminalStopsTheWaitAtOnceAndNamesWhatRuns) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string cmd = "exec " + kBin +
                            "accel --wait-descendants 60 -- sh -c "
                            "'(trap \"\" INT; exec sleep 37.25) >/dev/null 2>&1 & echo ready'";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string out;
  const auto read_for = [&](double seconds, const std::string& until) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end &&
           (until.empty() || out.find(until) == std::string::npos)) {
      pollfd p{master, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(master, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
  };
  read_for(10, "ready");
  ASSERT_NE(out.find("ready"), std::string::npos) << out;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // into the wait
  const auto typed = std::chrono::steady_clock::now();
  const char ctrl_c = 3;
  ASSERT_EQ(write(master, &ctrl_c, 1), 1);
  read_for(10, "");
  int status = 0;
  for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (kill(pid, 0) == 0 && waitpid(pid, &status, WNOHANG) == 0) {  // still waiting: a failure
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - typed).count();
  close(master);
  (void)!std::system("pkill -f 'sleep 37.25' 2>/dev/null");
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 130) << out;
  EXPECT_LT(took, 5.0) << out;
  const std::string flat = test::unwrapped(out);
  EXPECT_NE(flat.find("SIGINT: stopped waiting for what the program left running"),
            std::string::npos)
      << out;
  EXPECT_NE(flat.find("sleep 37.25"), std::string::npos) << out;
}

TEST(ProgramSignals, TheWaitForDescendantsHasACeiling) {
  const test::Result r = test::run(kBin + "accel --wait-descendants 601 -- true");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--wait-descendants"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("600"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pinbench::cli
