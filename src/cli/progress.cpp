#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace pinbench::cli {
namespace {

bool stderr_is_terminal() {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  return tty;
}

}  // namespace

void terminal_progress(const std::string& what) {
  if (stderr_is_terminal()) std::fprintf(stderr, "\r\033[K[pinbench] %s", what.c_str());
}

void end_progress() {
  if (stderr_is_terminal()) std::fputs("\r\033[K", stderr);
}

}  // namespace pinbench::cli
