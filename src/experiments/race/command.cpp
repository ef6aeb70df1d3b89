// `pinbench race`: overwrite a copy's source right after the call returns, and count.
#include "cli/measuring_command.hpp"
#include "cli/progress.hpp"
#include "experiments/race/measure.hpp"

namespace pinbench::experiments::race {

using namespace pinbench::cli;

std::vector<Command> commands(CLI::App& app) {
  MeasuringCommand<RaceConfig> race(app, "race", {});
  race.options({{"--size", size(&RaceConfig::bytes), "Bytes per copy (a multiple of 8)"},
                {"--trials", value(&RaceConfig::trials, 1), "Copies per mode"}});
  return {race.measure(kJsonOnly, [](const RaceConfig& c, const MeasuringFlags&) {
    return with_progress([&] { return run_race(c, terminal_progress); });
  })};
}

}  // namespace pinbench::experiments::race
