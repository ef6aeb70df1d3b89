// `pinbench staged` (and `--tune`): the staged copy engine against every other way of moving
// pageable memory, or the engine alone over ring shapes.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/outputs.hpp"
#include "cli/paths.hpp"
#include "cli/progress.hpp"
#include "cli/replay.hpp"
#include "cli/trace_option.hpp"
#include "framework/errors.hpp"
#include "experiments/staged/plan.hpp"
#include "framework/units.hpp"
#include "experiments/staged/engine_flags.hpp"
#include "experiments/staged/measure.hpp"
#include "experiments/staged/measure_torch.hpp"

namespace pinbench::experiments::staged {
namespace {

using namespace pinbench::cli;

std::string all_method_names() {
  std::string names;
  for (StagedMethod m : all_staged_methods())
    names += (names.empty() ? "" : ",") + std::string(to_string(m));
  return names;
}

struct StagedFlags {
  StagedFlags() {
    const StagedBenchConfig c = StagedBenchConfig::defaults();
    odd_sizes = size_list_default(c.odd_sizes);
    host_offset = c.host_offset;
    device_offset = c.device_offset;
    warmups = c.warmups;
    iterations = c.iterations;
    driver_threads = c.driver_threads;
    const StagedTuneConfig t;
    tune_sizes = size_list_default(t.sizes);
    tune_chunks = size_list_default(t.chunk_bytes);
    tune_depths = count_list_default(t.depths);
    tune_threads = count_list_default(t.threads);
  }
  std::string sizes = size_range_default(4 * kKiB, kGiB, 4);
  std::string odd_sizes;
  std::uint64_t host_offset = 0;
  std::uint64_t device_offset = 0;
  std::string directions = "h2d,d2h";
  std::string methods = all_method_names();  // every method pinbench knows
  int warmups = 0;
  int iterations = 0;
  const CLI::Option* iterations_given = nullptr;  // --tune takes 5 unless this was set
  int driver_threads = 0;
  bool force = false;
  bool tune = false;
  bool torch = false;  // PyTorch's paths too (experiments/staged/measure_torch.hpp)
  std::string torch_python = "python3";
  std::string tune_sizes, tune_chunks, tune_depths, tune_threads;
  OutputPaths outputs;
  EngineFlags engine;
  std::vector<const CLI::Option*> not_for_tune;  // what the tuning grid replaces or leaves unused
  std::vector<const CLI::Option*> only_for_tune;
  ReplayFlags replay;
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
void check_tune_options(const StagedFlags& f) {
  if (f.tune) {
    const std::string unused = names_given(f.not_for_tune);
    if (!unused.empty()) {
      throw InputError(
          fmt::format("--tune excludes {}: it measures the staged engine alone, over --tune-sizes, "
                      "--tune-chunks, --tune-depths and --tune-threads",
                      unused));
    }
  } else if (const std::string tune_only = names_given(f.only_for_tune); !tune_only.empty()) {
    throw InputError(fmt::format("without --tune there is no grid for {}", tune_only));
  }
}

RunRecord measure_tune(const StagedFlags& f) {
  StagedTuneConfig c;
  c.directions = parse_directions(f.directions);
  c.sizes = parse_sizes(f.tune_sizes);
  c.chunk_bytes = parse_size_list(f.tune_chunks);
  c.depths = parse_counts(f.tune_depths, "depth", kMinRingDepth, kMaxRingDepth);
  c.threads = parse_counts(f.tune_threads, "thread count", 1, kMaxHostThreads);
  c.warmups = f.warmups;
  c.iterations = f.iterations_given->count() > 0 ? f.iterations : 5;  // the grid is long
  c.engine = engine_options(f.engine);
  c.force = f.force;
  c.validate();
  return with_progress([&] { return run_staged_tune(c, terminal_progress); });
}

RunRecord measure_staged(const StagedFlags& f) {
  check_tune_options(f);
  if (f.tune) return measure_tune(f);
  StagedBenchConfig c;
  c.methods = parse_staged_methods(f.methods);
  c.directions = parse_directions(f.directions);
  c.sizes = parse_sizes(f.sizes);
  c.odd_sizes = f.odd_sizes == "none" ? std::vector<std::uint64_t>{} : parse_sizes(f.odd_sizes);
  c.host_offset = f.host_offset;
  c.device_offset = f.device_offset;
  c.warmups = f.warmups;
  c.iterations = f.iterations;
  c.driver_threads = f.driver_threads;
  c.engine = engine_options(f.engine);
  c.force = f.force;
  c.normalize();
  c.validate();
  return run_traced(f.outputs.trace, [&] {
    return with_progress([&] {
      RunRecord r = run_staged(c, terminal_progress);
      if (f.torch) {
        add_staged_torch(r, c, {f.torch_python, python_dir(), c_library_beside_binary()},
                         terminal_progress);
      }
      return r;
    });
  });
}

Command add_staged(CLI::App& app) {
  auto f = std::make_shared<StagedFlags>();
  CLI::App* sub = app.add_subcommand(
      "staged",
      "Move pageable memory through pinbench's staged copy engine and every other way a program "
      "could (the driver, batched copies, threads, registering), host to device and back, each "
      "sample checked byte for byte; the ratios to page-locked memory and to the driver, and the "
      "goals' verdicts. --tune measures the engine alone over ring shapes instead. Without a "
      "GPU, replays the newest recorded run (of --tune: the newest tuning run).");
  f->not_for_tune = {
      sub->add_option("--sizes", f->sizes,
                      "Sizes from page-aligned addresses: a list or START:END:xF")
          ->capture_default_str(),
      sub->add_option("--odd-sizes", f->odd_sizes,
                      "Sizes measured at the offsets below ('none' for none)")
          ->capture_default_str(),
      sub->add_option("--host-offset", f->host_offset, "Host offset of the odd sizes, bytes")
          ->capture_default_str(),
      sub->add_option("--device-offset", f->device_offset, "Device offset of the odd sizes, bytes")
          ->capture_default_str()};
  sub->add_option("--directions", f->directions, "h2d, d2h")->capture_default_str();
  f->not_for_tune.push_back(
      sub->add_option("--methods", f->methods, "Ways to move the data, comma-separated")
          ->capture_default_str());
  sub->add_option("--warmups", f->warmups, "Untimed copies before each case")
      ->capture_default_str();
  f->iterations_given = sub->add_option("--iterations", f->iterations,
                                        "Timed samples per case (--tune: 5 unless set)")
                            ->capture_default_str();
  f->not_for_tune.push_back(
      sub->add_option("--driver-threads", f->driver_threads,
                      fmt::format("Threads of multithread-driver (1 to {})", kMaxHostThreads))
          ->capture_default_str());
  sub->add_flag("--force", f->force, "Allow pinning more than half of host memory");
  f->not_for_tune.push_back(sub->add_flag(
      "--torch", f->torch,
      "Also PyTorch's paths (.to() from pageable and pinned tensors, pin_memory().to(), .cpu(), "
      "copy_()) and the engine from Python, on the same tensors, at the aligned sizes (methods "
      "torch-* and python-staged; needs torch in --torch-python)"));
  f->not_for_tune.push_back(
      sub->add_option("--torch-python", f->torch_python, "--torch: the Python interpreter")
          ->capture_default_str());
  const CLI::Option* tune =
      sub->add_flag("--tune", f->tune,
                    "Measure the staged engine alone over a grid of ring shapes and thread "
                    "counts, and name the best; with --replay, takes tuning records only");
  f->only_for_tune = {
      sub->add_option("--tune-sizes", f->tune_sizes, "--tune: sizes")->capture_default_str(),
      sub->add_option("--tune-chunks", f->tune_chunks, "--tune: staging buffer sizes")
          ->capture_default_str(),
      sub->add_option(
             "--tune-depths", f->tune_depths,
             fmt::format("--tune: ring depths, each {} to {}", kMinRingDepth, kMaxRingDepth))
          ->capture_default_str(),
      sub->add_option("--tune-threads", f->tune_threads,
                      fmt::format("--tune: host copy thread counts, each 1 to {}", kMaxHostThreads))
          ->capture_default_str()};
  const RingOptions ring = add_engine_flags(sub, f->engine);
  f->not_for_tune.insert(f->not_for_tune.end(), ring.all.begin(), ring.all.end());
  add_output_flags(sub, f->outputs);
  // The engine's own NVTX ranges (each host thread's fill and drain slices) beside its DMA.
  f->not_for_tune.push_back(add_trace_option(sub, f->outputs.trace));
  f->replay.kept = {tune};
  add_replay_flags(sub, f->replay, "staged or staged --tune");
  return {sub, [f, sub] {
            // A tuning record is the staged experiment's too, so plain --replay takes both.
            std::vector<std::string> experiments = {"staged-tune"};
            if (!f->tune) experiments.insert(experiments.begin(), "staged");
            return measure_or_replay(
                *sub, f->replay, {experiments, "", [f] { return measure_staged(*f); }, f->outputs});
          }};
}

}  // namespace

std::vector<Command> commands(CLI::App& app) {
  return {add_staged(app)};
}

}  // namespace pinbench::experiments::staged
