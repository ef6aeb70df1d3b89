#include "experiments/pipeline/analysis.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "framework/case_figures.hpp"
#include "framework/units.hpp"

namespace pinbench {

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
  auto find_bound = [&](const char* part, const std::string& method) -> std::optional<double> {
    for (const Case& c : record.cases) {
      if (c.part == part && c.method == method) return verified_median(c);
    }
    return std::nullopt;
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
  for (PipelineRow& r : a.rows) {
    if (r.source != "staged" || !r.ms || *r.ms <= 0.0) continue;
    for (const PipelineRow& p : a.rows) {
      if (p.source == "pinned" && p.streams == r.streams && p.ms) r.over_pinned = *p.ms / *r.ms;
    }
  }
  std::vector<std::string> sources;
  for (const PipelineRow& r : a.rows) {
    if (std::find(sources.begin(), sources.end(), r.source) == sources.end()) {
      sources.push_back(r.source);
    }
  }
  for (const std::string& source : sources) {
    PipelineGoal g;
    g.source = source;
    const double want = source == "staged" ? staged_efficiency : efficiency;
    g.text = fmt::format("{} source, two streams: at {:.0f}% of {} bound or better", source,
                         100 * want, source == "staged" ? "its own" : "the");
    g.evidence = "no two-stream run with a verified result and a measured bound";
    for (const PipelineRow& r : a.rows) {
      if (r.source != source || r.streams != 2 || !r.efficiency) continue;
      g.verdict = *r.efficiency >= want ? Verdict::kHeld : Verdict::kDied;
      g.evidence = fmt::format(
          "{:.1f}% of the bound: {:.3f} ms against a bound of {:.3f} ms "
          "(copies {:.3f} ms, kernel {:.3f} ms{})",
          100 * *r.efficiency, *r.ms, *r.bound_ms, *r.copy_bound_ms, *r.kernel_ms,
          r.host_bound_ms ? fmt::format(", host side {:.3f} ms", *r.host_bound_ms) : "");
    }
    a.goals.push_back(g);
  }
  return a;
}

}  // namespace pinbench
