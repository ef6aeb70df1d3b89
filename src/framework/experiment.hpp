// An experiment, as every generic part of pinbench sees it: the CLI, replay, `report`, and record
// validation ask the registry for the experiment a record names and let it speak for itself, so
// no generic file switches on an experiment's name (as nvbandwidth lists its testcase classes and
// nvbench registers its benchmarks).
//
// An experiment is one folder, src/experiments/NAME/: its plan, analysis and printer here
// (CUDA-free), its measurement and command beside them (CUDA), and one line in
// src/experiments/registry.def. docs/architecture.md says how to add one.
#pragma once

#include <any>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/config_schema.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"

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

// What a terminal printer may be given besides the record and its model.
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

class Experiment {
 public:
  virtual ~Experiment() = default;

  // The record's "experiment", e.g. "staged-tune".
  virtual std::string name() const = 0;
  // The command that measures it, e.g. "pinbench staged --tune"; empty when none does (a fleet
  // record is put together from others).
  virtual std::string command() const { return ""; }
  // How a replay names the run: "Staged tuning" in "Staged tuning wall time", "staged tuning
  // run" in "replaying the staged tuning run recorded on ...".
  virtual std::string label() const = 0;
  virtual std::string noun() const = 0;

  // Whether its host-side cases are rates of one buffer copied whole by the copy engine, as a
  // program's own copy is, so another experiment may judge a program's copies by them (doctor
  // --rates). No by default: many scattered blocks, or the staged engine's and the pipeline's
  // streams, measure something else.
  virtual bool copy_rates() const { return false; }
  // The shape of one of its cases (CaseShape): `pinbench compare` matches two records' cases by
  // it too, and names it. None by default.
  virtual CaseShape case_shape(const Case& c) const;

  // The keys of its config that analyses and printers read, and their kinds (config_schema.hpp):
  // record validation checks them wherever they appear in the record's config.
  virtual const std::vector<ConfigField>& config_fields() const;
  // The keys of its cases' `extra` that its analyses and printers read, and their kinds: record
  // validation checks every case's extra against those of every registered experiment
  // (case_extra_fields, below), whatever the record's experiment. None by default.
  virtual const std::vector<ConfigField>& extra_fields() const;
  // Its own rules beyond the kinds of fields, on a record that passed the schema: throws
  // InputError naming the field (a check's floors, its own section's fields).
  virtual void validate(const RunRecord& record) const;
  // The top-level key of the record's section it owns (RunRecord::sections), usually its name;
  // empty, the default, when its records carry none.
  virtual std::string section_key() const;
  // Its section as a record read it, whatever the record's experiment: what the record keeps
  // (null: nothing, and nothing is written back), or InputError naming the field. By default
  // the JSON as it is, its fields checked by validate() on its own records.
  virtual nlohmann::json read_section(const nlohmann::json& section) const;
  // The part of the memory-kind gate (trace/kind/PART/DIR/KIND, framework/trace_gates.hpp) that
  // an NVTX range of its runs checks: `words` is the range's name split at spaces, at least three
  // words, the last two a direction (h2d, d2h) and a host-memory kind (pageable, pinned).
  // Nothing, the default, for a range that is not one of its own.
  virtual std::optional<std::string> range_gate(const std::vector<std::string>& words) const;

  // Its section of the report model: tables, verdicts, charts, check failures, and its own
  // analysis in model.section for its printer. The common part (machine, notes, cases, gates)
  // is there already.
  virtual void analyse(const RunRecord& record, ReportModel& model) const;
  // What "every gate passed" means for its records.
  virtual std::string gates_meaning() const;
  // The terminal printer: what the measuring command prints, live and on replay. By default the
  // model itself as text (framework/render/text.hpp).
  virtual std::string text(const RunRecord& record, const ReportModel& model,
                           const TextOptions& options) const;
  // The closing line of a printed run: "Staged tuning wall time: 12.3 s.", and on a replay
  // "Staged tuning wall time (the recorded run's): 12.3 s."; the lesson says what its time covers.
  virtual std::string wall_time(const RunRecord& record, bool replayed) const;
  // The run's own timeline (Perfetto JSON), which the HTML report draws, through the model's
  // analysed_by, when no trace sits beside the record (a program's calls); none by default.
  virtual std::optional<nlohmann::json> timeline(const RunRecord& record) const;
  // Its own comparison of two of its records, A before and B after (doctor: per finding and call
  // site, what changed); none by default, and `pinbench compare` compares their cases alone.
  virtual std::optional<ExperimentComparison> compare(const RunRecord& a, const RunRecord& b) const;
  // The conditions its records were measured under beyond the experiment and the GPU model,
  // which every record states (conditions_of): blocks' kernel beside the copies and its methods,
  // the sweep's placement of host buffers. A condition names a fact of the setup, never the
  // subject a comparison measures (the engine's options, the program doctor ran). None by default.
  virtual std::vector<Condition> conditions(const RunRecord& record) const;
};

// What a record of an experiment no one registered gets.
const Experiment& generic_experiment();

// Every registered experiment, in the registry's order (src/experiments/registry.def).
const std::vector<const Experiment*>& all_experiments();
// The experiment a record of this name belongs to; a record of a name no experiment registered
// gets the generic tables and rate charts.
const Experiment& experiment_for(const std::string& name);
// The keys of a case's extra that record validation checks, with their kinds: the framework's
// own (the host NUMA node that rate rows read, an old sweep record's stop reason) and every
// registered experiment's extra_fields(), each key once, the first kind declared for it.
const std::vector<ConfigField>& case_extra_fields();

// Every condition of a record, in order: its experiment, the GPU model it measured ("none" where
// it measured none), then its experiment's own (Experiment::conditions).
std::vector<Condition> conditions_of(const RunRecord& record);
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
