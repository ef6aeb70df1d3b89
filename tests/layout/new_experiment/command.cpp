// `pinbench example`: its option table bound to its config, and a run that records nothing
// measured (a real experiment keeps its config in plan.hpp and calls its measurement,
// measure.cpp, here).
#include <cstdint>

#include "cli/measuring_command.hpp"

namespace pinbench::experiments::example {

using namespace pinbench::cli;

struct ExampleConfig {
  std::uint64_t bytes = 1 << 20;
};

std::vector<Command> commands(CLI::App& app) {
  MeasuringCommand<ExampleConfig> example(app, "example", {});
  example.option({"--size", size(&ExampleConfig::bytes), "Bytes per copy"});
  return {example.measure(kJsonOnly, [](const ExampleConfig&, const MeasuringFlags&) {
    RunRecord record;
    record.experiment = "example";
    return record;
  })};
}

}  // namespace pinbench::experiments::example
