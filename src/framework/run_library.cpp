#include "framework/run_library.hpp"

#include <cstdint>
#include <filesystem>

#include "framework/errors.hpp"
#include "framework/input_limits.hpp"
#include "framework/record.hpp"
#include "framework/text_file.hpp"

namespace pinbench {

std::optional<std::string> newest_record(const std::string& dir, const std::string& experiment) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  std::optional<std::string> best;
  std::int64_t best_time = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    try {
      // Its experiment, source, state and date are the record's own schema: a record its
      // experiment refuses is still found, and its replay says what is wrong with it.
      const RunRecord r = common_record_from_json(
          parse_record_text(read_input_file(e.path().string(), kMaxRecordBytes, "run record")));
      // A run a signal cut short is kept, but it is not the run to show someone without a GPU.
      if (r.experiment != experiment || r.source != "measured" || r.incomplete) continue;
      // By the instant, not the text: "2026-12-01T01:00:00+02:00" is before "...T00:30:00Z".
      const std::int64_t t = rfc3339_seconds(r.created_utc).value_or(0);
      if (!best || t > best_time) {
        best = e.path().string();
        best_time = t;
      }
    } catch (const InputError&) {
      continue;  // a trace or another file kept beside the records
    }
  }
  return best;
}

}  // namespace pinbench
