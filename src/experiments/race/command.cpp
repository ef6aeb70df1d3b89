// `pinbench race`: overwrite a copy's source right after the call returns, and count.
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/outputs.hpp"
#include "cli/progress.hpp"
#include "cli/replay.hpp"
#include "experiments/race/measure.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::race {
namespace {

using namespace pinbench::cli;

struct RaceOptions {
  std::string size;
  int trials = RaceConfig{}.trials;
  OutputPaths outputs;  // --json only
  ReplayFlags replay;
};

Command add_race(CLI::App& app) {
  auto o = std::make_shared<RaceOptions>();
  o->size = size_default(RaceConfig{}.bytes);
  CLI::App* sub = app.add_subcommand(
      "race",
      "Overwrite a copy's pinned source right after cudaMemcpyAsync returns and count how many "
      "of the bytes that reached the device are old and how many new; then the same after "
      "synchronising, and with a pageable source. Without a GPU, replays the newest recorded "
      "run.");
  sub->add_option("--size", o->size, "Bytes per copy (a multiple of 8)")->capture_default_str();
  sub->add_option("--trials", o->trials, "Copies per mode")->capture_default_str();
  add_output_flags(sub, o->outputs, false);
  add_replay_flags(sub, o->replay, "race");
  return {sub, [o, sub] {
            const auto measure = [o] {
              RaceConfig c;
              c.bytes = parse_size(o->size);
              c.trials = o->trials;
              return with_progress([&] { return run_race(c, terminal_progress); });
            };
            return measure_or_replay(*sub, o->replay, {{"race"}, "", measure, o->outputs});
          }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_race(app)};
}

}  // namespace pinbench::experiments::race
