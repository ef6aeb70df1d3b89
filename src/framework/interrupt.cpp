#include "framework/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <utility>

namespace pinbench {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");

}  // namespace

void request_stop(int signal_number) noexcept {
  int none = 0;
  g_signal.compare_exchange_strong(none, signal_number);
}

bool stop_requested() noexcept {
  return g_signal.load() != 0;
}

int stop_signal() noexcept {
  return g_signal.load();
}

void clear_stop() noexcept {
  g_signal.store(0);
}

const char* signal_name(int signal_number) noexcept {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

std::string describe_signal(int sig) {
  static const std::pair<int, const char*> names[] = {
      {1, "SIGHUP"},   {2, "SIGINT"},   {3, "SIGQUIT"},  {4, "SIGILL"},
      {6, "SIGABRT"},  {7, "SIGBUS"},   {8, "SIGFPE"},   {9, "SIGKILL"},
      {11, "SIGSEGV"}, {13, "SIGPIPE"}, {14, "SIGALRM"}, {15, "SIGTERM"}};
  for (const auto& [n, name] : names) {
    if (n == sig) return name;
  }
  return "signal " + std::to_string(sig);
}

int exit_code_for_signal(int signal_number) noexcept {
  return 128 + signal_number;
}

}  // namespace pinbench
