// `pinbench host`: every GPU of this host alone, then all at once.
#include "cli/measuring_command.hpp"
#include "experiments/host/measure.hpp"
#include "framework/errors.hpp"

namespace pinbench::experiments::host {

using namespace pinbench::cli;

std::vector<Command> commands(CLI::App& app) {
  MeasuringCommand<HostConfig> host(app, "host", {});
  host.options({
      {"--size", size(&HostConfig::bytes), "Bytes per copy"},
      {"--rounds", value(&HostConfig::rounds, 1), "Timed rounds per case"},
      {"--no-numa", flag(&HostConfig::place_on_gpu_node, false),
       "Do not place host buffers on each GPU's NUMA node"},
  });
  return {host.measure(kJsonOnly, [](HostConfig c, const MeasuringFlags& f) {
    if (c.rounds < 1) throw InputError("--rounds must be at least 1");
    if (f.replay.device) c.devices = {*f.replay.device};
    return run_host(c);
  })};
}

}  // namespace pinbench::experiments::host
