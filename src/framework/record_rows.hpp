// A run record as plain rows, one per case: what `pinbench report --csv` prints, typed (numbers
// as numbers, an absent figure as null), with the record's header on every row, so a list of
// them is a table for pandas or a spreadsheet. The Python package reads records through this
// (libpinbench_c's pinbench_record_rows), so it has no reading or figuring of its own.
#pragma once

#include <nlohmann/json.hpp>

#include "framework/record.hpp"

namespace pinbench {

// A JSON array of flat objects. Keys: the header (experiment, created_utc, pinbench_version,
// device, record_incomplete), the case (part, method, direction, memory, timing, bytes, size,
// warmups, samples, samples_ms), its figures (median_ms with median_lo_ms/median_hi_ms, the
// 95% interval of framework/estimate.hpp; min_ms, max_ms, gb_per_s, call_median_ms; null
// where the case's gate failed), verified, gate, gate_detail, stop, rel_spread, stability,
// stability_detail, and each of the case's `extra` fields as "extra.<name>".
nlohmann::ordered_json record_rows(const RunRecord& record);

}  // namespace pinbench
