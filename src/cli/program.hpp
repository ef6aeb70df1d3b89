// Running a user's program under pinbench (`doctor`, `accel`): finding it on PATH, starting it as
// a shell would (its own stdin, stdout, stderr, arguments and environment, every signal at its
// default and none blocked, since pinbench itself ignores SIGPIPE), passing on the signals sent to
// doctor alone, and capturing a helper's output (addr2line). No CUDA here: the program's CUDA is
// its own.
#pragma once

#include <string>
#include <vector>

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
};

// Runs `path` with `argv` and this process's environment, less every entry whose name starts
// with one of `drop` (e.g. "PINBENCH_DOCTOR_", "CUDA_INJECTION64_PATH"), plus `extra_env`, and
// waits for it. SIGINT, SIGTERM, SIGHUP and
// SIGQUIT sent to this process alone (by kill, a job runner) are passed on; a terminal's signal
// reaches the program itself. InputError when it cannot be started.
ProgramExit run_program(const std::string& path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& drop,
                        const std::vector<std::string>& extra_env);

// LD_PRELOAD's value with `library` first. One already set stays after it and sees what the
// library passes on; `who` says so on stderr ("accel's library goes before it, ...").
std::string preload_with(const std::string& library, const char* who);

// What `argv` (argv[0] a path) writes to stdout, stderr discarded; "" when it cannot start.
std::string capture(const std::vector<std::string>& argv);

}  // namespace pinbench::cli
