#include "experiments/race/analysis.hpp"

#include "framework/stats.hpp"

namespace pinbench::experiments::race {

namespace {

// A race case, and the words its trials (its extra's "trials") found old, new and other.
RaceRow race_row_from(const Case& c) {
  RaceRow r;
  r.memory = c.memory;
  r.method = c.method;
  r.bytes = c.bytes;
  if (!c.call_ms.empty()) r.call_ms = median(c.call_ms);
  if (c.extra.contains("trials") && c.extra["trials"].is_array()) {
    for (const auto& t : c.extra["trials"]) {
      r.old_words += t.value("old_words", std::uint64_t{0});
      r.new_words += t.value("new_words", std::uint64_t{0});
      r.other_words += t.value("other_words", std::uint64_t{0});
      ++r.trials;
    }
  }
  const std::uint64_t all = r.old_words + r.new_words + r.other_words;
  r.new_fraction = all > 0 ? static_cast<double>(r.new_words) / static_cast<double>(all) : 0.0;
  return r;
}

}  // namespace

std::vector<RaceRow> race_rows(const RunRecord& record) {
  return rows_of<RaceRow>(record, "race", race_row_from);
}

}  // namespace pinbench::experiments::race
