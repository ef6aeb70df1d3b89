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

namespace pinbench::cli {
namespace {

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

// The size, --json and --replay of bandwidthtest and race.
struct SmallOptions {
  std::string size;
  int trials = RaceConfig{}.trials;  // race only
  OutputPaths outputs;               // --json only
  ReplayFlags replay;
};

}  // namespace

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

Command add_bandwidthtest(CLI::App& app) {
  auto o = std::make_shared<SmallOptions>();
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

Command add_race(CLI::App& app) {
  auto o = std::make_shared<SmallOptions>();
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

}  // namespace pinbench::cli
