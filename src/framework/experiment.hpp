// An experiment, as every generic part of pinbench sees it: a descriptor it fills once (its
// names, and what the generic parts read of it as data: the keys of its config and of its cases'
// extra, its record section's key, its NVTX ranges, whether its cases are copy rates, ...) and
// the few questions only its own code answers (its analysis, its terminal text, its own rules,
// its comparison of two records, its conditions). Below the command line one file asks them,
// framework/by_experiment.cpp (record validation, analysis, the trace's gates); above it the CLI,
// replay and `compare` look a record's experiment up in the registry. No generic file switches
// on an experiment's name (as nvbandwidth lists its testcase classes and nvbench registers its
// benchmarks).
//
// An experiment is one folder, src/experiments/NAME/: its plan, analysis and printer here
// (CUDA-free), its measurement and command beside them (CUDA), and one line in
// src/experiments/registry.def. docs/architecture.md says how to add one, and where a new need
// that every experiment shares goes (a field of the descriptor or of the report model, before a
// method here).
#pragma once

#include <any>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/config_schema.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"
#include "framework/trace_gates.hpp"

namespace pinbench {

// What `pinbench compare` says of two records of one experiment beyond their cases.
struct ExperimentComparison {
  std::string text;      // for the terminal, after the line that names the two records
  bool differs = false;  // B is worse in a way a script should stop on: compare exits 1
};

// One fact of the conditions a record was measured under, beyond what each case says: the GPU
// model, the kernel run beside the copies, the methods measured together. Two records whose facts
// differ were not measured alike, so a difference between their figures is the conditions' as
// much as the runs': `pinbench compare` shows both and judges neither against the other.
struct Condition {
  std::string name;   // "kernel beside the copies"
  std::string value;  // "compute", "none"
  bool operator==(const Condition& o) const { return name == o.name && value == o.value; }
};

// What an experiment's terminal text may be given besides the record and its model: the
// analysis writes the text (ReportModel::text), so the analysis is given them.
struct TextOptions {
  std::optional<RunRecord> reference;  // a lesson's published reference (lesson --reference)
};

// What tells a case of many pieces (a blocks cell: 16 blocks of 4 KiB) apart from one of the
// same bytes moved whole, beyond its part, method, direction, memory and bytes: the values that
// identify it, and how a comparison names it. Empty for a case of one buffer.
struct CaseShape {
  std::vector<std::uint64_t> key;
  std::string text;  // "16 x 4 KiB"
};

// What every generic part reads of an experiment, as data: each experiment fills one once (in
// its experiment.cpp) and is made with it. A need that every experiment shares becomes a field
// here (a fact of the experiment) or of the report model (a fact of one record, filled by its
// analyse()), not a method of Experiment.
struct ExperimentDescriptor {
  // Its names; every other field has the default most experiments want.
  ExperimentDescriptor(std::string name_, std::string command_, std::string label_,
                       std::string noun_)
      : name(std::move(name_)),
        command(std::move(command_)),
        label(std::move(label_)),
        noun(std::move(noun_)) {}

  // The record's "experiment", e.g. "staged-tune".
  std::string name;
  // The command that measures it, e.g. "pinbench staged --tune"; empty when none does (a fleet
  // record is put together from others).
  std::string command;
  // How a replay names the run: "Staged tuning" in "Staged tuning wall time", "staged tuning
  // run" in "replaying the staged tuning run recorded on ...".
  std::string label;
  std::string noun;

  // Whether its host-side cases are rates of one buffer copied whole by the copy engine, as a
  // program's own copy is, so another experiment may judge a program's copies by them (doctor
  // --rates). No by default: many scattered blocks, or the staged engine's and the pipeline's
  // streams, measure something else.
  bool copy_rates = false;
  // The keys of its config that analyses and printers read, and their kinds (config_schema.hpp):
  // record validation checks them wherever they appear in the record's config.
  std::vector<ConfigField> config_fields;
  // The keys of its cases' `extra` that its analyses and printers read, and their kinds: record
  // validation checks every case's extra against those of every registered experiment
  // (case_extra_fields, by_experiment.hpp), whatever the record's experiment.
  std::vector<ConfigField> extra_fields;
  // The top-level key of the record's section it owns (RunRecord::sections), which
  // Experiment::read_section reads; empty when its records carry none.
  std::string section_key;
  // Its NVTX ranges that the memory-kind gate checks, each with the gate's part it names
  // (framework/trace_gates.hpp): the lesson's "part1" as "copy", the sweep's "sweep {}" as
  // "sweep/{}".
  std::vector<RangeGate> range_gates;
  // What "every gate passed" means for its records.
  std::string gates_meaning =
      "every gated buffer is the memory kind it claims and every gated path moved its bytes "
      "exactly.";
  // The closing line of a printed run, "Staged tuning wall time: 12.3 s.": the seconds' decimals,
  // and what the time covers where the line says so (the lesson's "device set-up, allocations,
  // gates and all three parts").
  int wall_time_decimals = 1;
  std::string wall_time_covers;
};

// An experiment: its descriptor, and what only its code can answer, each with a default, so an
// experiment of no more than a descriptor is an Experiment made with one.
class Experiment {
 public:
  explicit Experiment(ExperimentDescriptor descriptor) : descriptor_(std::move(descriptor)) {}
  virtual ~Experiment() = default;

  const ExperimentDescriptor& descriptor() const { return descriptor_; }
  // The closing line of a printed run: "Staged tuning wall time: 12.3 s.", and on a replay
  // "Staged tuning wall time (the recorded run's): 12.3 s."; the lesson says what its time covers.
  std::string wall_time(const RunRecord& record, bool replayed) const;

  // Its section as a record read it, whatever the record's experiment (descriptor's
  // section_key): what the record keeps (null: nothing, and nothing is written back), or
  // InputError naming the field. By default the JSON as it is, its fields checked by validate()
  // on its own records.
  virtual nlohmann::json read_section(const nlohmann::json& section) const;
  // Its own rules beyond the kinds of fields, on a record that passed the schema: throws
  // InputError naming the field (a check's floors, its own section's fields).
  virtual void validate(const RunRecord& record) const;
  // Its section of the report model: tables, verdicts, charts, check failures, its own analysis
  // in model.section for its printer, and its own timeline (model.timeline). The common part
  // (its experiment and title) is there already.
  virtual void analyse(const RunRecord& record, ReportModel& model) const;
  // Its terminal text (ReportModel::text), from the model its analysis completed: what the
  // measuring command prints, live and on replay. By default the model itself as text
  // (framework/render/text.hpp).
  virtual std::string text(const RunRecord& record, const ReportModel& model,
                           const TextOptions& options) const;
  // The shape of one of its cases (CaseShape): `pinbench compare` matches two records' cases by
  // it too, and names it. None by default.
  virtual CaseShape case_shape(const Case& c) const;
  // Its own comparison of two of its records, A before and B after (doctor: per finding and call
  // site, what changed); none by default, and `pinbench compare` compares their cases alone.
  virtual std::optional<ExperimentComparison> compare(const RunRecord& a, const RunRecord& b) const;
  // The conditions its records were measured under beyond the experiment and the GPU model,
  // which every record states (conditions_of): blocks' kernel beside the copies and its methods,
  // the sweep's placement of host buffers. A condition names a fact of the setup, never the
  // subject a comparison measures (the engine's options, the program doctor ran). None by default.
  virtual std::vector<Condition> conditions(const RunRecord& record) const;

 private:
  ExperimentDescriptor descriptor_;
};

// What a record of an experiment no one registered gets: the generic tables and rate charts,
// printed from the model.
const Experiment& generic_experiment();

// Every registered experiment, in the registry's order (src/experiments/registry.def).
const std::vector<const Experiment*>& all_experiments();
// The experiment a record of this name belongs to; a record of a name no experiment registered
// gets the generic one.
const Experiment& experiment_for(const std::string& name);

// "methods": the methods its cases measured, sorted, each once; for an experiment whose methods
// are measured side by side and ranked (blocks, staged, sweep).
Condition methods_measured(const RunRecord& record);
// "host buffers on the GPU's NUMA node": whether the run placed them there (config
// place_on_gpu_node; --no-numa: not), for an experiment that asks it (sweep, check, host).
Condition host_placement(const RunRecord& record);

// An experiment's own section of a model, typed: model.section holds what its analyse() put
// there. Throws std::bad_any_cast when another experiment's model is given.
template <typename T>
const T& section(const ReportModel& model) {
  return std::any_cast<const T&>(model.section);
}

}  // namespace pinbench
