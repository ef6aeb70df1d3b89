// How every measuring subcommand ends: the record's experiment prints it (framework/
// experiment.hpp), for the live run and the replay alike, so a replay prints what the live run
// printed; --replay FILE; and, where no GPU is usable, a replay of the newest committed record of
// the experiment.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/outputs.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"

namespace pinbench::cli {

// Prints `record` on stdout as the live run of its experiment prints it, then its wall time
// (`replayed`: as the recorded run's), and returns the exit code its model gives: 0, or 1 when a
// gate or check failed.
// "Replaying PATH: DEVICE, recorded DATE." and a blank line, wrapped to 100 columns.
void print_replaying(const std::string& path, const RunRecord& record);

int print_run(const RunRecord& record, const TextOptions& options, bool replayed = false);

// Loads a --reference record; every error names it as the reference, and a record of another
// experiment than `experiment` is refused (InputError).
RunRecord load_reference(const std::string& path, const std::string& experiment);

// --replay FILE and --require-gpu, the two options every measuring subcommand shares.
struct ReplayFlags {
  std::string replay_path;
  bool require_gpu = false;
  // --device N: the GPU measured (not given: device 0, or every GPU for host and check).
  std::optional<int> device;
  // The options that still mean something in a replay (lesson: --reference; staged: --tune);
  // --replay excludes every other, and a no-GPU replay names the others it ignores.
  std::vector<const CLI::Option*> kept;
  const CLI::Option* replay = nullptr;  // set by add_replay_flags
};

// Adds --replay, --require-gpu and --device to `sub`. Call it after every other option of `sub`.
// `experiment` names what is replayed, in the help.
// `replays_newest`: without a GPU the command replays its newest committed record, which
// --require-gpu turns into exit 3. A command that never does (check) still takes --require-gpu,
// hidden from its help, where it changes nothing.
void add_replay_flags(CLI::App* sub, ReplayFlags& flags, const std::string& experiment,
                      bool replays_newest = true);

// One run of a measuring subcommand.
struct MeasuringRun {
  // The experiments --replay accepts; the first is measured, and replayed without a GPU.
  std::vector<std::string> experiments;
  std::string reference_path;  // --reference (lesson); loaded before anything is measured
  // Measures and returns the record. Bad input throws InputError before the GPU is asked for;
  // no usable GPU throws NoGpuError before anything is measured (cuda::require_device).
  std::function<RunRecord()> measure;
  OutputPaths outputs;  // written after the live run printed its record
  // The experiment's own outputs, written after those (check: --prometheus); may be empty.
  std::function<void(const RunRecord&)> write_more;
  // Outputs that come from the record alone (blocks: --recommend), written after the record is
  // printed whether it was measured or replayed; may be empty.
  std::function<void(const RunRecord&)> write_from_record;
  // The paths write_from_record writes, checked with `outputs` before anything is measured, and
  // against the replayed record before it is printed.
  std::vector<NamedPath> more_outputs;
  // Where set, prints the record in place of the report and the lines around it (the "Replaying"
  // line, notes of what was written) and returns the exit code (check --verdict: one line).
  std::function<int(const RunRecord&)> print;
};

// --replay FILE: prints FILE's record, refused (InputError, before anything is printed) when it
// is of another experiment. Otherwise measures and prints; where no GPU is usable and
// --require-gpu was not given, replays the newest committed record of the experiment instead,
// after one line on stderr naming the options given that it ignored.
int measure_or_replay(const CLI::App& sub, const ReplayFlags& flags, const MeasuringRun& run);

}  // namespace pinbench::cli
