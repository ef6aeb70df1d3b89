// Running a user's program under pinbench (`doctor`, `accel`): finding it on PATH, starting it as
// a shell would (its own stdin, stdout, stderr, arguments and environment, every signal at its
// default and none blocked, since pinbench itself ignores SIGPIPE), passing on the signals sent to
// doctor alone, and capturing a helper's output (addr2line). No CUDA here: the program's CUDA is
// its own.
#pragma once

#include <string>
#include <vector>

#include "framework/program_sight.hpp"

namespace pinbench::cli {

// A regular file this process may execute.
bool executable_file(const std::string& path);

// `name` itself when it holds a '/', else the first executable `name` on $PATH; InputError
// (exit 2) naming it when there is none.
std::string resolve_program(const std::string& name);

struct ProgramExit {
  int exit_status = 0;  // the program's own, when it exited
  int signal = 0;       // the signal that killed it, else 0
  double wall_ms = 0;   // from its start to its end
  // Processes the program started that were still running when pinbench stopped waiting for
  // them, each "pid 123 (sleep 30)" (with their own descendants, not named); empty when none.
  std::vector<std::string> still_running;
  // SIGINT or SIGTERM, when one (a terminal's Ctrl-C included) stopped that wait; else 0.
  int stopped_by = 0;
  // Whether the CUDA driver loads here, asked once the program is gone (probe_cuda_driver);
  // run_with_library fills it, run_program does not.
  DriverSight driver;
};

// How long run_program waits, by default and at most, for what the program left running.
constexpr double kDescendantWaitS = 10.0;
constexpr double kMaxDescendantWaitS = 600.0;

// The signals run_program passes on: every signal whose default ends a process and that a job
// runner or a person sends (SIGINT, SIGTERM, SIGHUP, SIGQUIT; SIGUSR1 and SIGUSR2, which Slurm
// sends before a time limit; SIGALRM, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGPWR).
const std::vector<int>& forwarded_signals();

// Runs `path` with `argv` and this process's environment, less every entry whose name starts
// with one of `drop` (e.g. "PINBENCH_DOCTOR_", "CUDA_INJECTION64_PATH"), plus `extra_env`, and
// waits for it, then for up to `wait_s` seconds for every process it started (pinbench is their
// subreaper: a daemon's grandchild is waited for too) and names those still running.
// Signals: those of forwarded_signals() are held from before the program starts until the last
// wait, then handled one by one, so none is acted on before the program's pid is known. One that
// another process sent pinbench (kill, a job runner) is passed on to the program, and while
// waiting for what it left, to those processes, which ends the wait; one the program or what it
// started sent pinbench (a readiness signal to its parent) is theirs to pinbench and goes nowhere;
// a terminal's reached the program itself. A SIGINT or SIGTERM during the wait for what the program
// left, a terminal's Ctrl-C included, stops the wait at once (ProgramExit::stopped_by). pinbench is
// not ended by any of them, so it still reports and removes its temporary files. InputError when
// the program cannot be started.
ProgramExit run_program(const std::string& path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& drop,
                        const std::vector<std::string>& extra_env,
                        double wait_s = kDescendantWaitS);

// The status pinbench exits with after a program's run: 128 + N when SIGINT or SIGTERM stopped
// the wait for what it left (pinbench was asked to stop), else 128 + N for the signal that ended
// the program, else the program's own status.
int exit_status_of(const ProgramExit& e);

// LD_PRELOAD's value with `library` first. One already set stays after it and sees what the
// library passes on; `who` says so on stderr ("accel's library goes before it, ...").
std::string preload_with(const std::string& library, const char* who);

// Whether the CUDA driver's library (libcuda.so.1) loads here, as the program's CUDA runtime
// would look for it, and what the loader said when it does not: a fact, not the runtime's guess
// ("CUDA driver version is insufficient" is its answer to a missing driver too). It loads the
// library into pinbench without initialising it, so the GPU is not touched.
DriverSight probe_cuda_driver();

// What `argv` (argv[0] a path) writes to stdout, stderr discarded; "" when it cannot start.
std::string capture(const std::vector<std::string>& argv);

}  // namespace pinbench::cli
