// `pinbench bandwidthtest`: the blog's four copies on this machine's GPU.
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/outputs.hpp"
#include "cli/replay.hpp"
#include "experiments/bandwidthtest/measure.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::bandwidthtest {
namespace {

using namespace pinbench::cli;

struct BandwidthTestOptions {
  std::string size;
  OutputPaths outputs;  // --json only
  ReplayFlags replay;
};

Command add_bandwidthtest(CLI::App& app) {
  auto o = std::make_shared<BandwidthTestOptions>();
  o->size = size_default(BandwidthTestConfig{}.bytes);
  CLI::App* sub = app.add_subcommand(
      "bandwidthtest",
      "The devblog's bandwidthtest: pageable and pinned, host to device and back, GB/s, and a "
      "check that the data came back unchanged. Without a GPU, replays the newest recorded "
      "run.");
  sub->add_option("--size", o->size, "Transfer size (a multiple of 4 bytes: it holds floats)")
      ->capture_default_str();
  add_output_flags(sub, o->outputs, false);
  add_replay_flags(sub, o->replay, "bandwidthtest");
  return {sub, [o, sub] {
            const auto measure = [o] {
              BandwidthTestConfig c;
              c.bytes = parse_size(o->size);
              return run_bandwidthtest(c);
            };
            return measure_or_replay(*sub, o->replay, {{"bandwidthtest"}, "", measure, o->outputs});
          }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_bandwidthtest(app)};
}

}  // namespace pinbench::experiments::bandwidthtest
