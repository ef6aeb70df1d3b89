// The one place below the command line that asks experiments (framework/experiment.hpp): a
// record read with its experiment's part checked, a record analysed into the report model with
// its experiment's section, text and timeline, the NVTX ranges every experiment gates, the keys
// of a case's extra, a record's conditions. No other file of framework/ (nor of capi/, measure/,
// cuda/, transfer/, base/) includes the experiment interface or asks the registry, and none
// includes this one (the CTest layout.one_asker): the record's reader, the model's common part,
// the printers and the trace gates take what they need of an experiment as data, given here or
// put in the model.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/config_schema.hpp"
#include "framework/experiment.hpp"
#include "framework/record.hpp"
#include "framework/report_model.hpp"
#include "framework/trace_gates.hpp"

namespace pinbench {

// The one validation of a record (docs/record-schema.md, "Validation"): every reader goes
// through here. A record passes whole or is refused with an InputError of one line naming the
// field: "run record: 'cases[3].bytes' is -1048576, negative (0 to 2^63 - 1 bytes)". Checks
// types, ranges (sizes positive and below 2^63, times finite, samples of 1 ns to a day), an
// RFC 3339 created_utc, a known schema version and source, at least one sample per case,
// call_ms as long as samples_ms, unique gate names, each case's gate present, and a verified
// case's gate passed (common_record_from_json, record.hpp); then its experiment's part: the
// kinds of its config's keys and of every experiment's keys of a case's extra, the experiments'
// sections (each read by the experiment whose key it is, whatever the record's experiment), and
// its experiment's own rules (a check's floors, say). A record of an experiment no one
// registered is checked against the schema alone.
RunRecord record_from_json(const nlohmann::json& j);

// Reads at most kMaxRecordBytes (framework/input_limits.hpp) of `path`, parses it and validates it
// with record_from_json. Throws InputError, one line naming the file, when the file is missing,
// a directory, not a regular file (a FIFO, a device), too large, empty, not JSON, not UTF-8,
// truncated, nested too deep, holds a number beyond a double (named by its field), or is not a
// valid record:
//   "cannot open run record 'P'", "'P' is a directory, not a run record",
//   "run record 'P' is larger than 64 MiB, the most pinbench reads", "run record 'P' is empty",
//   "'P' is a fifo, not a regular file: pinbench reads a run record only from a file",
//   "run record 'P' is not valid JSON (truncated?) near byte N" (it ends before the JSON does),
//   "run record 'P' is not valid JSON near byte N" (anything else that is not JSON),
//   "run record 'P' is not valid UTF-8 at byte N (JSON text is UTF-8)",
//   "'P': run record: 'cases[0].bytes' is 1e400, a number out of range",
//   "'P': run record: 'cases[3].samples_ms' is empty: a case without samples has no figure..."
RunRecord load_record(const std::string& path);

// The report model of a record, whole: the common part, then the section of the experiment the
// record names (a record of an experiment no one registered gets the generic tables and rate
// charts), what passing its checks means, and its terminal text (ReportModel::text, given
// `options`) and timeline; so no printer asks an experiment anything. `record` must outlive the
// model (CaseLine points into it).
ReportModel analyse(const RunRecord& record, const TextOptions& options = {});

// Every registered experiment's NVTX ranges that the memory-kind gate checks (their
// descriptors' range_gates), for check_memory_kinds and attach_trace_summary (trace_gates.hpp).
const std::vector<RangeGate>& range_gates();

// The keys of a case's extra that record validation checks, with their kinds: the framework's
// own (framework_extra_fields, record.hpp) and every registered experiment's extra_fields, each
// key once, the first kind declared for it.
const std::vector<ConfigField>& case_extra_fields();

// Every condition of a record, in order: its experiment, the GPU model it measured ("none" where
// it measured none), then its experiment's own (Experiment::conditions).
std::vector<Condition> conditions_of(const RunRecord& record);

}  // namespace pinbench
