// Rows, ratios and the goals' verdicts for the staged benchmark and its tuning grid
// (experiments/staged/analysis.hpp). A figure comes only from a verified case's median.
#include "experiments/staged/analysis.hpp"

#include <algorithm>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "experiments/staged/plan.hpp"
#include "experiments/staged/torch_methods.hpp"
#include "framework/case_figures.hpp"
#include "framework/stats.hpp"
#include "framework/units.hpp"

namespace pinbench::experiments::staged {
namespace {

std::optional<double> rate(const Case& c) {
  const auto ms = verified_median(c);
  if (!ms || *ms <= 0.0) return std::nullopt;
  return gb_per_s(c.bytes, *ms);
}

std::string size_label(const StagedRow& r) {
  std::string s = exact_size(r.bytes);
  if (r.host_offset != 0 || r.device_offset != 0) {
    s += fmt::format(" at +{}/+{}", r.host_offset, r.device_offset);
  }
  return s;
}

// One goal over a set of rows, each row's ratio judged on its interval against `bound`: held
// when every row's interval clears it, died when one lies wholly below, undecided when none
// failed but one straddles the bound, not evaluated when none could be judged or some lack a
// figure and none failed.
template <typename Figure>
StagedGoal judge(const std::string& direction, const std::string& text,
                 const std::vector<const StagedRow*>& rows, const char* label, const char* spec,
                 const char* unit, Figure figure, double bound) {
  StagedGoal g;
  g.direction = direction;
  g.text = text;
  if (rows.empty()) {
    g.evidence = "no size in range was measured";
    return g;
  }
  bool died = false;
  bool undecided = false;
  bool missing = false;
  std::vector<std::string> parts;
  for (const StagedRow* r : rows) {
    const std::optional<Estimate> v = figure(*r);
    if (!v) {
      missing = true;
      parts.push_back(fmt::format("no figure at {}", size_label(*r)));
      continue;
    }
    const Verdict row = judge_at_least(*v, bound);
    died = died || row == Verdict::kDied;
    undecided = undecided || row == Verdict::kUndecided;
    parts.push_back(fmt::format("{}{} at {}", describe(*v, spec, unit),
                                row == Verdict::kDied        ? " (fails)"
                                : row == Verdict::kUndecided ? " (within noise)"
                                                             : "",
                                size_label(*r)));
  }
  g.verdict = died        ? Verdict::kDied
              : undecided ? Verdict::kUndecided
              : missing   ? Verdict::kNotEvaluated
                          : Verdict::kHeld;
  g.evidence = std::string(label) + ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) g.evidence += (i ? "; " : "") + parts[i];
  return g;
}

// The bound case nearest `bytes` (within a factor of two), its times scaled to `bytes`: the
// host side's rate, not its time, is what carries over to a nearby size.
std::map<std::string, Estimate> bound_near(
    const std::map<std::uint64_t, std::map<std::string, Estimate>>& by_size, std::uint64_t bytes) {
  const std::map<std::string, Estimate>* best = nullptr;
  std::uint64_t best_bytes = 0;
  double best_distance = 2.0;
  for (const auto& [b, methods] : by_size) {
    const double d = b > bytes ? static_cast<double>(b) / static_cast<double>(bytes)
                               : static_cast<double>(bytes) / static_cast<double>(b);
    if (d <= best_distance) {
      best = &methods;
      best_bytes = b;
      best_distance = d;
    }
  }
  std::map<std::string, Estimate> out;
  if (best == nullptr) return out;
  for (const auto& [m, e] : *best) {
    out[m] = scaled(e, static_cast<double>(bytes) / static_cast<double>(best_bytes));
  }
  return out;
}

// The slower of two times, end by end: the bound is the lesser of two rates.
Estimate slower(const Estimate& a, const Estimate& b) {
  return {std::max(a.lo, b.lo), std::max(a.mid, b.mid), std::max(a.hi, b.hi)};
}

void add_bound(StagedRow& row,
               const std::map<std::uint64_t, std::map<std::string, Estimate>>& by_size,
               const std::map<std::string, Estimate>& t, double fraction) {
  const std::map<std::string, Estimate> host = bound_near(by_size, row.bytes);
  const auto rate_of = [&](const Estimate& e) { return gb_per_s(row.bytes, e.mid); };
  if (const auto it = host.find("host"); it != host.end()) row.host_gb_per_s = rate_of(it->second);
  const auto joint = host.find("host-under-dma");
  const auto pinned = t.find("pinned");
  if (joint == host.end()) return;
  row.host_under_dma_gb_per_s = rate_of(joint->second);
  if (pinned == t.end()) return;
  const Estimate bound = slower(joint->second, pinned->second);
  row.bound_gb_per_s = rate_of(bound);
  row.bound_over_pinned = pinned->second.mid / bound.mid;
  const bool near_pinned = *row.bound_over_pinned > fraction;
  for (const bool b2b : {false, true}) {
    const auto engine = t.find(b2b ? "staged-back-to-back" : "staged");
    if (engine == t.end()) continue;
    const Estimate over_bound = ratio_of(bound, engine->second);
    const Estimate over_pinned = ratio_of(pinned->second, engine->second);
    (b2b ? row.back_to_back_over_bound : row.staged_over_bound) = over_bound.mid;
    (b2b ? row.back_to_back_over_bound_estimate : row.staged_over_bound_estimate) = over_bound;
    (b2b ? row.back_to_back_goal_estimate : row.staged_goal_estimate) =
        near_pinned ? over_pinned : over_bound;
  }
}

// The engine against PyTorch's paths, where the record holds them (`staged --torch`): each
// aligned size's ratio of times from from_bytes up, host to device, judged like every goal. The
// engine's figure is python-staged (same process, same tensors, same clock as torch's), or the
// CLI's staged where a record has none.
void add_torch_goals(StagedAnalysis& a, const StagedGoals& goals) {
  const auto has = [&](const char* m) {
    return std::find(a.methods.begin(), a.methods.end(), m) != a.methods.end();
  };
  const auto it = a.rows.find("h2d");
  if (it == a.rows.end()) return;
  const std::string engine = has(kPythonStaged) ? kPythonStaged : "staged";
  const struct {
    const char* method;
    const char* words;
    double multiple;
  } yardsticks[] = {
      {kTorchPageableTo, "torch's pageable x.to(\"cuda\", non_blocking=True)",
       goals.torch_pageable_multiple},
      {kTorchPinMemoryTo, "torch's x.pin_memory().to(\"cuda\")", goals.torch_pin_memory_multiple},
  };
  for (const auto& y : yardsticks) {
    if (!has(y.method)) continue;
    std::vector<const StagedRow*> rows;
    for (const StagedRow& r : it->second) {
      if (r.bytes >= goals.from_bytes && r.host_offset == 0 && r.device_offset == 0 &&
          r.gb_per_s.count(y.method) != 0) {
        rows.push_back(&r);
      }
    }
    const std::string method = y.method;
    StagedGoal g = judge(
        "h2d",
        fmt::format("{} at {:g}x {} or better from {} up", engine, y.multiple, y.words,
                    format_size(goals.from_bytes)),
        rows, (engine + "/" + method).c_str(), "{:.2f}", "x",
        [&](const StagedRow& r) -> std::optional<Estimate> {
          const auto e = r.ms_estimate.find(engine);
          const auto t = r.ms_estimate.find(method);
          if (e == r.ms_estimate.end() || t == r.ms_estimate.end()) return std::nullopt;
          return ratio_of(t->second, e->second);  // rates' ratio: the inverse ratio of times
        },
        y.multiple);
    g.method = engine;
    a.goals.push_back(std::move(g));
  }
}

// The engine's CPU goals, where the record holds its CPU figures: per direction and engine
// method, system time's share of the CPU time over each size's timed samples at most
// sys_share_max; and the idle engine under idle_cores_max of a core. One figure per case (the
// samples' sums), so a goal holds or fails on it, without an interval.
void add_cpu_goals(StagedAnalysis& a, const StagedGoals& goals) {
  for (const char* direction : {"h2d", "d2h"}) {
    const auto it = a.rows.find(direction);
    if (it == a.rows.end() || !a.has_cpu(direction)) continue;
    for (const char* method : {"staged", "staged-back-to-back"}) {
      const bool any = std::any_of(it->second.begin(), it->second.end(),
                                   [&](const StagedRow& r) { return r.cpu.count(method) != 0; });
      if (!any) continue;
      StagedGoal g;
      g.direction = direction;
      g.method = method;
      g.text = fmt::format("{}: system time at most {:.0f}% of the engine's CPU time while copying",
                           std::string(method) == "staged" ? "staged" : "staged back to back",
                           100 * goals.sys_share_max);
      bool died = false;
      bool missing = false;
      std::vector<std::string> parts;
      for (const StagedRow& r : it->second) {
        if (r.gb_per_s.count(method) == 0) continue;  // not measured at this size
        const auto c = r.cpu.find(method);
        const std::optional<double> share = c == r.cpu.end() ? std::nullopt : c->second.sys_share();
        if (!share) {
          missing = true;
          parts.push_back(fmt::format("no figure at {}", size_label(r)));
          continue;
        }
        const bool fails = *share > goals.sys_share_max;
        died = died || fails;
        parts.push_back(
            fmt::format("{:.1f}%{} at {}", 100 * *share, fails ? " (fails)" : "", size_label(r)));
      }
      g.verdict = died ? Verdict::kDied : missing ? Verdict::kNotEvaluated : Verdict::kHeld;
      g.evidence = "sys/(user+sys): ";
      for (std::size_t i = 0; i < parts.size(); ++i) g.evidence += (i ? "; " : "") + parts[i];
      a.goals.push_back(std::move(g));
    }
  }
  if (a.idle) {
    const EngineCpu& u = *a.idle;
    StagedGoal g;
    g.text = fmt::format("an idle engine under {:g}% of a core", 100 * goals.idle_cores_max);
    g.verdict = u.cores() < goals.idle_cores_max ? Verdict::kHeld : Verdict::kDied;
    g.evidence = idle_engine_text(a);
    a.goals.push_back(std::move(g));
  }
}

}  // namespace

std::optional<double> EngineCpu::sys_share() const {
  const double cpu = user_s + sys_s;
  if (!(cpu > 0.0)) return std::nullopt;
  return sys_s / cpu;
}

double EngineCpu::switches_per_s() const {
  return wall_s > 0.0 ? static_cast<double>(voluntary + involuntary) / wall_s : 0.0;
}

double EngineCpu::cores() const {
  return wall_s > 0.0 ? (user_s + sys_s) / wall_s : 0.0;
}

std::vector<ConfigField> engine_cpu_fields() {
  return fields_of<EngineCpu>();
}

// Not put_fields: a time the clock made a hair negative is written as 0.
void put_engine_cpu(nlohmann::json& j, const EngineCpu& u) {
  visit_fields(u, [&j](const char* key, const auto& value, FieldKind) {
    if constexpr (std::is_floating_point_v<std::decay_t<decltype(value)>>) {
      j[key] = std::max(0.0, value);
    } else {
      j[key] = value;
    }
  });
}

std::optional<EngineCpu> engine_cpu_from(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  for (const ConfigField& f : fields_of<EngineCpu>()) {
    if (!j.contains(f.key) || !j[f.key].is_number()) return std::nullopt;
  }
  EngineCpu u;
  visit_fields(u, [&j](const char* key, auto& value, FieldKind) {
    value = j[key].get<std::decay_t<decltype(value)>>();
  });
  return u;
}

std::string idle_engine_text(const StagedAnalysis& a) {
  if (!a.idle) return "";
  const EngineCpu& u = *a.idle;
  return fmt::format(
      "the process used {:.2f}% of a core over {:.2f} s with the engine idle ({:.4f} s user, "
      "{:.4f} s system, {} context switches), after {:.1f} s left alone",
      100 * u.cores(), u.wall_s, u.user_s, u.sys_s, u.voluntary + u.involuntary, a.idle_settle_s);
}

bool StagedAnalysis::has_cpu(const std::string& direction) const {
  const auto it = rows.find(direction);
  return it != rows.end() && std::any_of(it->second.begin(), it->second.end(),
                                         [](const StagedRow& r) { return !r.cpu.empty(); });
}

std::vector<std::string> StagedAnalysis::methods_in(const std::string& direction) const {
  std::vector<std::string> out;
  const auto it = rows.find(direction);
  if (it == rows.end()) return out;
  for (const std::string& m : methods) {
    const bool any = std::any_of(it->second.begin(), it->second.end(),
                                 [&](const StagedRow& r) { return r.gb_per_s.count(m) != 0; });
    if (any) out.push_back(m);
  }
  return out;
}

namespace {

// The staged cases as rows: by direction, then size and offsets; each row's times by method
// (keyed by the row, whose place in the map holds); and the bound cases' times, by direction,
// size and method.
struct StagedCases {
  using Key = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;
  std::map<std::string, std::map<Key, StagedRow>> by_direction;
  std::vector<std::string> seen;  // the methods, in the order the record first names them
  std::map<const StagedRow*, std::map<std::string, Estimate>> ms;
  std::map<std::string, std::map<std::uint64_t, std::map<std::string, Estimate>>> bound_ms;
};

// A staged case's extra, as measure.cpp writes it: where the buffers sit from their alignment,
// the engine's path, and its CPU over the timed samples.
struct StagedExtra {
  std::uint64_t host_offset = 0;
  std::uint64_t device_offset = 0;
  std::string path;
  std::optional<EngineCpu> cpu;
};

StagedExtra staged_extra_from(const Case& c) {
  StagedExtra x;
  x.host_offset = extra_u64(c, "host_offset");
  x.device_offset = extra_u64(c, "device_offset");
  x.path = c.extra.value("path", std::string());
  x.cpu = engine_cpu_from(c.extra);
  return x;
}

// What the printers read of the config: the samples per case (StagedRecordConfig), and
// config.idle_engine, the process's CPU with the engine idle, after settle_s left alone.
void staged_config_from(const nlohmann::json& config, StagedAnalysis& a) {
  StagedRecordConfig c;
  get_fields(config, c);
  a.iterations = c.iterations;
  if (!config.contains("idle_engine")) return;
  const nlohmann::json& idle = config.at("idle_engine");
  a.idle = engine_cpu_from(idle);
  if (a.idle) {
    IdleEngineConfig settle;
    get_fields(idle, settle);
    a.idle_settle_s = settle.settle_s;
  }
}

void read_cases(const RunRecord& record, StagedCases& cases) {
  for (const Case& c : record.cases_of("bound")) {
    if (const auto e = verified_estimate(c); e && e->lo > 0.0) {
      cases.bound_ms[c.direction][c.bytes][c.method] = *e;
    }
  }
  for (const Case& c : record.cases_of("staged")) {
    const StagedExtra x = staged_extra_from(c);
    const std::uint64_t ho = x.host_offset;
    const std::uint64_t dof = x.device_offset;
    StagedRow& row = cases.by_direction[c.direction][StagedCases::Key{c.bytes, ho, dof}];
    row.bytes = c.bytes;
    row.host_offset = ho;
    row.device_offset = dof;
    row.gb_per_s[c.method] = rate(c);
    if (const auto e = verified_estimate(c); e && e->lo > 0.0) cases.ms[&row][c.method] = *e;
    if (c.method == "staged" || (c.method == "staged-back-to-back" && row.staged_path.empty())) {
      row.staged_path = x.path;
    }
    if ((c.method == "staged" || c.method == "staged-back-to-back") && c.verified) {
      if (x.cpu) row.cpu[c.method] = *x.cpu;
    }
    std::vector<std::string>& seen = cases.seen;
    if (std::find(seen.begin(), seen.end(), c.method) == seen.end()) seen.push_back(c.method);
  }
}

// The methods in their usual order; methods from a newer pinbench at the end.
std::vector<std::string> methods_in_order(const std::vector<std::string>& seen) {
  std::vector<std::string> methods;
  for (StagedMethod m : all_staged_methods()) {
    if (std::find(seen.begin(), seen.end(), to_string(m)) != seen.end()) {
      methods.push_back(to_string(m));
    }
  }
  for (const std::string& m : seen) {
    if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
  }
  return methods;
}

// Each row with its ratios to pinned and to the driver's pageable path, and its bound.
void add_rows(StagedAnalysis& a, StagedCases& cases, const StagedGoals& goals) {
  for (auto& [direction, rows] : cases.by_direction) {
    std::vector<StagedRow>& out = a.rows[direction];
    for (auto& entry : rows) {
      StagedRow& row = entry.second;  // not a structured binding: lambdas may not capture those
      auto get = [&](const char* m) -> std::optional<double> {
        const auto it = row.gb_per_s.find(m);
        return it == row.gb_per_s.end() ? std::nullopt : it->second;
      };
      const auto staged = get("staged");
      const auto pinned = get("pinned");
      const auto driver = get("pageable-driver");
      const auto back_to_back = get("staged-back-to-back");
      if (staged && pinned) row.staged_over_pinned = *staged / *pinned;
      if (staged && driver) row.staged_over_driver = *staged / *driver;
      if (back_to_back && pinned) row.back_to_back_over_pinned = *back_to_back / *pinned;
      // A ratio of rates at one size is the inverse ratio of the times.
      const auto& t = cases.ms[&row];
      row.ms_estimate = t;
      const auto faster = [&](const char* num, const char* den) -> std::optional<Estimate> {
        const auto x = t.find(num);
        const auto y = t.find(den);
        if (x == t.end() || y == t.end()) return std::nullopt;
        return ratio_of(y->second, x->second);
      };
      row.staged_over_pinned_estimate = faster("staged", "pinned");
      row.staged_over_driver_estimate = faster("staged", "pageable-driver");
      row.back_to_back_over_pinned_estimate = faster("staged-back-to-back", "pinned");
      add_bound(row, cases.bound_ms[direction], t, goals.pinned_fraction);
      out.push_back(row);
    }
  }
}

// The goals on the engine's rate in one direction: against its bound (or pinned, in records
// without one) for large copies, and against the driver's pageable path.
void add_rate_goals(StagedAnalysis& a, const char* direction,
                    const std::vector<StagedRow>& direction_rows, const StagedGoals& goals) {
  std::vector<const StagedRow*> large;
  std::vector<const StagedRow*> all;
  for (const StagedRow& r : direction_rows) {
    all.push_back(&r);
    if (r.bytes >= goals.from_bytes) large.push_back(&r);
  }
  const std::string from = format_size(goals.from_bytes);
  // Records with the bound are judged against it; older ones against pinned, as they were.
  const bool bounded = std::any_of(
      large.begin(), large.end(), [](const StagedRow* r) { return r->bound_gb_per_s.has_value(); });
  const std::string yardstick =
      bounded ? fmt::format("its bound ({:.0f}% of pinned where the bound is above that)",
                            100 * goals.pinned_fraction)
              : std::string("pinned");
  const char* label = bounded ? "staged/bound" : "staged/pinned";
  a.goals.push_back(judge(
      direction,
      fmt::format("staged at {:.0f}% of {} or better from {} up", 100 * goals.pinned_fraction,
                  yardstick, from),
      large, label, "{:.3f}", "",
      [bounded](const StagedRow& r) {
        return bounded ? r.staged_goal_estimate : r.staged_over_pinned_estimate;
      },
      goals.pinned_fraction));
  if (std::find(a.methods.begin(), a.methods.end(), "staged-back-to-back") != a.methods.end()) {
    StagedGoal g = judge(
        direction,
        fmt::format("staged back to back at {:.0f}% of {} or better from {} up",
                    100 * goals.pinned_fraction, yardstick, from),
        large, bounded ? "staged-back-to-back/bound" : "staged-back-to-back/pinned", "{:.3f}", "",
        [bounded](const StagedRow& r) {
          return bounded ? r.back_to_back_goal_estimate : r.back_to_back_over_pinned_estimate;
        },
        goals.pinned_fraction);
    g.method = "staged-back-to-back";
    a.goals.push_back(std::move(g));
  }
  std::vector<const StagedRow*> small;
  for (const StagedRow& r : direction_rows) {
    if (r.bytes >= goals.small_from_bytes && r.bytes <= goals.small_to_bytes) small.push_back(&r);
  }
  if (!small.empty()) {
    a.goals.push_back(judge(
        direction,
        fmt::format("staged at {:g}x the driver's pageable path or better from {} to {}",
                    goals.small_driver_multiple, format_size(goals.small_from_bytes),
                    format_size(goals.small_to_bytes)),
        small, "staged/pageable-driver", "{:.2f}", "x",
        [](const StagedRow& r) { return r.staged_over_driver_estimate; },
        goals.small_driver_multiple));
  }
  a.goals.push_back(judge(
      direction,
      fmt::format("staged at {:g}x the driver's pageable path or better from {} up",
                  goals.driver_multiple, from),
      large, "staged/pageable-driver", "{:.2f}", "x",
      [](const StagedRow& r) { return r.staged_over_driver_estimate; }, goals.driver_multiple));
  a.goals.push_back(judge(
      direction,
      fmt::format("staged never slower than the driver's pageable path at any size (within "
                  "{:.0f}% noise)",
                  100 * goals.noise),
      all, "staged/pageable-driver", "{:.3f}", "",
      [](const StagedRow& r) { return r.staged_over_driver_estimate; }, 1.0 - goals.noise));
}

}  // namespace

StagedAnalysis analyse_staged(const RunRecord& record, const StagedGoals& goals) {
  StagedAnalysis a;
  StagedCases cases;
  read_cases(record, cases);
  a.methods = methods_in_order(cases.seen);
  add_rows(a, cases, goals);
  for (const char* direction : {"h2d", "d2h"}) {
    const auto it = a.rows.find(direction);
    if (it == a.rows.end()) continue;
    add_rate_goals(a, direction, it->second, goals);
  }
  add_torch_goals(a, goals);
  staged_config_from(record.config, a);
  add_cpu_goals(a, goals);
  return a;
}

namespace {

// A tuning case: its shape is its extra's (measure.cpp).
TuneRow tune_row_from(const Case& c) {
  TuneRow r;
  r.direction = c.direction;
  r.bytes = c.bytes;
  r.chunk_bytes = extra_u64(c, "chunk_bytes");
  r.depth = extra_int(c, "depth");
  r.threads = extra_int(c, "threads");
  r.gb_per_s = rate(c);
  return r;
}

}  // namespace

std::vector<TuneRow> tune_rows(const RunRecord& record) {
  return rows_of<TuneRow>(record, "tune", tune_row_from);
}

std::vector<TuneChoice> tune_choices(const std::vector<TuneRow>& rows) {
  std::vector<TuneChoice> out;
  for (const char* direction : {"h2d", "d2h"}) {
    std::map<std::uint64_t, double> best;  // by size
    using Shape = std::tuple<std::uint64_t, int, int>;
    std::map<Shape, std::map<std::uint64_t, double>> rates;
    for (const TuneRow& r : rows) {
      if (r.direction != direction) continue;
      double& b = best[r.bytes];
      const double v = r.gb_per_s.value_or(0.0);
      b = std::max(b, v);
      rates[Shape{r.chunk_bytes, r.depth, r.threads}][r.bytes] = v;
    }
    if (rates.empty()) continue;
    std::optional<TuneChoice> choice;
    for (const auto& [shape, by_size] : rates) {
      double worst = 1.0;
      for (const auto& [bytes, top] : best) {
        const auto it = by_size.find(bytes);
        const double v = it == by_size.end() ? 0.0 : it->second;
        worst = std::min(worst, top > 0.0 ? v / top : 0.0);
      }
      TuneChoice c{direction, std::get<0>(shape), std::get<1>(shape), std::get<2>(shape), worst};
      // Ties go to less page-locked memory, then to fewer threads.
      const auto cost = [](const TuneChoice& t) {
        return std::make_tuple(-t.worst_share, t.chunk_bytes * static_cast<std::uint64_t>(t.depth),
                               t.threads);
      };
      if (!choice || cost(c) < cost(*choice)) choice = c;
    }
    out.push_back(*choice);
  }
  return out;
}

}  // namespace pinbench::experiments::staged
