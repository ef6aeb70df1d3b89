// The engine against PyTorch's paths (staged_torch_goals.hpp): each size's ratio of medians,
// with the interval from the two cases' intervals, judged at least the goal's multiple.
#include "core/analysis/staged_torch_goals.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/analysis/case_figures.hpp"
#include "core/units.hpp"

namespace pinbench {
namespace {

// Host-to-device times of the aligned cases of `method`, by size.
std::map<std::uint64_t, std::optional<Estimate>> times(const RunRecord& record,
                                                       const std::string& method) {
  std::map<std::uint64_t, std::optional<Estimate>> out;
  for (const Case& c : record.cases) {
    if (c.part != "staged" || c.direction != "h2d" || c.method != method) continue;
    if (c.extra.value("host_offset", 0) != 0 || c.extra.value("device_offset", 0) != 0) continue;
    const std::optional<Estimate> e = verified_estimate(c);
    out[c.bytes] = e && e->lo > 0.0 ? e : std::nullopt;
  }
  return out;
}

StagedGoal judge_multiple(const RunRecord& record, const std::string& engine,
                          const std::string& torch_method, const std::string& torch_words,
                          double multiple, std::uint64_t from_bytes) {
  StagedGoal g;
  g.direction = "h2d";
  g.method = engine;
  g.text = fmt::format("{} at {:g}x {} or better from {} up", engine, multiple, torch_words,
                       format_size(from_bytes));
  const auto engine_ms = times(record, engine);
  const auto torch_ms = times(record, torch_method);
  bool died = false, undecided = false, missing = false, any = false;
  std::vector<std::string> parts;
  for (const auto& [bytes, t] : torch_ms) {
    if (bytes < from_bytes) continue;
    any = true;
    const auto e = engine_ms.find(bytes);
    if (!t || e == engine_ms.end() || !e->second) {
      missing = true;
      parts.push_back(fmt::format("no figure at {}", exact_size(bytes)));
      continue;
    }
    // A ratio of rates at one size is the inverse ratio of the times.
    const Estimate r = ratio_of(*t, *e->second);
    const Verdict v = judge_at_least(r, multiple);
    died = died || v == Verdict::kDied;
    undecided = undecided || v == Verdict::kUndecided;
    parts.push_back(fmt::format("{}{} at {}", describe(r, "{:.2f}", "x"),
                                v == Verdict::kDied        ? " (fails)"
                                : v == Verdict::kUndecided ? " (within noise)"
                                                           : "",
                                exact_size(bytes)));
  }
  if (!any) {
    g.evidence =
        fmt::format("no {} case from {} up was measured", torch_method, format_size(from_bytes));
    return g;
  }
  g.verdict = died        ? Verdict::kDied
              : undecided ? Verdict::kUndecided
              : missing   ? Verdict::kNotEvaluated
                          : Verdict::kHeld;
  g.evidence = fmt::format("{}/{}: ", engine, torch_method);
  for (std::size_t i = 0; i < parts.size(); ++i) g.evidence += (i ? "; " : "") + parts[i];
  return g;
}

}  // namespace

void add_torch_goals(const RunRecord& record, StagedAnalysis& a, const TorchGoals& goals) {
  const auto has = [&](const char* m) {
    return std::find(a.methods.begin(), a.methods.end(), m) != a.methods.end();
  };
  if (!has(kTorchPageableTo) && !has(kTorchPinMemoryTo)) return;
  const std::string engine = has(kPythonStaged) ? kPythonStaged : "staged";
  if (has(kTorchPageableTo)) {
    a.goals.push_back(judge_multiple(record, engine, kTorchPageableTo,
                                     "torch's pageable x.to(\"cuda\", non_blocking=True)",
                                     goals.pageable_multiple, goals.from_bytes));
  }
  if (has(kTorchPinMemoryTo)) {
    a.goals.push_back(judge_multiple(record, engine, kTorchPinMemoryTo,
                                     "torch's x.pin_memory().to(\"cuda\")",
                                     goals.pin_memory_multiple, goals.from_bytes));
  }
}

}  // namespace pinbench
