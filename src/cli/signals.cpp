#include "cli/signals.hpp"

#include <csignal>
#include <cstring>
#include <initializer_list>

#include <unistd.h>

#include "framework/interrupt.hpp"
#include "framework/text_file.hpp"

namespace pinbench::cli {
namespace {

volatile std::sig_atomic_t g_measuring = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_measuring != 0 && !stop_requested()) {
    request_stop(sig);
    static const char kNote[] =
        "\npinbench: stopping after the case in flight; the record keeps every case measured "
        "(signal again to stop at once)\n";
    (void)!write(STDERR_FILENO, kNote, sizeof kNote - 1);
    return;
  }
  // Ends the process as the signal would have (the shell sees 128 + N), leaving no half-written
  // temporary file behind.
  remove_temporaries_now();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a read or write in flight resumes; the flag is read between cases
  for (int sig : {SIGINT, SIGTERM}) sigaction(sig, &sa, nullptr);
  // The one place pinbench ignores SIGPIPE: a closed pipe shows as EPIPE on the write, which ends
  // the command quietly (framework/text_file.hpp, StdoutClosed). A program pinbench runs starts
  // with every signal at its default (cli/program.cpp).
  std::signal(SIGPIPE, SIG_IGN);
}

MeasuringScope::MeasuringScope() {
  g_measuring = 1;
}

MeasuringScope::~MeasuringScope() {
  g_measuring = 0;
}

}  // namespace pinbench::cli
