// The committed runs under data/runs/: finding the one a no-GPU replay should show.
#pragma once

#include <optional>
#include <string>

namespace pinbench {

// The path of the newest measured, complete record of `experiment` in `dir` (by the instant its
// created_utc names), or nothing when the folder has none. Files that are not run records (by the
// record's own schema, common_record_from_json), and records a signal cut short, are skipped.
std::optional<std::string> newest_record(const std::string& dir, const std::string& experiment);

}  // namespace pinbench
