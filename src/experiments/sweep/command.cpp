// `pinbench sweep`: every host-memory kind, direction and copy method over a range of sizes.
#include <fmt/format.h>

#include "cli/measuring_command.hpp"
#include "cli/progress.hpp"
#include "cli/trace_option.hpp"
#include "experiments/sweep/measure.hpp"
#include "experiments/sweep/plan.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::sweep {

using namespace pinbench::cli;

std::vector<Command> commands(CLI::App& app) {
  using C = SweepConfig;
  MeasuringCommand<C> sweep(app, "sweep", C::defaults());
  sweep.options({
      {"--kinds",
       text(&C::kinds, parse_memory_kinds,
            "pageable,pageable-thp,pinned,registered,write-combined,mapped,managed"),
       "Host-memory kinds, comma-separated"},
      {"--directions", text(&C::directions, parse_directions, "h2d,d2h,bidir"),
       "h2d, d2h, bidir (both at once)"},
      {"--methods", text(&C::methods, parse_copy_methods, "ce,sm"),
       "ce (copy engine), sm (kernel on the SMs)"},
      {"--sizes", text(&C::sizes, parse_sizes, size_range_default(4 * kKiB, 256 * kMiB, 4)),
       "A list (4KiB,1MiB) or a range START:END:xF or :+STEP", "SIZES"},
      {"--warmups", value(&C::warmups, 0), "Untimed copies before each case"},
      {"--pin-cost",
       text<C>(size_default(C{}.pin_cost_bytes),
               [](C& c, const std::string& v) {
                 c.pin_cost_bytes = v == "off" ? 0 : parse_size_or_zero(v);
               }),
       "Size for the cost-of-pinning probe, or 0 to skip it", "SIZE"},
      {"--no-numa", flag(&C::place_on_gpu_node, false),
       "Do not bind the allocating thread to the GPU's NUMA node"},
      {"--force", flag(&C::force), "Allow pinning more than half of host memory"},
  });
  sweep.options(stop_rule_options<C>());
  return {sweep.measure(kTables | kTrace, [](C c, const MeasuringFlags& f) {
    c.normalize();
    c.validate();
    return run_with_progress(f.outputs.trace, [&] { return run_sweep(c, terminal_progress); });
  })};
}

}  // namespace pinbench::experiments::sweep
