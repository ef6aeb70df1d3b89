// Planted for layout.one_way_finds_second_ways: each job of tests/layout/check_one_way.py done a
// second way, which the check run on this folder must name, one line each, and nothing else.
#include <csignal>
#include <stdexcept>

namespace planted {

enum class Colour { kRed, kBlue };

// enum names: a switch of names where a table belongs.
const char* colour_name(Colour c) {
  switch (c) {
    case Colour::kRed:
      return "red";
    case Colour::kBlue:
      return "blue";
  }
  return "?";
}

void start() {
  std::signal(SIGPIPE, SIG_IGN);  // sigpipe: a second place
}

void read_field() {
  throw std::runtime_error("run record: 'colour' is not a colour");  // run record: by hand
}

int spawn() {
  return run_program("./train");  // runner: around run_with_library (declared nowhere: never built)
}

}  // namespace planted
