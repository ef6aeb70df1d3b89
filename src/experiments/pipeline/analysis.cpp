#include "experiments/pipeline/analysis.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::pipeline {

PipelineRecordConfig pipeline_config_from(const nlohmann::json& config) {
  PipelineRecordConfig c;
  get_fields(config, c);
  return c;
}

namespace {

// A pipeline case: where its array sits (its extra's "source", else its memory), and the
// streams and chunk it ran with.
PipelineRow pipeline_row_from(const Case& c) {
  PipelineRow r;
  r.source = c.extra.value("source", c.memory);
  r.streams = extra_int(c, "streams");
  r.array_bytes = c.bytes;
  r.chunk_bytes = extra_u64(c, "chunk_bytes");
  return r;
}

}  // namespace

PipelineAnalysis analyse_pipeline(const RunRecord& record, double efficiency,
                                  double staged_efficiency) {
  PipelineAnalysis a;
  a.config = pipeline_config_from(record.config);
  // The first case of each bound part and method, and the last pinned row of each stream count:
  // looked up, not searched for, so a record of many cases is read in time proportional to it.
  std::map<std::pair<std::string, std::string>, const Case*> bounds;
  for (const Case& c : record.cases) bounds.emplace(std::make_pair(c.part, c.method), &c);
  auto find_bound = [&](const char* part, const std::string& method) -> std::optional<double> {
    const auto it = bounds.find({part, method});
    if (it == bounds.end()) return std::nullopt;
    return verified_median(*it->second);
  };
  for (const Case& c : record.cases_of("pipeline")) {
    PipelineRow r = pipeline_row_from(c);
    r.ms = verified_median(c);
    if (r.ms && *r.ms > 0.0) r.gb_per_s_each_way = gb_per_s(c.bytes, *r.ms);
    r.copy_bound_ms = find_bound("bound-copy", c.method);
    r.kernel_ms = find_bound("bound-kernel", c.method);
    if (r.source == "staged") r.host_bound_ms = find_bound("bound-host", c.method);
    if (r.copy_bound_ms && r.kernel_ms) r.bound_ms = std::max(*r.copy_bound_ms, *r.kernel_ms);
    if (r.bound_ms && r.host_bound_ms) r.bound_ms = std::max(*r.bound_ms, *r.host_bound_ms);
    if (r.bound_ms && r.ms && *r.ms > 0.0) r.efficiency = *r.bound_ms / *r.ms;
    a.rows.push_back(r);
  }
  std::map<int, double> pinned_ms;  // by streams: the last pinned row's
  for (const PipelineRow& p : a.rows) {
    if (p.source == "pinned" && p.ms) pinned_ms[p.streams] = *p.ms;
  }
  for (PipelineRow& r : a.rows) {
    if (r.source != "staged" || !r.ms || *r.ms <= 0.0) continue;
    if (const auto it = pinned_ms.find(r.streams); it != pinned_ms.end()) {
      r.over_pinned = it->second / *r.ms;
    }
  }
  // A goal per source, in the order the sources first come; its verdict from the last two-stream
  // row with an efficiency.
  std::map<std::string, std::size_t> goal_of;
  for (const PipelineRow& r : a.rows) {
    const auto [it, added] = goal_of.emplace(r.source, a.goals.size());
    if (added) {
      PipelineGoal g;
      g.source = r.source;
      const double want = r.source == "staged" ? staged_efficiency : efficiency;
      g.text = fmt::format("{} source, two streams: at {:.0f}% of {} bound or better", r.source,
                           100 * want, r.source == "staged" ? "its own" : "the");
      g.evidence = "no two-stream run with a verified result and a measured bound";
      a.goals.push_back(g);
    }
    if (r.streams != 2 || !r.efficiency) continue;
    PipelineGoal& g = a.goals[it->second];
    const double want = r.source == "staged" ? staged_efficiency : efficiency;
    g.verdict = *r.efficiency >= want ? Verdict::kHeld : Verdict::kDied;
    g.evidence = fmt::format(
        "{:.1f}% of the bound: {:.3f} ms against a bound of {:.3f} ms "
        "(copies {:.3f} ms, kernel {:.3f} ms{})",
        100 * *r.efficiency, *r.ms, *r.bound_ms, *r.copy_bound_ms, *r.kernel_ms,
        r.host_bound_ms ? fmt::format(", host side {:.3f} ms", *r.host_bound_ms) : "");
  }
  return a;
}

}  // namespace pinbench::experiments::pipeline
