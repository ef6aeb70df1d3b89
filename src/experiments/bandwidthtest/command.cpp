// `pinbench bandwidthtest`: the blog's four copies on this machine's GPU.
#include "cli/measuring_command.hpp"
#include "experiments/bandwidthtest/measure.hpp"

namespace pinbench::experiments::bandwidthtest {

using namespace pinbench::cli;

std::vector<Command> commands(CLI::App& app) {
  MeasuringCommand<BandwidthTestConfig> test(app, "bandwidthtest", {});
  test.option({"--size", size(&BandwidthTestConfig::bytes),
               "Transfer size (a multiple of 4 bytes: it holds floats)"});
  return {test.measure(kJsonOnly, [](const BandwidthTestConfig& c, const MeasuringFlags&) {
    return run_bandwidthtest(c);
  })};
}

}  // namespace pinbench::experiments::bandwidthtest
