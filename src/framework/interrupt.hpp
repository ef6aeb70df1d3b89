// A request to stop measuring, made by a signal (SIGINT, SIGTERM) and read between cases.
//
// The CLI's handler calls request_stop; an experiment asks stop_requested() before each case and,
// when it is set, returns the record of every case measured so far, marked incomplete. So an
// interrupted sweep loses nothing it measured, and the case in flight finishes whole (its gate
// included) rather than leaving a half-timed case behind. Lock-free and async-signal-safe.
#pragma once

#include <string>

namespace pinbench {

void request_stop(int signal_number) noexcept;  // the first request wins
bool stop_requested() noexcept;
int stop_signal() noexcept;  // the signal that asked, 0 when none did
void clear_stop() noexcept;  // for tests, and for a process that measures again

// "SIGINT", "SIGTERM", "SIGHUP", or "a signal".
const char* signal_name(int signal_number) noexcept;

// A signal that ended a program: "SIGSEGV", "SIGKILL", ..., or "signal 42".
std::string describe_signal(int signal_number);

// The exit status of a process that ended because of `signal_number`: 128 + N, the shell's
// convention (130 for SIGINT, 143 for SIGTERM).
int exit_code_for_signal(int signal_number) noexcept;

}  // namespace pinbench
