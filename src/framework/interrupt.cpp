#include "framework/interrupt.hpp"

#include <atomic>
#include <csignal>

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

int exit_code_for_signal(int signal_number) noexcept {
  return 128 + signal_number;
}

}  // namespace pinbench
