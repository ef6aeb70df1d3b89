// A record grown from a committed one (record_growth.hpp), for the Python scaling test
// (tests/python/test_scaling.py):
//   pinbench_grown_record --kinds           every registered record kind: "KIND UNIT N", or
//                                           "KIND - 0" for one without a growth
//   pinbench_grown_record KIND UNITS FILE   the record of KIND grown to UNITS units, into FILE
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "framework/experiment.hpp"
#include "record_growth.hpp"

int main(int argc, char** argv) {
  using namespace pinbench;
  try {
    if (argc == 2 && std::string(argv[1]) == "--kinds") {
      for (const Experiment* e : all_experiments()) {
        const test::RecordGrowth* g = test::growth_for(e->descriptor().name);
        std::printf("%s %s %zu\n", e->descriptor().name.c_str(), g ? g->unit.c_str() : "-",
                    g ? g->base : std::size_t{0});
      }
      return 0;
    }
    if (argc != 4) {
      std::fprintf(stderr, "usage: pinbench_grown_record --kinds | KIND UNITS FILE\n");
      return 2;
    }
    std::ofstream out(argv[3], std::ios::binary);
    out << test::grown_record(argv[1], std::stoull(argv[2]));
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[3]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pinbench_grown_record: error: %s\n", e.what());
    return 2;
  }
}
