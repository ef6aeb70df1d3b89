// `pinbench host`: every GPU of this host alone, then all at once.
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/outputs.hpp"
#include "cli/replay.hpp"
#include "experiments/host/measure.hpp"
#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::host {
namespace {

using namespace pinbench::cli;

struct HostOptions {
  std::string size = size_default(HostConfig{}.bytes);
  int rounds = HostConfig{}.rounds;
  bool no_numa = false;
  OutputPaths outputs;
  ReplayFlags replay;
};

Command add_host(CLI::App& app) {
  auto o = std::make_shared<HostOptions>();
  CLI::App* sub = app.add_subcommand(
      "host",
      "Every GPU of this host alone, then all at once (a thread per GPU, released at one "
      "instant): host to device, device to host and both, pinned and pageable; per-GPU and "
      "aggregate GB/s, each GPU's together/alone ratio, and the peer-to-peer matrix with two or "
      "more GPUs. Without a GPU, replays the newest recorded host run.");
  sub->add_option("--size", o->size, "Bytes per copy")->capture_default_str();
  sub->add_option("--rounds", o->rounds, "Timed rounds per case")->capture_default_str();
  sub->add_flag("--no-numa", o->no_numa, "Do not place host buffers on each GPU's NUMA node");
  add_output_flags(sub, o->outputs, false);
  add_replay_flags(sub, o->replay, "host");
  return {sub, [o, sub] {
            HostConfig c;
            c.bytes = parse_size(o->size);
            if (o->rounds < 1) throw InputError("--rounds must be at least 1");
            c.rounds = o->rounds;
            c.place_on_gpu_node = !o->no_numa;
            if (o->replay.device >= 0) c.devices = {o->replay.device};
            return measure_or_replay(*sub, o->replay,
                                     {{"host"}, "", [c] { return run_host(c); }, o->outputs});
          }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_host(app)};
}

}  // namespace pinbench::experiments::host
