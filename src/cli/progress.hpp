// Progress lines for long runs: on stderr, and only when stderr is a terminal, so piped and
// redirected output stays clean.
#pragma once

#include <string>

namespace pinbench::cli {

void terminal_progress(const std::string& what);  // overwrites the previous progress line
void end_progress();                              // clears it

// Runs `f`, clearing the progress line however `f` ends.
template <typename F>
auto with_progress(F&& f) {
  struct Clear {
    ~Clear() { end_progress(); }
  } clear;
  return f();
}

}  // namespace pinbench::cli
