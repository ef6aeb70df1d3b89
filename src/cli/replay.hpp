// How every measuring subcommand ends: one printer per experiment, called on the run record by
// the live run and by the replay alike, so a replay prints what the live run printed; --replay
// FILE; and, where no GPU is usable, a replay of the newest committed record of the experiment.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/outputs.hpp"
#include "framework/record.hpp"

namespace pinbench::cli {

// What a printer needs beyond the record.
struct PrintOptions {
  std::optional<RunRecord> reference;  // lesson: the record its ratios are compared with
};

// Prints `record` on stdout as the live run of its experiment prints it and returns the exit
// code it implies: 0, or 1 when a gate or check failed. InputError for an experiment that has
// no text printer.
int print_run(const RunRecord& record, const PrintOptions& options);

// The command line that measures `experiment` ("staged-tune": "pinbench staged --tune"), or ""
// for one no subcommand measures.
std::string command_for(const std::string& experiment);

// Loads a --reference record; every error names it as the reference, and a record that is not
// a lesson is refused (InputError).
RunRecord load_reference(const std::string& path);

// --replay FILE and --require-gpu, the two options every measuring subcommand shares.
struct ReplayFlags {
  std::string replay_path;
  bool require_gpu = false;
  // --device N: the GPU measured (-1: not given; device 0, or every GPU for host and check).
  int device = -1;
  // The options that still mean something in a replay (lesson: --reference; staged: --tune);
  // --replay excludes every other, and a no-GPU replay names the others it ignores.
  std::vector<const CLI::Option*> kept;
  const CLI::Option* replay = nullptr;  // set by add_replay_flags
};

// Adds --replay, --require-gpu and --device to `sub`. Call it after every other option of `sub`.
// `experiment` names what is replayed, in the help.
void add_replay_flags(CLI::App* sub, ReplayFlags& flags, const std::string& experiment);

// One run of a measuring subcommand.
struct MeasuringRun {
  // The experiments --replay accepts; the first is measured, and replayed without a GPU.
  std::vector<std::string> experiments;
  std::string reference_path;  // lesson --reference; loaded before anything is measured
  // Measures and returns the record. Bad input throws InputError before the GPU is asked for;
  // no usable GPU throws NoGpuError before anything is measured (cuda::require_device).
  std::function<RunRecord()> measure;
  OutputPaths outputs;  // written after the live run printed its record
};

// --replay FILE: prints FILE's record, refused (InputError, before anything is printed) when it
// is of another experiment. Otherwise measures and prints; where no GPU is usable and
// --require-gpu was not given, replays the newest committed record of the experiment instead,
// after one line on stderr naming the options given that it ignored.
int measure_or_replay(const CLI::App& sub, const ReplayFlags& flags, const MeasuringRun& run);

}  // namespace pinbench::cli
