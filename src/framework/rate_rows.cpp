#include "framework/rate_rows.hpp"

#include "framework/stats.hpp"
#include "framework/units.hpp"

namespace pinbench {

std::vector<RateRow> rate_rows(const RunRecord& record, const std::string& part) {
  std::vector<RateRow> rows;
  for (const Case& c : record.cases) {
    if (c.part != part) continue;
    RateRow r;
    r.direction = c.direction;
    r.memory = c.memory;
    r.method = c.method;
    r.timing = c.timing;
    r.bytes = c.bytes;
    r.samples = c.samples_ms.size();
    r.stop = c.stop ? to_string(*c.stop) : "";
    if (c.extra.contains("host_numa_node") && c.extra["host_numa_node"].is_number_integer()) {
      r.host_numa_node = c.extra["host_numa_node"].get<int>();
    }
    if (c.verified && !c.samples_ms.empty()) {
      const Summary s = summarize(c.samples_ms);
      // The fastest sample gives the highest rate.
      if (s.median > 0.0) r.median_gb_per_s = gb_per_s(c.bytes, s.median);
      if (s.max > 0.0) r.min_gb_per_s = gb_per_s(c.bytes, s.max);
      if (s.min > 0.0) r.max_gb_per_s = gb_per_s(c.bytes, s.min);
      r.spread = s.mean > 0.0 ? s.stddev / s.mean : 0.0;
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace pinbench
