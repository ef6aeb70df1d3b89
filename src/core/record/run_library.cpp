#include "core/record/run_library.hpp"

#include <filesystem>

#include "core/errors.hpp"
#include "core/record/record.hpp"

namespace pinbench {

std::optional<std::string> newest_record(const std::string& dir, const std::string& experiment) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  std::optional<std::string> best;
  std::string best_time;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    try {
      const RunRecord r = load_record(e.path().string());
      if (r.experiment != experiment || r.source != "measured") continue;
      if (!best || r.created_utc > best_time) {
        best = e.path().string();
        best_time = r.created_utc;
      }
    } catch (const InputError&) {
      continue;  // a trace or another file kept beside the records
    }
  }
  return best;
}

}  // namespace pinbench
