// `pinbench staged` (and `--tune`): the staged copy engine against every other way of moving
// pageable memory, or the engine alone over ring shapes.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/defaults.hpp"
#include "cli/engine_flags.hpp"
#include "cli/measuring_command.hpp"
#include "cli/numbers.hpp"
#include "cli/paths.hpp"
#include "cli/progress.hpp"
#include "cli/trace_option.hpp"
#include "experiments/staged/measure.hpp"
#include "experiments/staged/measure_torch.hpp"
#include "experiments/staged/plan.hpp"
#include "framework/errors.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::staged {
namespace {

using namespace pinbench::cli;

std::string all_method_names() {
  std::string names;
  for (StagedMethod m : all_staged_methods())
    names += (names.empty() ? "" : ",") + std::string(to_string(m));
  return names;
}

// What the staged command holds beside the bench config: the tuning grid and the options that
// belong to one mode only.
struct StagedExtras {
  StagedExtras() {
    const StagedTuneConfig t;
    tune_sizes = size_list_default(t.sizes);
    tune_chunks = size_list_default(t.chunk_bytes);
    tune_depths = count_list_default(t.depths);
    tune_threads = count_list_default(t.threads);
  }
  bool tune = false;
  bool torch = false;  // PyTorch's paths too (experiments/staged/measure_torch.hpp)
  std::string torch_python = "python3";
  std::string tune_sizes, tune_chunks, tune_depths, tune_threads;
  EngineFlags engine;
  const CLI::Option* iterations_given = nullptr;  // --tune takes 5 unless this was set
  std::vector<const CLI::Option*> not_for_tune;   // what the tuning grid replaces or leaves unused
  std::vector<const CLI::Option*> only_for_tune;
};

std::string names_given(const std::vector<const CLI::Option*>& options) {
  std::string names;
  for (const CLI::Option* o : options) {
    if (o->count() > 0) names += (names.empty() ? "" : ", ") + o->get_name();
  }
  return names;
}

// An option that a run does not use is refused rather than dropped: `--tune --methods pinned`
// would otherwise tune the staged engine and look like an answer about pinned memory.
void check_tune_options(const StagedExtras& x) {
  if (x.tune) {
    const std::string unused = names_given(x.not_for_tune);
    if (!unused.empty()) {
      throw InputError(
          fmt::format("--tune excludes {}: it measures the staged engine alone, over --tune-sizes, "
                      "--tune-chunks, --tune-depths and --tune-threads",
                      unused));
    }
  } else if (const std::string tune_only = names_given(x.only_for_tune); !tune_only.empty()) {
    throw InputError(fmt::format("without --tune there is no grid for {}", tune_only));
  }
}

std::vector<int> tune_depths(const std::string& v) {
  return parse_counts(v, "depth", kMinRingDepth, kMaxRingDepth);
}

std::vector<int> tune_threads(const std::string& v) {
  return parse_counts(v, "thread count", 1, kMaxHostThreads);
}

// The grid, with the directions, warmups, iterations and --force the bench options gave.
RunRecord measure_tune(const StagedBenchConfig& bench, const StagedExtras& x) {
  StagedTuneConfig c;
  c.directions = bench.directions;
  c.sizes = parse_sizes(x.tune_sizes);
  c.chunk_bytes = parse_size_list(x.tune_chunks);
  c.depths = tune_depths(x.tune_depths);
  c.threads = tune_threads(x.tune_threads);
  c.warmups = bench.warmups;
  c.iterations = x.iterations_given->count() > 0 ? bench.iterations : 5;  // the grid is long
  c.engine = engine_options(x.engine);
  c.force = bench.force;
  c.validate();
  return with_progress([&] { return run_staged_tune(c, terminal_progress); });
}

RunRecord measure_staged(StagedBenchConfig c, const StagedExtras& x, const MeasuringFlags& f) {
  check_tune_options(x);
  if (x.tune) return measure_tune(c, x);
  c.engine = engine_options(x.engine);
  c.normalize();
  c.validate();
  return run_with_progress(f.outputs.trace, [&] {
    RunRecord r = run_staged(c, terminal_progress);
    if (x.torch) {
      add_staged_torch(r, c, {x.torch_python, python_dir(), c_library_beside_binary()},
                       terminal_progress);
    }
    return r;
  });
}

// The bench options; those --tune has no use for are noted in `x`.
void add_bench_options(MeasuringCommand<StagedBenchConfig>& staged, StagedExtras& x) {
  using C = StagedBenchConfig;
  const std::vector<CLI::Option*> bench = staged.options({
      {"--sizes", text(&C::sizes, parse_sizes, size_range_default(4 * kKiB, kGiB, 4)),
       "Sizes from page-aligned addresses: a list or START:END:xF", "SIZES"},
      {"--odd-sizes",
       text<C>(size_list_default(C::defaults().odd_sizes),
               [](C& c, const std::string& v) {
                 c.odd_sizes = v == "none" ? std::vector<std::uint64_t>{} : parse_sizes(v);
               }),
       "Sizes measured at the offsets below ('none' for none)", "SIZES"},
      {"--host-offset", value(&C::host_offset, 0, 4095), "Host offset of the odd sizes, bytes"},
      {"--device-offset", value(&C::device_offset, 0, 4095),
       "Device offset of the odd sizes, bytes"},
      {"--methods", text(&C::methods, parse_staged_methods, all_method_names()),
       "Ways to move the data, comma-separated"},
      {"--driver-threads", value(&C::driver_threads, 1, kMaxHostThreads),
       "Threads of multithread-driver"},
  });
  x.not_for_tune.assign(bench.begin(), bench.end());
  const std::vector<CLI::Option*> both = staged.options({
      {"--directions", text(&C::directions, parse_directions, "h2d,d2h"), "h2d, d2h"},
      {"--warmups", value(&C::warmups, 0), "Untimed copies before each case"},
      {"--iterations", value(&C::iterations, 1), "Timed samples per case (--tune: 5 unless set)"},
      {"--force", flag(&C::force), "Allow pinning more than half of host memory"},
  });
  x.iterations_given = both[2];
}

// --torch and --tune, with the tuning grid.
const CLI::Option* add_mode_options(CLI::App& sub, StagedExtras& x) {
  x.not_for_tune.push_back(sub.add_flag(
      "--torch", x.torch,
      "Also PyTorch's paths (.to() from pageable and pinned tensors, pin_memory().to(), .cpu(), "
      "copy_()) and the engine from Python, on the same tensors, at the aligned sizes (methods "
      "torch-* and python-staged; needs torch in --torch-python)"));
  x.not_for_tune.push_back(
      sub.add_option("--torch-python", x.torch_python, "--torch: the Python interpreter")
          ->capture_default_str()
          ->type_name("PROGRAM"));
  const CLI::Option* tune =
      sub.add_flag("--tune", x.tune,
                   "Measure the staged engine alone over a grid of ring shapes and thread "
                   "counts, and name the best; with --replay, takes tuning records only");
  x.only_for_tune = {
      read_by(sub.add_option("--tune-sizes", x.tune_sizes, "--tune: sizes"),
              [](const std::string& v) { parse_sizes(v); })
          ->capture_default_str()
          ->type_name("SIZES"),
      read_by(sub.add_option("--tune-chunks", x.tune_chunks, "--tune: staging buffer sizes"),
              [](const std::string& v) { parse_size_list(v); })
          ->capture_default_str()
          ->type_name("SIZES"),
      read_by(sub.add_option(
                  "--tune-depths", x.tune_depths,
                  fmt::format("--tune: ring depths, each {} to {}", kMinRingDepth, kMaxRingDepth)),
              [](const std::string& v) { tune_depths(v); })
          ->capture_default_str()
          ->type_name("COUNTS"),
      read_by(sub.add_option(
                  "--tune-threads", x.tune_threads,
                  fmt::format("--tune: host copy thread counts, each 1 to {}", kMaxHostThreads)),
              [](const std::string& v) { tune_threads(v); })
          ->capture_default_str()
          ->type_name("COUNTS")};
  const RingOptions ring = add_engine_flags(&sub, x.engine);
  x.not_for_tune.insert(x.not_for_tune.end(), ring.all.begin(), ring.all.end());
  return tune;
}

Command add_staged(CLI::App& app) {
  MeasuringCommand<StagedBenchConfig> staged(app, "staged", StagedBenchConfig::defaults());
  auto x = std::make_shared<StagedExtras>();
  add_bench_options(staged, *x);
  staged.keep_in_replay(add_mode_options(staged.sub(), *x));
  // The engine's own NVTX ranges (each host thread's fill and drain slices) beside its DMA.
  x->not_for_tune.push_back(add_trace_option(&staged.sub(), staged.flags().outputs.trace));
  return staged.measure(
      kTables,
      [x](const StagedBenchConfig& c, const MeasuringFlags& f) { return measure_staged(c, *x, f); },
      // A tuning record is the staged experiment's too, so plain --replay takes both.
      [x] {
        std::vector<std::string> experiments = {"staged-tune"};
        if (!x->tune) experiments.insert(experiments.begin(), "staged");
        return experiments;
      },
      "staged or staged --tune");
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_staged(app)};
}

}  // namespace pinbench::experiments::staged
