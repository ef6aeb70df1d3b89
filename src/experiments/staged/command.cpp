// `pinbench staged` (and `--tune`) and `pinbench pipeline`: the staged copy engine against every
// other way of moving pageable memory, and the Day 54 pipeline through it.
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
#include "experiments/pipeline/measure.hpp"
#include "experiments/staged/measure.hpp"
#include "experiments/staged/measure_torch.hpp"

namespace pinbench::cli {
namespace {

std::string size_or_zero_default(std::size_t bytes) {
  return bytes == 0 ? "0" : size_default(bytes);
}

// The staged engine's settings as flags, shared by both subcommands. Their defaults are the
// library's (StagedCopyOptions), so the help text cannot drift from what the engine does.
struct EngineFlags {
  EngineFlags() {
    const StagedCopyOptions o;
    h2d_chunk = size_default(o.to_device.chunk_bytes);
    h2d_depth = o.to_device.depth;
    h2d_threads = o.to_device.threads;
    d2h_chunk = size_default(o.to_host.chunk_bytes);
    d2h_depth = o.to_host.depth;
    d2h_threads = o.to_host.threads;
    edge_chunk = size_default(o.edge_chunk_bytes);
    h2d_direct_below = size_or_zero_default(o.to_device.direct_below_bytes);
    d2h_direct_below = size_or_zero_default(o.to_host.direct_below_bytes);
    max_staging = size_default(o.max_staging_bytes);
    no_streaming_drain = !o.streaming_drain;
    no_streaming_fill_edges = !o.streaming_fill_edges;
    no_caller_copies = !o.caller_copies;
  }
  std::string h2d_chunk;
  int h2d_depth = 0;
  int h2d_threads = 0;
  std::string d2h_chunk;
  int d2h_depth = 0;
  int d2h_threads = 0;
  std::string edge_chunk;
  std::string h2d_direct_below;
  std::string d2h_direct_below;
  std::string max_staging;
  bool no_streaming_drain = false;
  bool no_streaming_fill_edges = false;
  bool no_caller_copies = false;
};

// The ring's flags, which --tune replaces with its grid.
struct RingOptions {
  std::vector<const CLI::Option*> all;
};

RingOptions add_engine_flags(CLI::App* sub, EngineFlags& f) {
  const std::string depths = fmt::format(" ({} to {})", kMinRingDepth, kMaxRingDepth);
  const std::string threads = fmt::format(" (1 to {})", kMaxHostThreads);
  RingOptions ring;
  ring.all = {
      sub->add_option("--h2d-chunk", f.h2d_chunk, "Engine: staging buffer size, host to device")
          ->capture_default_str(),
      sub->add_option("--h2d-depth", f.h2d_depth,
                      "Engine: staging buffers, host to device" + depths)
          ->capture_default_str(),
      sub->add_option("--h2d-threads", f.h2d_threads,
                      "Engine: host copy threads, host to device" + threads)
          ->capture_default_str(),
      sub->add_option("--d2h-chunk", f.d2h_chunk, "Engine: staging buffer size, device to host")
          ->capture_default_str(),
      sub->add_option("--d2h-depth", f.d2h_depth,
                      "Engine: staging buffers, device to host" + depths)
          ->capture_default_str(),
      sub->add_option("--d2h-threads", f.d2h_threads,
                      "Engine: host copy threads, device to host" + threads)
          ->capture_default_str()};
  sub->add_option("--edge-chunk", f.edge_chunk,
                  "Engine: a copy's first chunk, doubling up to the buffer size; its last "
                  "chunks halve back down to it")
      ->capture_default_str();
  sub->add_option("--h2d-direct-below", f.h2d_direct_below,
                  "Engine: copies to the device smaller than this go straight to "
                  "cudaMemcpyAsync (0: none)")
      ->capture_default_str();
  sub->add_option("--d2h-direct-below", f.d2h_direct_below,
                  "Engine: copies to the host smaller than this go straight to cudaMemcpyAsync "
                  "(0: none)")
      ->capture_default_str();
  ring.all.push_back(sub->add_option("--max-staging", f.max_staging,
                                     "Engine: refuse ring settings that would pin more than this")
                         ->capture_default_str());
  sub->add_flag("--no-streaming-drain", f.no_streaming_drain,
                "Engine: drain to pageable memory with memcpy instead of non-temporal stores "
                "(used on x86-64 with AVX2)");
  sub->add_flag("--no-streaming-fill-edges", f.no_streaming_fill_edges,
                "Engine: fill a copy's first and last chunks to the device with memcpy instead of "
                "non-temporal stores (used on x86-64 with AVX2)");
  sub->add_flag("--no-caller-copies", f.no_caller_copies,
                "Engine: the thread of a synchronous copy only waits, instead of copying slices "
                "alongside the host threads");
  return ring;
}

std::uint64_t size_or_zero(const std::string& text) {
  return text == "0" ? 0 : parse_size(text);
}

StagedCopyOptions engine_options(const EngineFlags& f) {
  StagedCopyOptions o;
  o.to_device = {static_cast<std::size_t>(parse_size(f.h2d_chunk)), f.h2d_depth, f.h2d_threads,
                 static_cast<std::size_t>(size_or_zero(f.h2d_direct_below))};
  o.to_host = {static_cast<std::size_t>(parse_size(f.d2h_chunk)), f.d2h_depth, f.d2h_threads,
               static_cast<std::size_t>(size_or_zero(f.d2h_direct_below))};
  o.edge_chunk_bytes = static_cast<std::size_t>(parse_size(f.edge_chunk));
  o.max_staging_bytes = static_cast<std::size_t>(parse_size(f.max_staging));
  o.streaming_drain = !f.no_streaming_drain;
  o.streaming_fill_edges = !f.no_streaming_fill_edges;
  o.caller_copies = !f.no_caller_copies;
  o.device = 0;  // every pinbench measurement runs on device 0
  return o;
}

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

struct PipelineFlags {
  PipelineFlags() {
    const PipelineConfig c;
    array_size = size_default(c.array_bytes);
    window = size_default(c.window_bytes);
    streams = count_list_default(c.streams);
    kernel_rounds = c.kernel_rounds;
    warmups = c.warmups;
    iterations = c.iterations;
  }
  std::string array_size;
  std::string window;
  std::string streams;
  std::string sources = "pinned,staged";
  int kernel_rounds = 0;
  int warmups = 0;
  int iterations = 0;
  bool force = false;
  OutputPaths outputs;
  EngineFlags engine;
  ReplayFlags replay;
};

RunRecord measure_pipeline(const PipelineFlags& f) {
  PipelineConfig c;
  c.array_bytes = parse_size(f.array_size);
  c.window_bytes = parse_size(f.window);
  c.streams = parse_counts(f.streams, "stream count", 1, kMaxStreams);
  c.sources = parse_pipeline_sources(f.sources);
  c.kernel_rounds = f.kernel_rounds;
  c.warmups = f.warmups;
  c.iterations = f.iterations;
  c.engine = engine_options(f.engine);
  c.force = f.force;
  c.normalize();
  c.validate();
  return run_traced(f.outputs.trace, [&] {
    return with_progress([&] { return run_pipeline(c, terminal_progress); });
  });
}

}  // namespace

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

Command add_pipeline(CLI::App& app) {
  auto f = std::make_shared<PipelineFlags>();
  CLI::App* sub = app.add_subcommand(
      "pipeline",
      "The Day 54 program: a host array through a device window, chunk by chunk (copy in, a "
      "kernel, copy out) over 1, 2 or N streams, from page-locked memory and from pageable "
      "memory through the staged engine; GB/s each way and the overlap efficiency against the "
      "bound measured in the same run. Without a GPU, replays the newest recorded run.");
  sub->add_option("--array-size", f->array_size, "Host array (floats)")->capture_default_str();
  sub->add_option("--window", f->window, "Device window, split into one slot per stream")
      ->capture_default_str();
  sub->add_option("--streams", f->streams,
                  fmt::format("Stream counts, comma-separated, each 1 to {}", kMaxStreams))
      ->capture_default_str();
  sub->add_option("--sources", f->sources, "pinned, staged")->capture_default_str();
  sub->add_option("--kernel-rounds", f->kernel_rounds,
                  "Extra add-subtract pairs per element, for a heavier kernel")
      ->capture_default_str();
  sub->add_option("--warmups", f->warmups, "Untimed runs before each case")->capture_default_str();
  sub->add_option("--iterations", f->iterations, "Timed runs per case")->capture_default_str();
  sub->add_flag("--force", f->force, "Allow pinning more than half of host memory");
  add_engine_flags(sub, f->engine);
  add_output_flags(sub, f->outputs);
  add_trace_option(sub, f->outputs.trace);
  add_replay_flags(sub, f->replay, "pipeline");
  return {sub, [f, sub] {
            return measure_or_replay(
                *sub, f->replay,
                {{"pipeline"}, "", [f] { return measure_pipeline(*f); }, f->outputs});
          }};
}

}  // namespace pinbench::cli
