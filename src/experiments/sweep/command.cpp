// `pinbench sweep`, `pinbench bandwidthtest` and `pinbench race`: the general measurements.
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/outputs.hpp"
#include "cli/progress.hpp"
#include "cli/replay.hpp"
#include "cli/trace_option.hpp"
#include "experiments/sweep/plan.hpp"
#include "framework/units.hpp"
#include "experiments/bandwidthtest/measure.hpp"
#include "experiments/race/measure.hpp"
#include "experiments/sweep/measure.hpp"

namespace pinbench::experiments::sweep {
namespace {

using namespace pinbench::cli;

struct SweepOptions {
  std::string kinds = "pageable,pageable-thp,pinned,registered,write-combined,mapped,managed";
  std::string directions = "h2d,d2h,bidir";
  std::string methods = "ce,sm";
  std::string sizes = size_range_default(4 * kKiB, 256 * kMiB, 4);
  int warmups = 3;
  double max_spread_pct = 1.0;
  double time_cap_ms = 500.0;
  int min_samples = 10;
  int max_samples = 2000;
  std::string pin_cost = size_default(SweepConfig{}.pin_cost_bytes);
  bool no_numa = false;
  bool force = false;
  OutputPaths outputs;
  ReplayFlags replay;
};

RunRecord measure_sweep(const SweepOptions& o) {
  SweepConfig c;
  c.kinds = parse_memory_kinds(o.kinds);
  c.directions = parse_directions(o.directions);
  c.methods = parse_copy_methods(o.methods);
  c.sizes = parse_sizes(o.sizes);
  c.warmups = o.warmups;
  c.stop.max_spread = o.max_spread_pct / 100.0;
  c.stop.time_cap_ms = o.time_cap_ms;
  c.stop.min_samples = o.min_samples;
  c.stop.max_samples = o.max_samples;
  c.pin_cost_bytes = o.pin_cost == "0" || o.pin_cost == "off" ? 0 : parse_size(o.pin_cost);
  c.place_on_gpu_node = !o.no_numa;
  c.force = o.force;
  c.normalize();
  c.validate();
  return run_traced(o.outputs.trace,
                    [&] { return with_progress([&] { return run_sweep(c, terminal_progress); }); });
}

Command add_sweep(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep",
      "Measure every host-memory kind, direction and copy method over a range of sizes, each "
      "sample checked byte for byte, sampling until the spread is small or a time cap is hit. "
      "Without a GPU, replays the newest recorded sweep.");
  sub->add_option("--kinds", o->kinds, "Host-memory kinds, comma-separated")->capture_default_str();
  sub->add_option("--directions", o->directions, "h2d, d2h, bidir (both at once)")
      ->capture_default_str();
  sub->add_option("--methods", o->methods, "ce (copy engine), sm (kernel on the SMs)")
      ->capture_default_str();
  sub->add_option("--sizes", o->sizes, "A list (4KiB,1MiB) or a range START:END:xF or :+STEP")
      ->capture_default_str();
  sub->add_option("--warmups", o->warmups, "Untimed copies before each case")
      ->capture_default_str();
  sub->add_option("--max-spread", o->max_spread_pct,
                  "Stop sampling when stddev/mean of the times is at most this many percent")
      ->capture_default_str();
  sub->add_option("--time-cap", o->time_cap_ms, "Stop sampling a case after this many ms")
      ->capture_default_str();
  sub->add_option("--min-samples", o->min_samples, "Never fewer timed samples per case")
      ->capture_default_str();
  sub->add_option("--max-samples", o->max_samples, "Never more timed samples per case")
      ->capture_default_str();
  sub->add_option("--pin-cost", o->pin_cost, "Size for the cost-of-pinning probe, or 0 to skip it")
      ->capture_default_str();
  sub->add_flag("--no-numa", o->no_numa,
                "Do not bind the allocating thread to the GPU's NUMA node");
  sub->add_flag("--force", o->force, "Allow pinning more than half of host memory");
  add_output_flags(sub, o->outputs);
  add_trace_option(sub, o->outputs.trace);
  add_replay_flags(sub, o->replay, "sweep");
  return {sub, [o, sub] {
            return measure_or_replay(
                *sub, o->replay, {{"sweep"}, "", [o] { return measure_sweep(*o); }, o->outputs});
          }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_sweep(app)};
}

}  // namespace pinbench::experiments::sweep
