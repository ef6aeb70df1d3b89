// `pinbench pin`: every way of getting page-locked memory, at each size, with a neighbouring
// process timing its own CUDA calls meanwhile; the host's limits read first.
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/defaults.hpp"
#include "cli/measuring_command.hpp"
#include "cli/paths.hpp"
#include "cli/progress.hpp"
#include "cuda/device.hpp"
#include "experiments/pin/analysis.hpp"
#include "experiments/pin/measure.hpp"
#include "framework/engine_options.hpp"
#include "framework/errors.hpp"
#include "framework/text.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::pin {
namespace {

// A method by its name or its token, in any case ("cudaHostRegister THP",
// "cudahostregister-thp"): the names hold spaces, which a shell needs quoted.
std::vector<std::string> parse_pin_methods(const std::string& text) {
  return parse_list<std::string>(text, "method", [](std::string_view given) {
    const std::string token = pin_method_token(std::string(given));
    for (const std::string& name : pin_method_names()) {
      if (pin_method_token(name) == token) return name;
    }
    throw InputError(fmt::format("unknown method '{}': the methods are {}", given,
                                 fmt::join(pin_method_names(), ", ")));
  });
}

}  // namespace

using namespace pinbench::cli;

std::vector<Command> commands(CLI::App& app) {
  using C = PinConfig;
  MeasuringCommand<C> pin(app, "pin", {});
  pin.options({
      {"--sizes", text(&C::sizes, parse_sizes, ""),
       "Sizes to pin, each at once: a list (1GiB,4GiB,64GiB) or a range START:END:xF (default: "
       "half the memory this process may use, at most 64 GiB)",
       "SIZES"},
      {"--methods",
       text(&C::methods, parse_pin_methods, fmt::format("{}", fmt::join(pin_method_names(), ","))),
       "Ways to pin, comma-separated, by name or lower case with dashes (cudahostregister-thp)"},
      {"--arena-chunks",
       text(&C::arena_chunks, parse_size_list, size_list_default(C{}.arena_chunks)),
       "PinnedArena's chunk sizes, each a whole number of 4 KiB pages, comma-separated", "SIZES"},
      {"--arena-threads",
       text(
           &C::arena_threads,
           [](const std::string& v) { return parse_counts(v, "thread count", 1, kMostPinThreads); },
           ""),
       fmt::format("PinnedArena's thread counts, comma-separated, each 1 to {} (default: the "
                   "arena's own)",
                   kMostPinThreads),
       "COUNTS"},
      {"--copy-bytes", size(&C::copy_bytes),
       "Bytes of each copy that checks what the DMA gets from each kind of pinned memory"},
      {"--neighbour-interval", value(&C::neighbour_interval_us, 0, kMostNeighbourIntervalUs),
       "The neighbour's period in microseconds, 0 for none: each period a small copy, a kernel "
       "launch and cudaMemGetInfo",
       "US"},
  });
  return {pin.measure(kTables, [](C c, const MeasuringFlags& f) {
    check_pin_config(c);
    if (f.replay.device) c.device = *f.replay.device;
    cuda::require_device();  // no GPU: replay, before the neighbour starts or anything is read
    if (c.neighbour_interval_us > 0) {
      c.neighbour_program = program_library("pinbench_neighbour", "pinbench_neighbour");
    }
    return with_progress([&] { return run_pin(c, terminal_progress); });
  })};
}

}  // namespace pinbench::experiments::pin
